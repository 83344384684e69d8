x = torch.randn(3, requires_grad=True)
print(f"x:{x}")
y = x * 2
i = 0
while y.data.norm() < 1000:
    y = y * 2
    i = i + 1
print(f"y:{y}")
print(f"i:{i}")
