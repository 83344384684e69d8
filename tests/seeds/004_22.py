import torch
x = torch.tensor([0., 1., 2., 3.], requires_grad=True)
y = x * x
# 等价于y.sum().backward()
y.backward(torch.ones(len(x)))
print(f"x.grad:{x.grad}")
