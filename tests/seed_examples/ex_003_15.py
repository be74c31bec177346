import torch
from torch.autograd import Function

class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        # ctx用于保存反向传播需要的值
        result = torch.exp(x)
        ctx.save_for_backward(result)
        return result
    
    @staticmethod
    def backward(ctx, grad_output):
        # 获取保存的值
        result, = ctx.saved_tensors
        # ∂(e^x)/∂x = e^x
        return grad_output * result

# 使用
exp = Exp.apply
x = torch.tensor([1.0], requires_grad=True)
y = exp(x)
y.backward()
print(x.grad)  # tensor([2.7183])，即e^1
