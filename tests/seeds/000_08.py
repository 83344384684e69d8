x = torch.randn(3, requires_grad=True)
y = x * 2
while y.data.norm() < 1000: # .data.norm() 张量L2范数
    y = y * 2
print("x =", x)
print("y =", y)
gradient = torch.tensor([1,0.1,0.01])
y.backward(gradient)
print("gradient =", gradient)
print("x.grad =", x.grad)
