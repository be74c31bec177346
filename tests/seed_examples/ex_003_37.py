# 这个网络有梯度消失问题，找出原因并修复
class DeepNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.Linear(100, 100) for _ in range(20)
        ])
    
    def forward(self, x):
        for layer in self.layers:
            x = torch.sigmoid(layer(x))
        return x

# TODO: 分析梯度流，找出问题并修复
