"""Differential fuzz of views and in-place ops against torch (issue 11, part 6).

hypothesis draws programs: a base (a leaf's clone, a non-leaf view of a leaf, a plain tensor,
the leaf itself, or a leaf that is a view), a chain of views of views (slices with steps,
select, diagonal, T/mT, view/reshape, expand, unfold, as_strided, narrow, split/chunk/unbind
outputs, permute, squeeze/unsqueeze, views made under no_grad), in-place ops on random members
(add_, mul_, copy_, setitem with tensors requiring grad, zero_, fill_, clamp_,
F.relu(inplace=True), t_, mul_ under no_grad), then a loss over random members and backward.
A step's arguments are drawn as raw integers and read against the member's shape at run time,
so both libraries run the same program. torch decides: where it raises, the same exception
class and text (and the program stops there); otherwise the same values, grad_fn names,
_version, requires_grad and is_leaf of every member after every write, and the same
gradients of every leaf at the end.

Budget: the "ci" profile (tests/conftest.py, max_examples=60) runs EXAMPLES_PER_PROFILE = 300
programs, about 15 s; HYPOTHESIS_PROFILE=long runs 10,000 for bug hunts.
"""
import math
import re
import warnings

import pytest

hypothesis = pytest.importorskip("hypothesis")
torch = pytest.importorskip("torch")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import tapegrad  # noqa: E402

EXAMPLES_PER_PROFILE = settings().max_examples * 5

# Where tapegrad knowingly answers otherwise than torch: a pattern of the error texts that
# differ, what both sides' texts become before they are compared, and why.
KNOWN_DIFFERENCES = (
    (r"which is output \d+ of \w+, is at version", "which is output of <node>, is at version",
     "the saved output of an in-place op on a view that a later write invalidates: torch names "
     "the view's regenerated node (AsStrided) while the view lives and its node was read, else "
     "the op's node (Relu); tapegrad names the op's node"),
)

VIEWS = ("slice", "select", "diagonal", "transpose", "reshape", "expand", "unfold",
         "as_strided", "narrow", "split", "unbind", "permute", "squeeze", "unsqueeze",
         "no_grad_view")
WRITES = ("add_", "mul_", "copy_", "setitem", "zero_", "fill_", "clamp_", "relu_", "t_",
          "no_grad_mul_")
# weighted: writes into views of a leaf mostly end in torch's refusal at once
BASES = ("leaf_clone", "leaf_clone", "non_leaf", "non_leaf", "plain", "leaf", "leaf_view")


def programs():
    raw = st.lists(st.integers(0, 2 ** 12), min_size=6, max_size=6)
    step = st.tuples(st.sampled_from(VIEWS + WRITES), st.integers(0, 2 ** 12), raw)
    return st.tuples(st.sampled_from(BASES), st.lists(st.integers(1, 4), min_size=1,
                                                      max_size=3),
                     st.lists(step, min_size=1, max_size=12), st.integers(0, 2 ** 12))


# ---- running a program ---------------------------------------------------------------------

class Run:
    """One program on one library: the members (base and views), the leaves, what was seen."""

    def __init__(self, lib, base_kind, shape):
        self.lib, self.seen, self.leaves = lib, [], []
        numel = math.prod(shape)
        self.numel = numel
        values = [(-1.0) ** k * (k % 5 + 1) for k in range(numel)]
        plain = lib.tensor(values, dtype=lib.float64).view(shape)
        x = plain.clone().requires_grad_()
        self.leaves.append(x)
        base = {"leaf_clone": lambda: x.clone(), "non_leaf": lambda: (x * 2).view(-1),
                "plain": lambda: plain, "leaf": lambda: x,
                "leaf_view": lambda: self.leaves.append(plain.requires_grad_()) or plain,
                }[base_kind]()
        self.members = [base]

    def leaf(self, shape, seed):
        """A new leaf requiring grad, of small integer values (exact arithmetic)."""
        n = math.prod(shape)
        values = [float((seed + 3 * k) % 7 - 3) for k in range(n)]
        leaf = self.lib.tensor(values, dtype=self.lib.float64).view(shape).requires_grad_()
        self.leaves.append(leaf)
        return leaf

    def observe(self, tensor):
        node = tensor.grad_fn
        return (list(tensor.shape), tensor.tolist(), node and type(node).__name__,
                tensor._version, tensor.requires_grad, tensor.is_leaf)

    def step(self, kind, which, raw):
        member = self.members[which % len(self.members)]
        if kind in VIEWS:
            view = make_view(self.lib, kind, member, raw, self.numel)
            if view is not None:
                self.members.append(view)
                self.seen.append((kind, self.observe(view)))
        else:
            write(self, kind, member, raw)
            self.seen.append((kind, [self.observe(m) for m in self.members]))

    def finish(self, seed):
        """A loss over some members, backward, and every leaf's gradient."""
        lib = self.lib
        chosen = [m for k, m in enumerate(self.members) if (seed >> k) & 1] or self.members[-1:]
        total = 0
        for k, member in enumerate(chosen):
            weights = lib.arange(1.0, member.numel() + 1, dtype=lib.float64).view(member.shape)
            total = total + (member * (weights + k)).sum()
        if isinstance(total, lib.Tensor) and total.requires_grad:
            total.backward()
        self.seen.append(("loss", float(total)))
        self.seen.append(("grads", [None if t.grad is None else t.grad.tolist()
                                    for t in self.leaves]))


def pick(raw, n):
    return raw % n if n else 0


def make_view(lib, kind, m, raw, numel):
    """The view `kind` of m, its arguments read from raw; None when m's shape allows none."""
    shape, ndim = list(m.shape), m.ndim
    d = pick(raw[0], ndim)
    size = shape[d] if ndim else 0
    if kind == "slice" and ndim and size:
        start, stop = pick(raw[1], size), pick(raw[2], size + 1)
        return m[(slice(None),) * d + (slice(start, max(start, stop), 1 + raw[3] % 3),)]
    if kind == "select" and ndim and size:
        return m.select(d, pick(raw[1], size) - (raw[2] % 2) * size)
    if kind == "diagonal" and ndim >= 2:
        d2 = (d + 1 + pick(raw[1], ndim - 1)) % ndim
        return m.diagonal(raw[2] % 3 - 1, d, d2)
    if kind == "transpose":
        return m.T if ndim <= 2 else m.mT
    if kind == "reshape":
        flat = [m.numel()] if raw[1] % 2 or not m.numel() else [-1, shape[-1]]
        return m.view(flat) if m.is_contiguous() else m.reshape(flat)
    if kind == "expand":
        ones = [k for k, n in enumerate(shape) if n == 1]
        if ones and raw[1] % 2:
            shape[ones[pick(raw[2], len(ones))]] = 2 + raw[3] % 2
            return m.expand(shape)
        return m.expand([2] + shape)
    if kind == "unfold" and ndim and size:
        return m.unfold(d, 1 + pick(raw[1], size), 1 + raw[2] % 3)
    if kind == "as_strided":
        return strided_view(m, raw, numel)
    if kind == "narrow" and ndim and size:
        start = pick(raw[1], size)
        return m.narrow(d, start, pick(raw[2], size - start + 1))
    if kind == "split" and ndim and size:
        parts = (m.split(1 + pick(raw[1], size), d) if raw[2] % 2
                 else m.chunk(1 + pick(raw[1], size), d))
        return parts[pick(raw[3], len(parts))]
    if kind == "unbind" and ndim and size:
        return m.unbind(d)[pick(raw[1], size)]
    if kind == "permute" and ndim:
        order = sorted(range(ndim), key=lambda k: (raw[1] * (k + 7) * 31) % 97)
        return m.permute(order)
    if kind == "squeeze" and ndim:
        return m.squeeze(d) if raw[1] % 2 else m.squeeze()
    if kind == "unsqueeze":
        return m.unsqueeze(pick(raw[1], ndim + 1))
    if kind == "no_grad_view":
        with lib.no_grad():
            return m[1:] if ndim and size else m.view(shape)
    return None


def strided_view(m, raw, numel):
    """An as_strided view inside the base's storage (its elements may overlap)."""
    sizes = [1 + raw[1] % 3, 1 + raw[2] % 3][:1 + raw[0] % 2]
    strides = [raw[3] % 4, 1 + raw[4] % 2][:len(sizes)]
    reach = sum((n - 1) * s for n, s in zip(sizes, strides))
    if reach >= numel:
        return None
    return m.as_strided(sizes, strides, pick(raw[5], numel - reach))


def write(run, kind, m, raw):
    lib, shape = run.lib, list(m.shape)
    if kind == "add_":
        m.add_(run.leaf(shape, raw[1]) if raw[0] % 2 else 2.0)
    elif kind == "mul_":
        m.mul_(run.leaf(shape[-1:] if shape else [], raw[1]) if raw[0] % 2 else -3.0)
    elif kind == "copy_":
        m.copy_(run.leaf(shape, raw[1]) * 1 if raw[0] % 2 else lib.ones(shape[-1:] or [],
                                                                         dtype=lib.float64))
    elif kind == "setitem":
        if not m.ndim or not shape[0]:
            m[...] = run.leaf([], raw[1])
        elif raw[0] % 2:
            m[pick(raw[2], shape[0])] = run.leaf(shape[1:], raw[1])
        else:
            m[pick(raw[2], shape[0]):] = float(raw[1] % 5 - 2)
    elif kind == "zero_":
        m.zero_()
    elif kind == "fill_":
        m.fill_(run.leaf([], raw[1]) if raw[0] % 2 else 1.5)
    elif kind == "clamp_":
        m.clamp_(-1.0 - raw[1] % 3, 1.0 + raw[2] % 3)
    elif kind == "relu_":
        lib.nn.functional.relu(m, inplace=True)
    elif kind == "t_" and m.ndim <= 2:
        m.t_()
    elif kind == "no_grad_mul_":  # as an optimizer's step
        with lib.no_grad():
            m.mul_(2.0)


def outcome(lib, program):
    """What one library shows of the program: observations, then an error if one ended it."""
    base_kind, shape, steps, seed = program
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            run = Run(lib, base_kind, shape)
        except Exception as error:  # noqa: BLE001 (torch decides which errors are right)
            return [("error", type(error).__name__, str(error))]
        try:
            for kind, which, raw in steps:
                run.step(kind, which, raw)
            run.finish(seed)
        except Exception as error:  # noqa: BLE001
            run.seen.append(("error", type(error).__name__, str(error)))
    return run.seen


def close(a, b):
    """Equal structures, floats to 1e-9 relative (summation order), NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or math.isnan(a) and math.isnan(b) or math.isclose(a, b, rel_tol=1e-9,
                                                                        abs_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return a == b


def first_difference(ours, theirs):
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if not close(a, b):
            return k, a, b
    return len(ours), ours[len(theirs):], theirs[len(ours):]


def normalized(seen):
    """seen with the error texts of KNOWN_DIFFERENCES made alike."""
    def text(entry):
        if isinstance(entry, tuple) and entry and entry[0] == "error":
            message = entry[2]
            for pattern, replacement, _ in KNOWN_DIFFERENCES:
                message = re.sub(pattern, replacement, message)
            return entry[:2] + (message,)
        return entry
    return [text(entry) for entry in seen]


@settings(max_examples=EXAMPLES_PER_PROFILE)
@given(programs())
def test_views_and_in_place_ops_astorch(program):
    ours, theirs = normalized(outcome(tapegrad, program)), normalized(outcome(torch, program))
    if not close(ours, theirs):
        pytest.fail(f"step {first_difference(ours, theirs)} differs for {program}")
