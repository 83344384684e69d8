print(f"x6.grad.data:{x6.grad.data}")
print(f"x7.grad.data:{x7.grad.data}")
print(f"y.grad.data:{y.grad.data}")
