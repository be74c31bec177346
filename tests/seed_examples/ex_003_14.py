# 方法1：detach
x = torch.tensor([1.0], requires_grad=True)
y = x ** 2
z = y.detach()  # z脱离计算图
w = z + 1
w.backward()  # 只会传播到z，不会传到x

# 方法2：requires_grad_(False)
x.requires_grad_(False)
y = x ** 2
print(y.requires_grad)  # False
