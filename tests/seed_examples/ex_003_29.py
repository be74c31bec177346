# 启用异常检测
torch.autograd.set_detect_anomaly(True)

try:
    x = torch.tensor([1.0], requires_grad=True)
    y = x ** 2
    z = 1 / (y - 1)  # 当y=1时除零
    z.backward()
except RuntimeError as e:
    print(e)  # 会显示出错的操作
