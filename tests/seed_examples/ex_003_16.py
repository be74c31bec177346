class AddMul(Function):
    @staticmethod
    def forward(ctx, x, y, z):
        # 计算 (x + y) * z
        ctx.save_for_backward(x, y, z)
        return (x + y) * z
    
    @staticmethod
    def backward(ctx, grad_output):
        x, y, z = ctx.saved_tensors
        # ∂((x+y)*z)/∂x = z
        # ∂((x+y)*z)/∂y = z
        # ∂((x+y)*z)/∂z = x + y
        return grad_output * z, grad_output * z, grad_output * (x + y)

# 使用
add_mul = AddMul.apply
x = torch.tensor([1.0], requires_grad=True)
y = torch.tensor([2.0], requires_grad=True)
z = torch.tensor([3.0], requires_grad=True)
w = add_mul(x, y, z)
w.backward()
print(x.grad)  # tensor([3.])
print(y.grad)  # tensor([3.])
print(z.grad)  # tensor([3.])
