# 问题：sigmoid饱和导致梯度消失
# sigmoid'(x) 在x很大或很小时接近0

# 解决方案1：使用ReLU
class DeepNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.Linear(100, 100) for _ in range(20)
        ])
    
    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))  # ReLU替代sigmoid
        return x

# 解决方案2：使用残差连接
class DeepNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.Linear(100, 100) for _ in range(20)
        ])
    
    def forward(self, x):
        for layer in self.layers:
            x = x + torch.sigmoid(layer(x))  # 残差连接
        return x

# 解决方案3：LayerNorm + 更好的初始化
class DeepNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.Sequential(
                nn.Linear(100, 100),
                nn.LayerNorm(100),
                nn.ReLU()
            ) for _ in range(20)
        ])
    
    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
