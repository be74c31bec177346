class Softmax(Function):
    @staticmethod
    def forward(ctx, x):
        exp_x = torch.exp(x - x.max())  # 数值稳定
        softmax = exp_x / exp_x.sum()
        ctx.save_for_backward(softmax)
        return softmax
    
    @staticmethod
    def backward(ctx, grad_output):
        softmax, = ctx.saved_tensors
        # Jacobian: ∂s_i/∂x_j = s_i(δ_ij - s_j)
        # grad = Σ_j (∂s_j/∂x_i) · grad_j
        #      = Σ_j s_j(δ_ji - s_i) · grad_j
        #      = s_i · grad_i - s_i · Σ_j(s_j · grad_j)
        return softmax * (grad_output - (softmax * grad_output).sum())

# 测试
softmax = Softmax.apply
x = torch.randn(5, requires_grad=True)
y = softmax(x)
y.sum().backward()
print(x.grad)

# 验证
x2 = x.detach().clone().requires_grad_()
y2 = torch.softmax(x2, dim=0)
y2.sum().backward()
print(x2.grad)
print(torch.allclose(x.grad, x2.grad))  # True
