x = torch.tensor([1.0], requires_grad=True)
y = x ** 2

# 第一次反向传播
y.backward(retain_graph=True)  # 保留计算图
print(x.grad)  # tensor([2.])

# 第二次反向传播（梯度累加）
y.backward()
print(x.grad)  # tensor([4.])，梯度累加了

# 清零梯度
x.grad.zero_()
y.backward()
print(x.grad)  # tensor([2.])
