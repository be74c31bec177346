# 错误：推理时仍构建计算图
def inference(model, x):
    return model(x)  # 浪费内存和时间

# 正确：禁用梯度
def inference(model, x):
    with torch.no_grad():
        return model(x)

# 更快：推理模式
def inference(model, x):
    with torch.inference_mode():
        return model(x)
