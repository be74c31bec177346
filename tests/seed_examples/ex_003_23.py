# 矩阵乘法：∂(AB)/∂A = grad·Bᵀ, ∂(AB)/∂B = Aᵀ·grad
class MatmulBackward(Function):
    @staticmethod
    def forward(ctx, A, B):
        ctx.save_for_backward(A, B)
        return A @ B
    
    @staticmethod
    def backward(ctx, grad):
        A, B = ctx.saved_tensors
        grad_A = grad @ B.t()
        grad_B = A.t() @ grad
        return grad_A, grad_B

# 转置：∂(Aᵀ)/∂A = gradᵀ
class TransposeBackward(Function):
    @staticmethod
    def forward(ctx, x):
        return x.t()
    
    @staticmethod
    def backward(ctx, grad):
        return grad.t()
