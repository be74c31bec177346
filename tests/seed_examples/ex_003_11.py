# 计算二阶导数
x = torch.tensor([1.0], requires_grad=True)
y = x ** 3

# 一阶导数
grad_y = torch.autograd.grad(
    y, x, 
    create_graph=True  # 创建新的计算图
)[0]
print(grad_y)  # tensor([3.])，因为 ∂(x³)/∂x = 3x² = 3*1² = 3

# 二阶导数
grad2_y = torch.autograd.grad(grad_y, x)[0]
print(grad2_y)  # tensor([6.])，因为 ∂²(x³)/∂x² = 6x = 6*1 = 6
