# 加法：∂(x+y)/∂x = 1, ∂(x+y)/∂y = 1
class AddBackward(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y
    
    @staticmethod
    def backward(ctx, grad):
        return grad, grad

# 乘法：∂(x*y)/∂x = y, ∂(x*y)/∂y = x
class MulBackward(Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y
    
    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * y, grad * x

# 幂：∂(x^n)/∂x = n * x^(n-1)
class PowBackward(Function):
    @staticmethod
    def forward(ctx, x, n):
        ctx.save_for_backward(x)
        ctx.n = n
        return x ** n
    
    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * ctx.n * x ** (ctx.n - 1), None
