import torch
x = torch.randn(3,3,requires_grad=True)
print(f"x.grad_fn:{x.grad_fn}")
