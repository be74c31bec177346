# ReLU: ∂ReLU(x)/∂x = x > 0 ? 1 : 0
class ReLUBackward(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)
    
    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * (x > 0).float()

# Sigmoid: ∂σ(x)/∂x = σ(x) * (1 - σ(x))
class SigmoidBackward(Function):
    @staticmethod
    def forward(ctx, x):
        result = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(result)
        return result
    
    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * result * (1 - result)

# Tanh: ∂tanh(x)/∂x = 1 - tanh²(x)
class TanhBackward(Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.tanh(x)
        ctx.save_for_backward(result)
        return result
    
    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * (1 - result ** 2)
