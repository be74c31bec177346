class Quantize(Function):
    @staticmethod
    def forward(ctx, x, bits=8):
        # 量化（不可微）
        scale = (2 ** bits - 1) / (x.max() - x.min())
        quantized = torch.round((x - x.min()) * scale)
        ctx.save_for_backward(x)
        return quantized / scale + x.min()
    
    @staticmethod
    def backward(ctx, grad_output):
        # 使用直通估计器（Straight-Through Estimator）
        # 梯度直接传递，忽略量化
        return grad_output, None  # None表示bits没有梯度

# 使用
quantize = Quantize.apply
x = torch.randn(10, requires_grad=True)
y = quantize(x, 8)
y.sum().backward()
print(x.grad)  # 梯度全为1
