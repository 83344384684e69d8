"""tapegrad.viz: the drawn graph (parsed from its DOT source) and the text tree of expressions
from the seed tutorials, against expected nodes and edges, golden text and torch's graphs."""
import html
import re
import shutil
import sys

import pytest

import tapegrad
from tapegrad import viz


def _torch():
    return pytest.importorskip("torch")


# ---- seed expressions: each builds (output, params, gradient) with either library ----------

def seed_mean(lib):
    """000/001: y = x + 2, z = y * y * 3, out = z.mean()."""
    x = lib.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    return z.mean(), {"x": x}, None


def seed_x1(lib):
    """000: z1 = 3 * (x1 + 2) * (x1 + 2), out = z1.mean()."""
    x1 = lib.ones(2, 2, requires_grad=True)
    z1 = 3 * (x1 + 2) * (x1 + 2)
    return z1.mean(), {"x1": x1}, None


def seed_pow(lib):
    """000: z = x ** 2 + y ** 3, backward with ones."""
    x = lib.eye(2, 2, requires_grad=True)
    y = lib.ones(2, 2, requires_grad=True)
    z = x ** 2 + y ** 3
    return z, {"x": x, "y": y}, lib.ones_like(x)


def seed_doubling(lib):
    """000/004: y = x * 2, doubled while its norm is under 1000, backward with a vector."""
    x = lib.tensor([0.6344, 0.8409, 2.2294], requires_grad=True)
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    return y, {"x": x}, lib.tensor([1, 0.1, 0.01])


def seed_matmul(lib):
    """001: z = x @ y with y = x + 2."""
    x = lib.ones(2, 2, requires_grad=True)
    y = x + 2
    return x @ y, {"x": x}, lib.ones(2, 2)


def seed_sum_of_squares(lib):
    """001/004: b = (a * a).sum()."""
    a = lib.tensor([[0.5, -1.5], [2.0, 3.0]], requires_grad=True)
    return (a * a).sum(), {"a": a}, None


def seed_square_plus_two(lib):
    """004: y = x ** 2 + 2, z = torch.sum(y)."""
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return lib.sum(x ** 2 + 2), {"x": x}, None


def seed_x6_x7(lib):
    """004: y = x6 + 2 * x7."""
    x6 = lib.tensor(1.0, requires_grad=True)
    x7 = lib.tensor(2.0, requires_grad=True)
    return x6 + 2 * x7, {"x6": x6, "x7": x7}, None


def seed_copyslices(lib):
    """004: y[0] = x1 * x2 * x3, y[1] = x1 + x2 + x3, y[2] = x1 + x2 * x3 (CopySlices)."""
    x1 = lib.tensor(1, requires_grad=True, dtype=lib.float)
    x2 = lib.tensor(2, requires_grad=True, dtype=lib.float)
    x3 = lib.tensor(3, requires_grad=True, dtype=lib.float)
    y = lib.zeros(3)
    y[0] = x1 * x2 * x3
    y[1] = x1 + x2 + x3
    y[2] = x1 + x2 * x3
    return y, {"x1": x1, "x2": x2, "x3": x3}, lib.tensor([0.1, 0.2, 0.3], dtype=lib.float)


def seed_x_times_x(lib):
    """004: y = x * x, backward with ones."""
    x = lib.tensor([0., 1., 2., 3.], requires_grad=True)
    return x * x, {"x": x}, lib.ones(4)


def seed_pow_mean(lib):
    """004: y = x ** 2, z = y * y * 3, out = z.mean() on a 3x4 x."""
    x = lib.tensor([[-0.0405, 2.1663, -1.0016, 2.3026], [0.5074, 1.2494, -1.0841, -1.3393],
                    [1.0113, 1.5474, 0.4087, 1.0646]], requires_grad=True)
    y = x ** 2
    z = y * y * 3
    return z.mean(), {"x": x}, None


SEEDS = [seed_mean, seed_x1, seed_pow, seed_doubling, seed_matmul, seed_sum_of_squares,
         seed_square_plus_two, seed_x6_x7, seed_copyslices, seed_x_times_x, seed_pow_mean]


# ---- DOT parsing ----------------------------------------------------------------------------

_NODE = re.compile(r'^\t(\w+) \[label=(?:"((?:[^"\\]|\\.)*)"|([^ \]]+))', re.M)
_EDGE = re.compile(r"^\t(\w+) -> (\w+)( \[[^\]]*dashed[^\]]*\])?$", re.M)


def _parse(source):
    """(sorted node labels, sorted (from label, to label) edges, dashed edges); a label's
    lines are joined with " | "."""
    labels = {}
    for node_id, quoted, bare in _NODE.findall(source):
        labels[node_id] = (quoted or bare).replace("\\n", " | ")
    edges, dashed = [], []
    for source_id, target_id, is_dashed in _EDGE.findall(source):
        (dashed if is_dashed else edges).append((labels[source_id], labels[target_id]))
    return sorted(labels.values()), sorted(edges), sorted(dashed)


def _drawn(build, lib=tapegrad, **options):
    pytest.importorskip("graphviz")
    output, params, _ = build(lib)
    options.setdefault("params", params)
    return _parse(viz.draw(output, **options).source)


# ---- draw: nodes and edges ------------------------------------------------------------------

def test_draw_mean_seed_has_expected_nodes_and_edges():
    nodes, edges, dashed = _drawn(seed_mean)
    assert nodes == ["AddBackward0", "MeanBackward0", "MulBackward0 #1", "MulBackward0 #2",
                     "output | shape (), float32", "x | shape (2, 2), float32"]
    assert edges == sorted([
        ("output | shape (), float32", "MeanBackward0"),
        ("MeanBackward0", "MulBackward0 #1"),
        ("MulBackward0 #1", "MulBackward0 #2"),
        ("MulBackward0 #2", "AddBackward0"),   # y * y: both inputs are the same y
        ("MulBackward0 #2", "AddBackward0"),
        ("AddBackward0", "x | shape (2, 2), float32"),
    ])
    assert dashed == []


def test_draw_copyslices_seed_has_expected_nodes_and_edges():
    nodes, edges, _ = _drawn(seed_copyslices)
    x1, x2, x3 = (f"x{i} | shape (), float32" for i in (1, 2, 3))
    assert nodes == sorted(["output | shape (3,), float32", "CopySlices #1", "CopySlices #2",
                            "CopySlices #3", "AddBackward0 #1", "AddBackward0 #2",
                            "AddBackward0 #3", "MulBackward0 #1", "MulBackward0 #2",
                            "MulBackward0 #3", x1, x2, x3])
    assert edges == sorted([
        ("output | shape (3,), float32", "CopySlices #1"),
        ("CopySlices #1", "CopySlices #2"), ("CopySlices #1", "AddBackward0 #3"),  # y[2] = ...
        ("CopySlices #2", "CopySlices #3"), ("CopySlices #2", "AddBackward0 #1"),  # y[1] = ...
        ("CopySlices #3", "MulBackward0 #1"),  # y[0] = ...; y itself needs no grad
        ("MulBackward0 #1", "MulBackward0 #2"), ("MulBackward0 #1", x3),
        ("MulBackward0 #2", x1), ("MulBackward0 #2", x2),
        ("AddBackward0 #1", "AddBackward0 #2"), ("AddBackward0 #1", x3),
        ("AddBackward0 #2", x1), ("AddBackward0 #2", x2),
        ("AddBackward0 #3", x1), ("AddBackward0 #3", "MulBackward0 #3"),
        ("MulBackward0 #3", x2), ("MulBackward0 #3", x3),
    ])


def test_draw_matmul_seed_has_mm_node_and_shared_leaf():
    nodes, edges, _ = _drawn(seed_matmul)
    leaf = "x | shape (2, 2), float32"
    assert nodes == sorted(["output | shape (2, 2), float32", "MmBackward0", "AddBackward0",
                            leaf])
    assert edges == sorted([("output | shape (2, 2), float32", "MmBackward0"),
                            ("MmBackward0", leaf), ("MmBackward0", "AddBackward0"),
                            ("AddBackward0", leaf)])


def test_draw_without_params_or_shapes_shows_titles_only():
    nodes, edges, _ = _drawn(seed_x6_x7, params=None, show_shapes=False)
    assert nodes == ["AccumulateGrad #1", "AccumulateGrad #2", "AddBackward0", "MulBackward0",
                     "output"]
    assert edges == sorted([("output", "AddBackward0"), ("AddBackward0", "AccumulateGrad #1"),
                            ("AddBackward0", "MulBackward0"),
                            ("MulBackward0", "AccumulateGrad #2")])


def test_draw_names_leaves_from_a_module_named_parameters():
    pytest.importorskip("graphviz")

    class TwoWeights:  # anything with named_parameters() names the leaves, as a Module does
        def __init__(self):
            self.weight = tapegrad.ones(2, 3, requires_grad=True)
            self.bias = tapegrad.zeros(2, requires_grad=True)

        def named_parameters(self):
            return iter([("weight", self.weight), ("bias", self.bias)])

    model = TwoWeights()
    out = (model.weight.sum(1) + model.bias).sum()
    nodes, _, _ = _parse(viz.draw(out, params=model).source)
    assert "weight | shape (2, 3), float32" in nodes
    assert "bias | shape (2,), float32" in nodes


def test_draw_several_outputs_and_a_leaf_output():
    pytest.importorskip("graphviz")
    x = tapegrad.ones(3, requires_grad=True)
    y = x * 2
    nodes, edges, _ = _parse(viz.draw([y, y.sum(), x], params={"x": x}).source)
    leaf = "x | shape (3,), float32"
    # the third output box is named x too (params), and points at x's AccumulateGrad
    assert nodes == sorted(["output 0 | shape (3,), float32", "output 1 | shape (), float32",
                            leaf, leaf, "MulBackward0", "SumBackward0"])
    assert edges == sorted([("output 0 | shape (3,), float32", "MulBackward0"),
                            ("output 1 | shape (), float32", "SumBackward0"),
                            ("SumBackward0", "MulBackward0"),
                            ("MulBackward0", leaf), (leaf, leaf)])


@pytest.mark.parametrize("build", SEEDS, ids=lambda build: build.__name__)
def test_draw_matches_torch_graph_dot_source(build):
    torch = _torch()
    pytest.importorskip("graphviz")
    ours, params, _ = build(tapegrad)
    theirs, torch_params, _ = build(torch)
    assert (viz.draw(ours, params=params).source
            == viz.draw(theirs, params=torch_params).source)


def test_draw_show_saved_on_torch_graph_adds_saved_tensors_and_values():
    torch = _torch()
    nodes, edges, dashed = _drawn(seed_mean, lib=torch, show_saved=True)
    assert "AddBackward0 | alpha = 1" in nodes
    assert "MeanBackward0 | self_sym_numel = 4 | self_sym_sizes = (2, 2)" in nodes
    assert sorted(dashed) == [("MulBackward0 #1 | self = None", "other | shape (), int64"),
                              ("MulBackward0 #2", "other | shape (2, 2), float32"),
                              ("MulBackward0 #2", "self | shape (2, 2), float32")]
    assert len(edges) == 6


class _Tensor:
    """The smallest thing viz reads as a tensor."""
    def __init__(self, shape, grad_fn=None):
        self.shape, self.dtype, self.grad_fn, self.requires_grad = shape, "float64", grad_fn, True


class _Leaf:
    next_functions = ()

    def __init__(self, variable):
        self.variable = variable


class MulBackward0:
    """A node exposing saved values the way torch's nodes do."""
    def __init__(self, a, b):
        self.next_functions = ((a, 0), (b, 0))
        self._saved_self = _Tensor((2,))
        self._saved_alpha = 2

    @property
    def _saved_other(self):
        raise RuntimeError("freed")


def test_draw_show_saved_reads_torch_style_saved_attributes():
    pytest.importorskip("graphviz")
    leaf = _Tensor((2,))
    out = _Tensor((2,), MulBackward0(_Leaf(leaf), None))
    nodes, edges, dashed = _parse(viz.draw(out, params={"w": leaf}, show_saved=True).source)
    assert "MulBackward0 | alpha = 2 | other = '(freed)'" in nodes
    assert dashed == [("MulBackward0 | alpha = 2 | other = '(freed)'",
                       "self | shape (2,), float64")]
    assert ("MulBackward0 | alpha = 2 | other = '(freed)'", "w | shape (2,), float64") in edges
    plain, _, no_dashed = _parse(viz.draw(out, params={"w": leaf}).source)
    assert "MulBackward0" in plain and no_dashed == []


def test_draw_show_saved_keeps_every_node_and_edge_of_a_tapegrad_graph():
    plain = _drawn(seed_copyslices)
    saved = _drawn(seed_copyslices, show_saved=True)
    first_lines = sorted(label.split(" | ")[0] for label in saved[0])
    assert set(label.split(" | ")[0] for label in plain[0]) <= set(first_lines)
    assert len(saved[1]) == len(plain[1])


def test_draw_escapes_quotes_and_backslashes_in_labels():
    pytest.importorskip("graphviz")
    x = tapegrad.ones(2, requires_grad=True)
    source = viz.draw(x * 2, params={'a "quoted" \\ name': x}).source
    assert '\\"quoted\\" \\\\ name' in source


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_draw_renders_copyslices_seed_to_svg(tmp_path):
    pytest.importorskip("graphviz")
    y, params, _ = seed_copyslices(tapegrad)
    path = viz.draw(y, params=params).render(tmp_path / "copyslices", format="svg")
    svg = open(path, encoding="utf-8").read()
    assert "<svg" in svg
    assert svg.count("CopySlices #") == 3 and "x3" in svg


def test_draw_without_graphviz_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # makes `import graphviz` fail
    with pytest.raises(ImportError, match=re.escape("pip install tapegrad[viz]")):
        viz.draw(tapegrad.ones(2, requires_grad=True) * 2)


# ---- text: golden trees ---------------------------------------------------------------------

def _text(build, lib=tapegrad, **options):
    output, params, _ = build(lib)
    options.setdefault("params", params)
    return viz.text(output, **options)


def test_text_mean_seed_golden():
    assert _text(seed_mean) == """\
MeanBackward0 (output: shape (), float32)
└── MulBackward0 #1
    └── MulBackward0 #2
        ├── AddBackward0
        │   └── AccumulateGrad (x: shape (2, 2), float32)
        └── (see above: AddBackward0)"""


def test_text_copyslices_seed_golden():
    assert _text(seed_copyslices) == """\
CopySlices #1 (output: shape (3,), float32)
├── CopySlices #2
│   ├── CopySlices #3
│   │   └── MulBackward0 #1
│   │       ├── MulBackward0 #2
│   │       │   ├── AccumulateGrad #1 (x1: shape (), float32)
│   │       │   └── AccumulateGrad #2 (x2: shape (), float32)
│   │       └── AccumulateGrad #3 (x3: shape (), float32)
│   └── AddBackward0 #1
│       ├── AddBackward0 #2
│       │   ├── (see above: AccumulateGrad #1)
│       │   └── (see above: AccumulateGrad #2)
│       └── (see above: AccumulateGrad #3)
└── AddBackward0 #3
    ├── (see above: AccumulateGrad #1)
    └── MulBackward0 #3
        ├── (see above: AccumulateGrad #2)
        └── (see above: AccumulateGrad #3)"""


def test_text_ascii_without_names_or_shapes_golden():
    y, _, _ = seed_x1(tapegrad)
    assert viz.text(y, show_shapes=False, ascii=True) == """\
MeanBackward0 (output)
`-- MulBackward0 #1
    |-- MulBackward0 #2
    |   `-- AddBackward0 #1
    |       `-- AccumulateGrad
    `-- AddBackward0 #2
        `-- (see above: AccumulateGrad)"""


def test_text_doubling_loop_is_a_chain_golden():
    assert _text(seed_doubling) == """\
MulBackward0 #1 (output: shape (3,), float32)
└── MulBackward0 #2
    └── MulBackward0 #3
        └── MulBackward0 #4
            └── MulBackward0 #5
                └── MulBackward0 #6
                    └── MulBackward0 #7
                        └── MulBackward0 #8
                            └── MulBackward0 #9
                                └── AccumulateGrad (x: shape (3,), float32)"""


def test_text_several_outputs_leaf_and_constant_golden():
    x = tapegrad.ones(3, requires_grad=True)
    y = x * 2
    assert viz.text([y.sum(), y, x, tapegrad.ones(2)], params={"x": x, "y": y}) == """\
SumBackward0 (output 0: shape (), float32)
└── MulBackward0
    └── AccumulateGrad (x: shape (3,), float32)
(see above: MulBackward0) (y: shape (3,), float32)
None (x: shape (3,), float32; a leaf: no graph)
None (output 3: shape (2,), float32; does not require grad: no graph)"""


@pytest.mark.parametrize("build", SEEDS, ids=lambda build: build.__name__)
def test_text_is_stable_and_matches_torch_graph(build):
    torch = _torch()
    first = _text(build)
    assert first == _text(build)  # a fresh graph prints the same tree
    assert first == _text(build, lib=torch)


def test_text_of_deep_chain_needs_no_recursion():
    x = tapegrad.ones(1, requires_grad=True)
    y = x
    for _ in range(sys.getrecursionlimit() + 200):
        y = y * 1.0
    lines = viz.text(y, show_shapes=False).splitlines()
    assert len(lines) == sys.getrecursionlimit() + 201
    assert lines[-1].endswith("└── AccumulateGrad")


def test_node_titles_number_repeated_names_in_tree_order():
    y, _, _ = seed_copyslices(tapegrad)
    titles = list(viz.node_titles(y).values())
    assert titles[:4] == ["CopySlices #1", "CopySlices #2", "CopySlices #3", "MulBackward0 #1"]
    assert len(titles) == len(set(titles)) == 12


def test_saved_tensors_are_exposed_under_torchs_names():
    def saved(lib):
        a = lib.tensor([1., 2.], requires_grad=True)
        b = lib.tensor([3., 4.], requires_grad=True)
        y = (a * b).exp()
        mul = y.grad_fn.next_functions[0][0]
        before = {name: value.tolist() for name, value in viz.saved_values(mul).items()}
        names = sorted(viz.saved_values(y.grad_fn))
        y.sum().backward()
        return before, names, viz.saved_values(y.grad_fn)
    ours = saved(tapegrad)
    assert ours == ({"self": [1., 2.], "other": [3., 4.]}, ["result"], {"result": "(freed)"})
    assert ours == saved(pytest.importorskip("torch"))


def test_text_is_a_str_that_displays_as_the_tree():
    y, params, _ = seed_mean(tapegrad)
    tree = viz.text(y, params=params)
    assert isinstance(tree, str) and repr(tree) == str(tree) and "\n" in tree
    assert tree._repr_html_() == "<pre>" + html.escape(str(tree)) + "</pre>"


def test_render_without_dot_says_how_to_install_it(monkeypatch, tmp_path):
    graphviz = pytest.importorskip("graphviz")
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` on this PATH
    graph = viz.draw(tapegrad.ones(2, requires_grad=True) * 2)
    for render in (lambda: graph.render(tmp_path / "g", format="svg"),
                   lambda: graph.pipe(format="svg")):
        with pytest.raises(graphviz.ExecutableNotFound, match="apt-get install graphviz"):
            render()
