print(f"x.requires_grad:{x.requires_grad}")
print(f"(x ** 2).requires_grad:{(x ** 2).requires_grad}")
with torch.no_grad():
    print(f"(x ** 2).requires_grad:{(x ** 2).requires_grad}")
