import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2 + 2
print(f"y:{y}")
z = torch.sum(y)
print(f"z:{z}")
z.backward()
print(f"x.grad:{x.grad}")
