# 前向传播
x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
z = x * y      # z = 6
w = z + 1      # w = 7
loss = w ** 2  # loss = 49

# 反向传播
loss.backward()

print(x.grad)  # tensor([84.])
print(y.grad)  # tensor([56.])
