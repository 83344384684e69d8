x1 = torch.ones(2,2,requires_grad=True)
z1 = 3 * (x1 + 2) * (x1 + 2)
out = z1.mean()
# z1 = 3(x1+2)^2, out = mean(z1)
print("x1 = ", x1)
print("z1 = ", z1)
# out是一个标量(scalar)，out.backward()相当于out.backward(torch,tensor(1))
out.backward()
# x.grad 梯度d(out)/dx
print(x1.grad)
# 清零
x1.grad.data.zero_()
