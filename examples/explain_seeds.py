# %% [markdown]
# # The seed tutorials' autograd examples, printed, drawn and explained
#
# The three tutorials tapegrad grew from work out gradients by hand: they follow `grad_fn` and
# `next_functions`, apply the chain rule node by node and write down Jacobians. This script
# runs their examples and lets tapegrad show the same work:
#
# * `tapegrad.viz.text(t)` prints the backward graph as a tree;
# * `tapegrad.explain.backward(t)` runs the backward pass and reports every step: the gradient
#   each node received, its local derivative and what it sent to each input;
# * `tapegrad.viz.draw(t)` draws the graph with Graphviz (`pip install tapegrad[viz]`).
#
# Run it as a script (`python examples/explain_seeds.py`) or cell by cell in an editor that
# understands `# %%` cells (VS Code, Spyder, Jupytext).

# %%
import importlib.util
import os
import shutil
import tempfile

import tapegrad as torch
from tapegrad import explain, viz

CAN_DRAW = importlib.util.find_spec("graphviz") is not None  # draw() needs the package


def section(title):
    print(f"\n{'=' * 10} {title} {'=' * 10}\n")


# %% [markdown]
# ## 1. `out = mean(3 * (x + 2)^2)` (first and second tutorial)
# The tutorials compute d(out)/dx = 3 * 2 * (x + 2) / 4 = 4.5 by hand. The tree shows the
# graph they walk: `y * y` uses the same `AddBackward0` twice, so its second appearance
# points back to the first instead of repeating it.

# %%
section("1. y = x + 2, z = y * y * 3, out = z.mean()")
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
print(viz.text(out, params={"x": x}))
print()
print(explain.backward(out, params={"x": x}))

# %% [markdown]
# ## 2. Gradients accumulate (third tutorial, `y = x6 + 2 * x7`)
# Calling backward twice adds into `.grad`; the report shows what each leaf held before.

# %%
section("2. y = x6 + 2 * x7, backward twice")
x6 = torch.tensor(1.0, requires_grad=True)
x7 = torch.tensor(2.0, requires_grad=True)
(x6 + 2 * x7).backward()
report = explain.backward(x6 + 2 * x7, params={"x6": x6, "x7": x7})
print(report.table())
print()
for leaf in report.leaves:
    print(f"{leaf.name}.grad: {leaf.before.item()} before, {leaf.grad.item()} after")

# %% [markdown]
# ## 3. A non-scalar output needs a vector: backward(v) computes v^T J
# (first tutorial, `z = x ** 2 + y ** 3`). With `jacobian=True` the report also builds the
# full Jacobian of z with respect to each leaf and checks that J^T v is what backward gave.

# %%
section("3. z = x ** 2 + y ** 3, backward(ones)")
x = torch.eye(2, 2, requires_grad=True)
y = torch.ones(2, 2, requires_grad=True)
z = x ** 2 + y ** 3
report = explain.backward(z, torch.ones_like(x), jacobian=True, params={"x": x, "y": y})
for check in report.jacobians:
    print(f"J^T v for {check.title}: "
          f"{check.vjp.tolist()}, backward gave {check.backward.tolist()}: "
          f"{'equal' if check.ok else 'DIFFERENT'}")

# %% [markdown]
# ## 4. The doubling loop: a chain of MulBackward0 nodes (first and third tutorial)
# Each step multiplies the incoming gradient by 2, so x.grad = 2^k * v.

# %%
section("4. y = x * 2, doubled while ||y|| < 1000, backward(v)")
x = torch.tensor([0.6344, 0.8409, 2.2294], requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(viz.text(y, params={"x": x}))
v = torch.tensor([1, 0.1, 0.01])
report = explain.backward(y, v, params={"x": x}, jacobian=True)
print()
print(report.table())
print("\nx.grad =", x.grad)

# %% [markdown]
# ## 5. Matrix product and sum of squares (second tutorial)

# %%
section("5. z = x @ (x + 2), then b = (a * a).sum()")
x = torch.ones(2, 2, requires_grad=True)
z = x @ (x + 2)
print(viz.text(z, params={"x": x}))
print()
print(explain.backward(z, torch.ones(2, 2), params={"x": x}).table())
a = torch.tensor([[0.5, -1.5], [2.0, 3.0]], requires_grad=True)
print()
print(explain.backward((a * a).sum(), params={"a": a}).table())

# %% [markdown]
# ## 6. Writing into a tensor: CopySlices (third tutorial)
# `y[i] = ...` on a tensor that is part of a graph rebases y's history: each write adds a
# CopySlices node, which sends the written element's gradient to the expression that was
# written and the rest to the tensor's older history. The tutorial's hand computation gives
# x1.grad = 1.1, x2.grad = 1.4, x3.grad = 1.0 for v = [0.1, 0.2, 0.3].

# %%
section("6. y[0] = x1 * x2 * x3, y[1] = x1 + x2 + x3, y[2] = x1 + x2 * x3")
x1 = torch.tensor(1, requires_grad=True, dtype=torch.float)
x2 = torch.tensor(2, requires_grad=True, dtype=torch.float)
x3 = torch.tensor(3, requires_grad=True, dtype=torch.float)
y = torch.randn(3)
y[0] = x1 * x2 * x3
y[1] = x1 + x2 + x3
y[2] = x1 + x2 * x3
names = {"x1": x1, "x2": x2, "x3": x3, "y": y}
print(viz.text(y, params=names))
if CAN_DRAW:
    drawing = viz.draw(y, params=names)  # in Jupyter, a cell ending in `drawing` shows it
    print("\nDOT source of the drawing:\n" + drawing.source)
    if shutil.which("dot"):
        path = os.path.join(tempfile.gettempdir(), "copyslices")
        print("rendered to", drawing.render(path, format="svg", cleanup=True))
report = explain.backward(y, torch.tensor([0.1, 0.2, 0.3]), params=names)
print()
print(report)

# %% [markdown]
# ## 7. `y = x * x` with a vector (third tutorial): the same as y.sum().backward()

# %%
section("7. y = x * x, backward(ones)")
x = torch.tensor([0., 1., 2., 3.], requires_grad=True)
report = explain.backward(x * x, torch.ones(len(x)), params={"x": x}, jacobian=True)
print(report.table())
print("\nx.grad =", x.grad, "; J^T v check:", report.jacobians[0].ok)
