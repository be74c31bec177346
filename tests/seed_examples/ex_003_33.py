# 不使用autograd，手动计算梯度
# f(x, y) = (x² + y²) * (x + y)

x = 2.0
y = 3.0

# TODO: 计算 ∂f/∂x 和 ∂f/∂y
