"""Walk through the autograd tutorial with tapegrad: build a graph, print it, backpropagate.

Run: python examples/seed_walkthrough.py
Every line below is ordinary PyTorch code; only the import differs.
"""
import tapegrad as torch


def show_graph(tensor, indent=""):
    """Print the backward graph under tensor.grad_fn by following next_functions."""
    def walk(node, depth):
        if node is None:
            return
        label = node.name()
        if label == "AccumulateGrad":
            label += f"  (leaf of shape {tuple(node.variable.shape)})"
        print(f"{indent}{'  ' * depth}{label}")
        for next_node, _ in node.next_functions:
            walk(next_node, depth + 1)
    walk(tensor.grad_fn, 0)


def section(title):
    print(f"\n=== {title} ===")


section("1. a leaf that requires grad, and the ops recorded on it")
x = torch.ones(2, 2, requires_grad=True)
print(x)
y = x + 2
z = y * y * 3
out = z.mean()
print(z, out, sep="\n")
print("the graph of out, newest node first:")
show_graph(out)

section("2. backward() fills x.grad = d(out)/dx = 3 * 2 * (x + 2) / 4")
out.backward()
print(x.grad)

section("3. gradients accumulate until you clear them")
(x * 2).sum().backward()
print(x.grad)
x.grad.zero_()
print(x.grad)

section("4. a non-scalar output needs a vector: backward(v) gives v^T J")
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
v = torch.tensor([0.1, 1.0, 0.01])
y.backward(v)
print("x.grad =", x.grad, " (= 2 * x * v)")

section("5. writing into a tensor records CopySlices, as in the third tutorial")
x1 = torch.tensor(1.0, requires_grad=True)
x2 = torch.tensor(2.0, requires_grad=True)
x3 = torch.tensor(3.0, requires_grad=True)
y = torch.zeros(3)
y[0] = x1 * x2 * x3
y[1] = x1 + x2 + x3
y[2] = x1 + x2 * x3
print(y)
show_graph(y)
y.backward(torch.tensor([0.1, 0.2, 0.3]))
print("grads:", x1.grad.item(), x2.grad.item(), x3.grad.item(), "(expected 1.1, 1.4, 1.0)")

section("6. no_grad, detach and .data step outside the graph")
with torch.no_grad():
    print("inside no_grad:", (x1 * 2).requires_grad)
print("detach():", (x1 * 2).detach().requires_grad)
