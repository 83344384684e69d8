print(f"x6.requires_grad:{x6.requires_grad}")
print(f"x7.requires_grad:{x7.requires_grad}")
print(f"y.requires_grad:{y.requires_grad}")
