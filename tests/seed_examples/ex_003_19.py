import torch.nn as nn

model = nn.Linear(10, 5)

# 前向 Hook
def forward_hook(module, input, output):
    print(f"Forward: {output.shape}")

# 反向 Hook
def backward_hook(module, grad_input, grad_output):
    print(f"Backward: {grad_output[0].shape}")

# 注册
handle1 = model.register_forward_hook(forward_hook)
handle2 = model.register_backward_hook(backward_hook)

# 使用
x = torch.randn(3, 10, requires_grad=True)
y = model(x)
y.sum().backward()

# 移除 Hook
handle1.remove()
handle2.remove()
