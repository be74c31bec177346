# 验证
x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
z = x * y
w = z + 1
loss = w ** 2
loss.backward()
print(f"x.grad = {x.grad}")  # x.grad = tensor([42.])
print(f"y.grad = {y.grad}")  # y.grad = tensor([28.])
