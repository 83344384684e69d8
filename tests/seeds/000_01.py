import torch
# 创建张量并设置requires_grad=True来追踪其计算历史
x = torch.ones(2, 2, requires_grad=True)
print(x)
