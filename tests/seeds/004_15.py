import torch
x6 = torch.tensor(1.0, requires_grad=True)
x7 = torch.tensor(2.0, requires_grad=True)
y = x6 + 2*x7
print(f"y:{y}")
