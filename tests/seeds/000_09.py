print(x.requires_grad)
print((x ** 2).requires_grad)
# 将变量包裹在with torch.no_grad()中，可以暂时屏蔽autograd计算
with torch.no_grad():
    print((x ** 2).requires_grad)
print((x ** 2).requires_grad)
