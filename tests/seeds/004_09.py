# 再来反向传播⼀一次，注意grad是累加的
out2 = x.sum()
out2.backward()
print(f"x.grad:{x.grad}")
out3 = x.sum()
x.grad.data.zero_()
out3.backward()
print(f"x.grad:{x.grad}")
