x = torch.tensor([1.0], requires_grad=True)
y = x + 2
y.retain_grad()  # 保留y的梯度
z = y * 3
z.backward()

print(x.grad)  # tensor([3.])
print(y.grad)  # tensor([3.])
