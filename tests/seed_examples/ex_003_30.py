from torch.autograd import gradcheck

def my_func(x):
    return x ** 3

x = torch.randn(5, dtype=torch.double, requires_grad=True)
test = gradcheck(my_func, x, eps=1e-6, atol=1e-4)
print(test)  # True表示梯度正确
