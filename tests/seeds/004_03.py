y = x**2
print(f"y:{y}")
