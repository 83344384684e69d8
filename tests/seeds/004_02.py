x = torch.randn(3,4,requires_grad=True)
print(f"x:{x}")
