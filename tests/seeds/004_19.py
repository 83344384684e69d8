y = x6 + 2*x7
y.backward()
print(f"x6.grad.data:{x6.grad.data}")
print(f"x7.grad.data:{x7.grad.data}")
