import torch
x1 = torch.tensor(1, requires_grad=True, dtype=torch.float)
x2 = torch.tensor(2, requires_grad=True, dtype=torch.float)
x3 = torch.tensor(3, requires_grad=True, dtype=torch.float)
x = torch.tensor([x1, x2, x3])
y = torch.randn(3)
print(f"y:{y}")
y[0] = x1 * x2 * x3
y[1] = x1 + x2 + x3
y[2] = x1 + x2 * x3
print(f"y:{y}")
y.backward(torch.tensor([0.1, 0.2, 0.3], dtype=torch.float))
print(f"x1.grad:{x1.grad}")
print(f"x2.grad:{x2.grad}")
print(f"x3.grad:{x3.grad}")
