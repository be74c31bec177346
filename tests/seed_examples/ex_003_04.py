x = torch.tensor([1.0], requires_grad=True)
y = x + 2
x.add_(1)  # 就地修改x
y.backward()  # 错误！x已被修改
