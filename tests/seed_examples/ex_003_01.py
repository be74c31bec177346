# 现代写法（Variable已不需要）
x = torch.tensor([1.0], requires_grad=True)  # 直接用Tensor

# 旧写法（已废弃）
# from torch.autograd import Variable
# x = Variable(torch.tensor([1.0]), requires_grad=True)
