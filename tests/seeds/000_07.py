x = torch.eye(2, 2, requires_grad=True)
y = torch.ones(2, 2, requires_grad=True)
z = x ** 2 + y ** 3
print("z =", z)
# 由于返回值不是一个标量，因此需要输入一个大小相同的张量作为参数，
# 这里我们用ones_like函数根据x生成一个张量
gradient = torch.ones_like(x)
z.backward(gradient)
print("gradient =", gradient)
print("x.grad =", x.grad) # x.grad = (dz/dx) .* gradient 
print("y.grad =", y.grad) # y.grad = (dz/dy) .* gradient
