# Sum：∂(Σx)/∂x = 1（广播）
class SumBackward(Function):
    @staticmethod
    def forward(ctx, x, dim=None, keepdim=False):
        ctx.shape = x.shape
        ctx.dim = dim
        ctx.keepdim = keepdim
        return x.sum(dim=dim, keepdim=keepdim)
    
    @staticmethod
    def backward(ctx, grad):
        # 梯度需要广播到原始形状
        if ctx.dim is None:
            return grad.expand(ctx.shape), None, None
        else:
            if not ctx.keepdim:
                grad = grad.unsqueeze(ctx.dim)
            return grad.expand(ctx.shape), None, None

# Mean：∂(mean(x))/∂x = 1/n
class MeanBackward(Function):
    @staticmethod
    def forward(ctx, x, dim=None, keepdim=False):
        ctx.shape = x.shape
        ctx.dim = dim
        ctx.keepdim = keepdim
        if dim is None:
            ctx.numel = x.numel()
        else:
            ctx.numel = x.shape[dim]
        return x.mean(dim=dim, keepdim=keepdim)
    
    @staticmethod
    def backward(ctx, grad):
        if ctx.dim is None:
            return (grad / ctx.numel).expand(ctx.shape), None, None
        else:
            if not ctx.keepdim:
                grad = grad.unsqueeze(ctx.dim)
            return (grad / ctx.numel).expand(ctx.shape), None, None
