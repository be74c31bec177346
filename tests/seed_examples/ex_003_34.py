# f = (x² + y²)(x + y)
# ∂f/∂x = 2x(x+y) + (x²+y²)
# ∂f/∂y = 2y(x+y) + (x²+y²)

x, y = 2.0, 3.0
f = (x**2 + y**2) * (x + y)
df_dx = 2*x*(x+y) + (x**2 + y**2)
df_dy = 2*y*(x+y) + (x**2 + y**2)

print(f"f = {f}")        # 65.0
print(f"∂f/∂x = {df_dx}")  # 33.0
print(f"∂f/∂y = {df_dy}")  # 43.0

# 验证
x_t = torch.tensor([2.0], requires_grad=True)
y_t = torch.tensor([3.0], requires_grad=True)
f_t = (x_t**2 + y_t**2) * (x_t + y_t)
f_t.backward()
print(f"PyTorch: ∂f/∂x = {x_t.grad.item()}")  # 33.0
print(f"PyTorch: ∂f/∂y = {y_t.grad.item()}")  # 43.0
