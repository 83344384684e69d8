print(f"x.grad:{x.grad}")
