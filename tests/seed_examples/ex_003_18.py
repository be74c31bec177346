# 注册 Hook
def hook_fn(grad):
    print(f"Gradient: {grad}")
    return grad * 2  # 可以修改梯度

x = torch.tensor([1.0], requires_grad=True)
x.register_hook(hook_fn)

y = x ** 2
y.backward()
# 输出: Gradient: tensor([2.])
print(x.grad)  # tensor([4.])，梯度被hook修改了
