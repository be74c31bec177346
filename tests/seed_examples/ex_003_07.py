x = torch.tensor([1.0], requires_grad=True)
y = x + 2
z = y * 3

print(x.is_leaf)  # True（用户创建）
print(y.is_leaf)  # False（操作结果）
print(z.is_leaf)  # False（操作结果）

# 默认只保留叶子节点的梯度
z.backward()
print(x.grad)  # tensor([3.])
print(y.grad)  # None（非叶子节点）
