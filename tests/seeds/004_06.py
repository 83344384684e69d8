a = torch.randn(2, 2) # 缺失情况下默认 requires_grad = False
a = ((a * 3) / (a - 1))
print(f"a.requires_grad:{a.requires_grad}")
a.requires_grad_(True)
print(f"a.requires_grad:{a.requires_grad}")
b = (a * a).sum()
print(f"b.grad_fn:{b.grad_fn}")
