print(f"y.grad_fn:{y.grad_fn}")
