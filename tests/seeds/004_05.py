z = y * y * 3
out = z.mean() #求平均值
print(f"z.grad_fn:{z.grad_fn}")
print(f"z:{z}")
print(f"out:{out}")
