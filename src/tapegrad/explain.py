"""Explain a backward pass step by step, the way the autograd tutorials work it out by hand.

`backward(out)` runs `out.backward()` for real, with a hook (torch's `Node.register_hook`) on
every node of the graph that records, in the order the engine runs the nodes, the gradient
the node received and the gradient it sent to each input. The hooks only read, so every
`.grad` ends up exactly as a plain backward leaves it. Nodes carry the titles of
`tapegrad.viz.text` ("MulBackward0 #2"), so the report and the tree can be read side by side.
Only torch's public graph API is used, so torch's own graphs can be explained as well
(all but jacobian=True, which computes with tapegrad).
"""
import dataclasses
import html
from typing import Any

import numpy as np

from . import viz

__all__ = ["JacobianCheck", "LeafGradient", "Report", "SentGradient", "Step", "backward"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _d(forward, *derivatives, note=None):
    """A rule given as local derivatives: shown as d(a*b)/da = b."""
    return forward, note, tuple(("d", text) for text in derivatives)


def _vjp(forward, *products, note=None):
    """A rule given as the vector-Jacobian product itself: shown as grad_a = grad @ b.T."""
    return forward, note, tuple(("vjp", text) for text in products)


# Node name -> (forward with inputs a, b, c in next_functions order, note, one rule per input;
# the last rule repeats for ops with any number of inputs). "{n}" is filled in with how many
# elements of the input each element of the output averages over.
RULES = {
    "AddBackward0": _d("a + b", "1", "1", note="add(a, b, alpha=k): b's derivative is k"),
    "SubBackward0": _d("a - b", "1", "-1", note="sub(a, b, alpha=k): b's derivative is -k"),
    "RsubBackward1": _d("c - a", "-1", note="c a number"),
    "MulBackward0": _d("a*b", "b", "a"),
    "DivBackward0": _d("a/b", "1/b", "-a/b^2"),
    "NegBackward0": _d("-a", "-1"),
    "PowBackward0": _d("a^p", "p * a^(p-1)", note="p a number"),
    "PowBackward1": _d("a^b", "b * a^(b-1)", "a^b * log(a)"),
    "PowBackward2": _d("c^a", "c^a * log(c)", note="c a number"),
    "ExpBackward0": _d("exp(a)", "exp(a)"),
    "Expm1Backward0": _d("exp(a) - 1", "exp(a)"),
    "LogBackward0": _d("log(a)", "1/a"),
    "Log1PBackward0": _d("log(1 + a)", "1/(1 + a)"),
    "SqrtBackward0": _d("sqrt(a)", "1/(2*sqrt(a))"),
    "RsqrtBackward0": _d("1/sqrt(a)", "-1/(2 * a^(3/2))"),
    "ReciprocalBackward0": _d("1/a", "-1/a^2"),
    "AbsBackward0": _d("|a|", "sign(a)"),
    "SinBackward0": _d("sin(a)", "cos(a)"),
    "CosBackward0": _d("cos(a)", "-sin(a)"),
    "TanBackward0": _d("tan(a)", "1 + tan(a)^2"),
    "TanhBackward0": _d("tanh(a)", "1 - tanh(a)^2"),
    "SigmoidBackward0": _d("sigmoid(a)", "sigmoid(a) * (1 - sigmoid(a))"),
    "ReluBackward0": _d("relu(a)", "1 where a > 0, else 0"),
    "LeakyReluBackward0": _d("leaky_relu(a)", "1 where a > 0, else negative_slope"),
    "ClampBackward1": _d("clamp(a, min, max)", "1 where min <= a <= max, else 0"),
    "SiluBackward0": _d("a * sigmoid(a)", "sigmoid(a) * (1 + a * (1 - sigmoid(a)))"),
    "GeluBackward0": _d("a * Phi(a)", "Phi(a) + a * phi(a)",
                        note="Phi, phi: the standard normal cdf and pdf"),
    "SoftplusBackward0": _d("log(1 + exp(beta*a)) / beta", "sigmoid(beta*a)"),
    "MaximumBackward0": _d("maximum(a, b)", "1 where a > b, 1/2 where equal, else 0",
                           "1 where b > a, 1/2 where equal, else 0"),
    "MinimumBackward0": _d("minimum(a, b)", "1 where a < b, 1/2 where equal, else 0",
                           "1 where b < a, 1/2 where equal, else 0"),
    "WhereBackward0": _d("where(condition, a, b)", "1 where condition, else 0",
                         "0 where condition, else 1"),
    "CloneBackward0": _d("clone(a)", "1"),
    "ToCopyBackward0": _d("a.to(dtype)", "1 (the gradient is cast back to a's dtype)"),
    "DotBackward0": _d("dot(a, b)", "b", "a"),
    "SumBackward0": _d("sum(a)", "1 for every element"),
    "SumBackward1": _d("sum(a, dim)", "1 for every element"),
    "MeanBackward0": _d("mean(a)", "1/n, n = {n}"),
    "MeanBackward1": _d("mean(a, dim)", "1/n, n = {n}"),
    "ProdBackward0": _d("prod(a)", "prod(a)/a, the product of the other elements"),
    "MaxBackward1": _d("max(a)", "1 at the maximum (shared evenly by ties), else 0"),
    "MaxBackward0": _d("max(a, dim)", "1 at the index max returned, else 0"),
    "MinBackward1": _d("min(a)", "1 at the minimum (shared evenly by ties), else 0"),
    "MinBackward0": _d("min(a, dim)", "1 at the index min returned, else 0"),
    "LinalgVectorNormBackward0": _d("||a||", "a/||a||", note="for the default 2-norm"),
    "MseLossBackward0": _d("mean((a - b)^2)", "2*(a - b)/n, n = {n}", "-2*(a - b)/n, n = {n}",
                           note="reduction='mean'"),
    "MmBackward0": _vjp("a @ b", "grad @ b.T", "a.T @ grad"),
    "MvBackward0": _vjp("a @ b, b a vector", "outer(grad, b)", "a.T @ grad"),
    "BmmBackward0": _vjp("a @ b, batched", "grad @ b.mT", "a.mT @ grad"),
    "AddmmBackward0": _vjp("a + b @ c", "grad, summed to a's shape", "grad @ c.T",
                           "b.T @ grad"),
    "TBackward0": _vjp("a.T", "grad.T"),
    "TransposeBackward0": _vjp("a.transpose(d0, d1)", "grad.transpose(d0, d1)"),
    "PermuteBackward0": _vjp("a.permute(dims)", "grad permuted back"),
    "ViewBackward0": _vjp("a.view(shape)", "grad viewed in a's shape"),
    "ReshapeAliasBackward0": _vjp("a.reshape(shape)", "grad reshaped to a's shape"),
    "UnsafeViewBackward0": _vjp("a.view(shape)", "grad viewed in a's shape"),
    "ExpandBackward0": _vjp("a.expand(shape)", "grad summed over the expanded dims"),
    "UnsqueezeBackward0": _vjp("a.unsqueeze(dim)", "grad.squeeze(dim)"),
    "SqueezeBackward0": _vjp("a.squeeze()", "grad reshaped to a's shape"),
    "SqueezeBackward1": _vjp("a.squeeze(dim)", "grad.unsqueeze(dim)"),
    "SelectBackward0": _vjp("a[i], one index", "zeros of a's shape, grad at [i]"),
    "SliceBackward0": _vjp("a[i:j]", "zeros of a's shape, grad in the slice"),
    "IndexBackward0": _vjp("a[index]", "zeros of a's shape, grad added at each index"),
    "CatBackward0": _vjp("cat([a, b, ...], dim)", "its piece of grad along dim"),
    "StackBackward0": _vjp("stack([a, b, ...], dim)", "its slice of grad along dim"),
    "UnbindBackward0": _vjp("a.unbind(dim)", "the pieces' grads stacked along dim"),
    "SplitBackward0": _vjp("a.split(size, dim)", "the pieces' grads concatenated along dim"),
    "SoftmaxBackward0": _vjp("s = softmax(a, dim)", "s * (grad - sum(grad * s, dim))"),
    "LogSoftmaxBackward0": _vjp("log_softmax(a, dim)", "grad - softmax(a) * sum(grad, dim)"),
    "CopySlices": _vjp("a with a region written in place (a[i] = b, or an in-place op on a "
                       "view of a)",
                       "grad outside the region; inside, the in-place op's derivative "
                       "(0 where a[i] = b overwrote a)",
                       "grad inside the region, through the in-place op"),
    "CopyBackwards": _vjp("a.copy_(b)", "0 (overwritten)", "grad, summed to b's shape"),
}


@dataclasses.dataclass
class SentGradient:
    """What one node sent to one of its inputs."""
    input: str  # the input's letter in the rule: "a", "b", ...
    target: str | None  # title of the node the gradient goes to; None: needs no gradient
    derivative: str | None  # e.g. "d(a*b)/da = b"; None for an input needing no gradient
    grad: object  # the tensor sent (summed to the input's shape), or None


@dataclasses.dataclass
class Step:
    """One node run by the engine, in execution order (number counts from 1)."""
    number: int
    title: str
    forward: str | None  # "out = a*b", or None for an op without a rule
    incoming: tuple[Any, ...]  # gradient of each of the node's outputs (None: zero)
    sent: list[SentGradient]  # a SentGradient per input, in next_functions order
    leaf: str | None = None  # for AccumulateGrad: the leaf's name or title
    node: object = dataclasses.field(default=None, repr=False)


@dataclasses.dataclass
class LeafGradient:
    """A leaf's .grad before and after the pass (before is None for a first backward)."""
    title: str
    name: str | None
    before: object
    grad: object


@dataclasses.dataclass
class JacobianCheck:
    """The Jacobian of the output with respect to one leaf, and J^T v against backward."""
    title: str
    jacobian: object  # shape output.shape + leaf.shape
    vjp: object  # J^T v, v the gradient backward started from
    backward: object  # what this backward pass added to the leaf's .grad
    max_abs_error: float
    ok: bool


@dataclasses.dataclass(repr=False)
class Report:
    """The record of one backward pass: str() (and print, and the prompt's display) is the
    step-by-step text, table() a table; Jupyter shows the text preformatted."""
    output: str
    gradient: object
    steps: list[Step]
    leaves: list[LeafGradient]
    jacobians: list[JacobianCheck]

    def __str__(self) -> str:
        lines = [f"Backward pass from {self.output}",
                 f"starting gradient: {_show(self.gradient, 19)}"]
        for step in self.steps:
            lines += [""] + _step_lines(step)
        lines += ["", "Each leaf's .grad after backward:"]
        for leaf in self.leaves:
            label = leaf.name or leaf.title
            lines.append(f"  {label}: {_show(leaf.grad, len(label) + 4)}")
            if leaf.before is not None:
                lines.append(f"    (it held {_show(leaf.before, 13)} before this pass: "
                             "gradients accumulate)")
        for check in self.jacobians:
            lines += [""] + _jacobian_lines(check)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return "<pre>" + html.escape(str(self)) + "</pre>"

    def table(self) -> str:
        """The steps as a text table, one row per (node, input); numbers on one line each."""
        header = ("step", "node", "incoming grad", "input", "local derivative", "grad sent")
        rows = []
        for step in self.steps:
            incoming = ", ".join(_compact(grad) for grad in step.incoming)
            if step.leaf is not None:
                rows.append((str(step.number), step.title, incoming, step.leaf,
                             f"{step.leaf}.grad += grad", ""))
            for sent in step.sent:
                rows.append((str(step.number), step.title, incoming,
                             f"{sent.input} = {sent.target or 'no grad needed'}",
                             sent.derivative or "", _compact(sent.grad)))
        widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
        lines = [" | ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
                 for row in (header, *rows)]
        lines.insert(1, "-+-".join("-" * w for w in widths))
        return "\n".join(lines)


def backward(output: Any, gradient: Any = None, retain_graph: bool | None = None,
             jacobian: bool = False, params: Any = None) -> Report:
    """Run output.backward(gradient) and return a Report of every step: print(report) (or
    display it at a prompt or in Jupyter) to read it, report.table() for one row per input.

    params names the leaves as in tapegrad.viz (a dict name -> tensor or a module).
    jacobian=True (for small tensors: one extra backward pass per output element) also
    computes the full Jacobian of the output with respect to each leaf from the recorded graph,
    one row per output element as autograd.functional.jacobian builds it, and checks that
    J^T v equals what backward added to the leaf's .grad. (autograd.functional.jacobian itself
    would need the function to run again; explain has only the graph it was given.)
    """
    names = viz.param_names(params)
    titles = _with_leaf_names(viz.node_titles(output), names)
    leaves = [(title, node.variable) for node, title in titles.items()
              if hasattr(node, "variable")]
    if output.grad_fn is None:  # backward on a leaf itself: no node runs
        leaves = [("output", output)]
    labels = [names.get(id(variable)) or title for title, variable in leaves]
    seed = _seed(output, gradient)
    matrices = _jacobians(output, [v for _, v in leaves]) if jacobian else []
    before = [_copy(variable.grad) for _, variable in leaves]
    records = _run_with_hooks(output, gradient, retain_graph, titles)
    steps = [_step(number, titles, names, *record) for number, record in enumerate(records, 1)]
    leaf_grads = [LeafGradient(title, names.get(id(variable)), old, _copy(variable.grad))
                  for (title, variable), old in zip(leaves, before)]
    checks = [_check(label, matrix, seed, leaf)
              for label, matrix, leaf in zip(labels, matrices, leaf_grads)]
    summary = viz.tensor_summary(output, names.get(id(output), "output"))
    start = titles.get(output.grad_fn, "a leaf")
    return Report(f"{start} ({summary})", seed, steps, leaf_grads, checks)


def _with_leaf_names(titles, names):
    """Titles with the leaf's name added to its AccumulateGrad: "AccumulateGrad #1 (x6)"."""
    named = {}
    for node, title in titles.items():
        name = names.get(id(getattr(node, "variable", None)))
        named[node] = f"{title} ({name})" if name else title
    return named


def _run_with_hooks(output, gradient, retain_graph, titles):
    """output.backward with a recording hook on every node; [(node, incoming, sent)]."""
    records = []
    handles = []

    def hook_for(node):
        def record(grad_inputs, grad_outputs):
            records.append((node, _copies(grad_outputs), _copies(grad_inputs)))
        return record
    try:
        for node in titles:
            handles.append(node.register_hook(hook_for(node)))
        output.backward(gradient, retain_graph=retain_graph)
    finally:
        for handle in handles:
            handle.remove()
    return records


def _step(number, titles, names, node, incoming, sent):
    title = titles[node]
    variable = getattr(node, "variable", None)
    if variable is not None:
        return Step(number, title, None, incoming, [], leaf=names.get(id(variable)) or title,
                    node=node)
    forward, note, rules = RULES.get(type(node).__name__, (None, None, ()))
    entries = []
    for i, (next_node, _) in enumerate(node.next_functions):
        letter = _LETTERS[i % len(_LETTERS)]
        if next_node is None:  # the engine delivers nothing along a (None, 0) edge
            entries.append(SentGradient(letter, None, None, None))
            continue
        grad = sent[i] if i < len(sent) else None
        derivative = _derivative(node, forward, rules, i, letter, incoming, grad)
        entries.append(SentGradient(letter, titles[next_node], derivative, grad))
    shown = None if forward is None else f"out = {forward}" + (f"  ({note})" if note else "")
    return Step(number, title, shown, incoming, entries, node=node)


def _derivative(node, forward, rules, i, letter, incoming, grad):
    if not rules:
        return f"vector-Jacobian product of {type(node).__name__}"
    kind, text = rules[min(i, len(rules) - 1)]
    if "{n}" in text:
        n = grad.numel() // max(incoming[0].numel(), 1) if grad is not None else "?"
        text = text.format(n=n)
    if kind == "d":
        return f"d({forward})/d{letter} = {text}"
    return f"grad_{letter} = {text}"


def _jacobians(output, variables):
    """For each leaf, the array J with J[i, ...] = d output.flatten()[i] / d leaf, from
    autograd.grad on the recorded graph with one-hot gradients (the graph is kept)."""
    import tapegrad
    size = output.numel()
    rows = [[] for _ in variables]
    for i in range(size):
        one_hot = np.zeros(size)
        one_hot[i] = 1
        seed = tapegrad.tensor(one_hot.reshape(tuple(output.shape)), dtype=output.dtype)
        grads = tapegrad.autograd.grad(output, variables, seed, retain_graph=True,
                                       allow_unused=True)
        for row, grad, variable in zip(rows, grads, variables):
            row.append(np.zeros(tuple(variable.shape)) if grad is None else grad.numpy())
    return [np.stack(row).reshape(tuple(output.shape) + tuple(variable.shape))
            for variable, row in zip(variables, rows)]


def _check(label, matrix, seed, leaf):
    """J^T v against the gradient this pass added to the leaf's .grad."""
    import tapegrad
    vector = seed.detach().numpy().astype(np.float64)
    vjp = np.tensordot(vector, matrix.astype(np.float64), axes=vector.ndim)
    added = leaf.grad.numpy().astype(np.float64)
    if leaf.before is not None:
        added = added - leaf.before.numpy()
    error = float(np.max(np.abs(vjp - added), initial=0.0))
    # backward sums in its own order and dtype; float64 agrees to rounding, float32 to ~1e-6
    rtol = 1e-10 if leaf.grad.dtype == tapegrad.float64 else 1e-5
    ok = bool(np.allclose(vjp, added, rtol=rtol,
                          atol=rtol * max(1.0, float(np.max(np.abs(vjp), initial=0.0)))))
    dtype = leaf.grad.dtype
    return JacobianCheck(label, tapegrad.tensor(matrix, dtype=dtype),
                         tapegrad.tensor(vjp, dtype=dtype), tapegrad.tensor(added, dtype=dtype),
                         error, ok)


def _seed(output, gradient):
    """The vector v backward starts from, checked before any work is done."""
    if gradient is not None:
        return _copy(gradient)
    if output.numel() != 1:  # backward's own error, raised before the Jacobian's passes
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    return output.detach().clone().fill_(1)


def _copies(grads):
    return tuple(_copy(grad) for grad in grads)


def _copy(tensor):
    return None if tensor is None else tensor.detach().clone()


def _step_lines(step):
    lines = [f"Step {step.number}: {step.title}" + (f"    {step.forward}" if step.forward else "")]
    if len(step.incoming) == 1:
        lines.append(f"  incoming grad: {_show(step.incoming[0], 17)}")
    else:
        for k, grad in enumerate(step.incoming):
            lines.append(f"  incoming grad of output {k}: {_show(grad, 29)}")
    if step.leaf is not None:
        lines.append(f"  {step.leaf}.grad += incoming grad")
    for sent in step.sent:
        if sent.target is None:
            lines.append(f"  {sent.input}: a constant or a tensor without requires_grad: "
                         "no gradient")
            continue
        lines.append(f"  {sent.input} = {sent.target}: {sent.derivative}")
        lines.append(f"    sends {_show(sent.grad, 10)}")
    return lines


def _jacobian_lines(check):
    verdict = "equal" if check.ok else "DIFFERENT"
    return [f"Jacobian of the output with respect to {check.title}, "
            f"shape {tuple(check.jacobian.shape)}:",
            "  " + _show(check.jacobian, 2),
            f"  J^T v = {_show(check.vjp, 10)}",
            f"  backward added {_show(check.backward, 17)}",
            f"  {verdict} (largest difference {check.max_abs_error:.3g})"]


def _show(tensor, indent):
    """The tensor's own printout, continuation lines indented to line up."""
    if tensor is None:
        return "None (zero)"
    first, *rest = str(tensor).split("\n")
    return "\n".join([first] + [" " * indent + line if line else "" for line in rest])


def _compact(tensor):
    if tensor is None:
        return "None"
    array = tensor.detach().numpy()
    text = np.array2string(array, separator=", ", threshold=8, edgeitems=2,
                           max_line_width=10 ** 6,
                           formatter={"float_kind": lambda value: f"{value:.4g}"})
    return " ".join(text.split())
