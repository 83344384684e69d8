"""Look at a backward graph: `text` prints it as a tree, `draw` makes a Graphviz picture.

Both read only torch's public graph API (`grad_fn`, `next_functions`, `AccumulateGrad.variable`
and the `_saved_<name>` attributes torch's nodes expose), so they show torch's graphs too.
Nodes are named by their class, as torch names them (`MulBackward0`, `AccumulateGrad`,
`CopySlices`). When several nodes share a name, a number tells them apart, counted in the order
the text tree first reaches them ("MulBackward0 #2"); `tapegrad.explain` uses the same titles.
"""
import functools
import html
from collections import Counter
from collections.abc import Mapping
from typing import Any

__all__ = ["GraphText", "draw", "node_titles", "param_names", "saved_values", "tensor_summary",
           "text"]

_BOX = ("├── ", "└── ", "│   ", "    ")  # branch, last branch, bar, blank
_ASCII = ("|-- ", "`-- ", "|   ", "    ")
_COLORS = {"op": "lightgrey", "leaf": "lightblue", "output": "darkolivegreen1",
           "saved": "orange"}


class GraphText(str):
    """A str that displays as itself: at the prompt and in Jupyter the tree is drawn, not
    quoted on one line with its newlines escaped."""

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self):
        return "<pre>" + html.escape(self) + "</pre>"


def text(tensor_or_tensors: Any, params: Any = None, show_shapes: bool = True,
         ascii: bool = False) -> GraphText:
    """The backward graph as an indented tree (a str): the output's grad_fn, then its inputs
    below it. `print(viz.text(y))` shows it; so does displaying it at a prompt or in Jupyter.

    A node reached a second time (a shared subexpression) is printed as
    "(see above: <title>)" instead of its subtree. Inputs that need no gradient (the
    (None, 0) entries of next_functions) are left out. `params` names leaves as in `draw`;
    ascii=True draws the branches with ASCII characters only.
    """
    outputs = _as_tensors(tensor_or_tensors)
    names = param_names(params)
    titles = node_titles(outputs)
    chars = _ASCII if ascii else _BOX
    lines = []
    seen: set = set()
    for k, output in enumerate(outputs):
        summary = tensor_summary(output, names.get(id(output), _output_name(k, outputs)),
                                 show_shapes)
        if output.grad_fn is None:
            why = "a leaf" if output.requires_grad else "does not require grad"
            lines.append(f"None ({summary}; {why}: no graph)")
            continue
        for node, context, repeated in _preorder([output.grad_fn], seen):
            line = _lead(context, chars)
            if repeated:
                line += f"(see above: {titles[node]})"
            else:
                line += titles[node] + _leaf_details(node, names, show_shapes)
            lines.append(line if context is not None else f"{line} ({summary})")
    return GraphText("\n".join(lines))


def draw(tensor_or_tensors: Any, params: Any = None, show_saved: bool = False,
         show_shapes: bool = True) -> Any:
    """The backward graph as a graphviz.Digraph: `.render(path, format="svg")` saves it and
    Jupyter displays it inline. Needs the `graphviz` package (pip install tapegrad[viz]) and,
    to render, Graphviz's `dot` program (apt-get install graphviz, brew install graphviz or
    conda install graphviz); without it, rendering raises an error saying so.

    Arrows point the way gradients flow: from each output (green) to its grad_fn, and from a
    node to the nodes in its next_functions, down to the leaves (blue AccumulateGrad boxes:
    the leaf's name from `params`, its shape and dtype). `params` is a dict name -> tensor or a
    module with named_parameters(). Inputs that need no gradient are not drawn. show_saved adds
    what a node exposes as torch's `_saved_<name>` attributes: tensors as orange boxes joined
    by dashed lines, other values in the node's label. torch's nodes expose them; tapegrad's
    nodes do not yet, so for tapegrad graphs show_saved adds nothing.
    """
    graphviz = _import_graphviz()
    outputs = _as_tensors(tensor_or_tensors)
    names = param_names(params)
    titles = node_titles(outputs)
    ids = {node: f"n{i}" for i, node in enumerate(titles)}
    leaf_ids = {id(node.variable): ids[node] for node in titles if hasattr(node, "variable")}
    dot = _digraph_class(graphviz)(graph_attr={"rankdir": "TB"},
                           node_attr={"shape": "box", "style": "filled,rounded",
                                      "fontname": "monospace", "fontsize": "11"})
    for node, title in titles.items():
        _draw_node(dot, node, ids[node], title, names, show_saved, show_shapes)
        for next_node, _ in node.next_functions:
            if next_node is not None:
                dot.edge(ids[node], ids[next_node])
    for k, output in enumerate(outputs):
        label = tensor_summary(output, names.get(id(output), _output_name(k, outputs)),
                               show_shapes, sep="\n")
        dot.node(f"out{k}", _escape(label), fillcolor=_COLORS["output"])
        # a leaf output points at its own AccumulateGrad when the graph reaches it
        if output.grad_fn is not None:
            dot.edge(f"out{k}", ids[output.grad_fn])
        elif id(output) in leaf_ids:
            dot.edge(f"out{k}", leaf_ids[id(output)])
    return dot


def node_titles(tensor_or_tensors: Any) -> dict[Any, str]:
    """{node: title} for every node reachable from the tensors' grad_fn, in the order the text
    tree first reaches them; a title is the node's class name, numbered ("#2") when several
    nodes share that name."""
    roots = [t.grad_fn for t in _as_tensors(tensor_or_tensors) if t.grad_fn is not None]
    order = [node for node, _, repeated in _preorder(roots) if not repeated]
    totals = Counter(_class_name(node) for node in order)
    numbers: Counter[str] = Counter()
    titles = {}
    for node in order:
        name = _class_name(node)
        if totals[name] > 1:
            numbers[name] += 1
            name = f"{name} #{numbers[name]}"
        titles[node] = name
    return titles


def param_names(params: Any) -> dict[int, str]:
    """{id(tensor): name} from a dict name -> tensor, (name, tensor) pairs, or a module with
    named_parameters(); {} for None."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        pairs = params.named_parameters()
    elif isinstance(params, Mapping):
        pairs = params.items()
    else:
        pairs = params
    return {id(tensor): name for name, tensor in pairs}


def tensor_summary(tensor: Any, name: str | None = None, show_shapes: bool = True,
                   sep: str = ": ") -> str:
    """"name: shape (2, 2), float32"; only the name when show_shapes is False."""
    if not show_shapes:
        return name or ""
    dims = ", ".join(str(size) for size in tensor.shape)
    dims += "," if len(tensor.shape) == 1 else ""
    shape = f"shape ({dims}), {str(tensor.dtype).removeprefix('torch.')}"
    return f"{name}{sep}{shape}" if name else shape


def saved_values(node: Any) -> dict[str, Any]:
    """{name: value} of what the node exposes as torch's `_saved_<name>` attributes; a value
    the backward pass has already freed reads as the string "(freed)"."""
    values = {}
    for attribute in dir(node):
        if attribute.startswith("_saved_"):
            try:
                values[attribute[len("_saved_"):]] = getattr(node, attribute)
            except RuntimeError:  # torch raises once backward has released it
                values[attribute[len("_saved_"):]] = "(freed)"
    return values


def _preorder(roots, seen=None):
    """Depth first from the root nodes, inputs in next_functions order.

    Yields (node, context, repeated): context links to the parent's context as
    (parent_context, is_last_child), None at a root; a node reached again (also one in `seen`,
    which is updated) is yielded with repeated=True and not descended. Iterative, so a
    100,000-node chain is fine.
    """
    seen = set() if seen is None else seen
    stack = [(node, None) for node in reversed(roots)]
    while stack:
        node, context = stack.pop()
        if node in seen:
            yield node, context, True
            continue
        seen.add(node)
        yield node, context, False
        children = [child for child, _ in node.next_functions if child is not None]
        for i in reversed(range(len(children))):
            stack.append((children[i], (context, i == len(children) - 1)))


def _lead(context, chars):
    """The tree branches in front of a line: one column per ancestor below the root."""
    if context is None:
        return ""
    parent, is_last = context
    columns = [chars[1] if is_last else chars[0]]
    while parent is not None:
        parent, parent_is_last = parent
        columns.append(chars[3] if parent_is_last else chars[2])
    return "".join(reversed(columns))


def _leaf_details(node, names, show_shapes):
    variable = getattr(node, "variable", None)
    if variable is None:
        return ""
    summary = tensor_summary(variable, names.get(id(variable)), show_shapes)
    return f" ({summary})" if summary else ""


def _draw_node(dot, node, node_id, title, names, show_saved, show_shapes):
    variable = getattr(node, "variable", None)
    if variable is not None:
        name = names.get(id(variable))
        label = [name or title]
        if show_shapes:
            label.append(tensor_summary(variable, show_shapes=True))
        dot.node(node_id, _escape("\n".join(label)), fillcolor=_COLORS["leaf"])
        return
    label = [title] + (_draw_saved(dot, node, node_id, show_shapes) if show_saved else [])
    dot.node(node_id, _escape("\n".join(label)), fillcolor=_COLORS["op"])


def _draw_saved(dot, node, node_id, show_shapes):
    """Saved tensors as orange boxes joined to the node; other saved values as label lines."""
    lines = []
    for name, value in saved_values(node).items():
        tensors = _saved_tensors(name, value)
        if not tensors:
            lines.append(f"{name} = {_short_repr(value)}")
        for saved_name, tensor in tensors:
            saved_id = f"{node_id}_{saved_name}"
            label = tensor_summary(tensor, saved_name, show_shapes, sep="\n")
            dot.node(saved_id, _escape(label), fillcolor=_COLORS["saved"])
            dot.edge(node_id, saved_id, style="dashed", dir="none")
    return lines


def _saved_tensors(name, value):
    """[(name, tensor)] for a saved tensor or a sequence of them, [] for anything else."""
    if _is_tensor(value):
        return [(name, value)]
    if isinstance(value, (tuple, list)) and value and all(map(_is_tensor, value)):
        return [(f"{name}[{i}]", tensor) for i, tensor in enumerate(value)]
    return []


def _is_tensor(value):
    return hasattr(value, "grad_fn") and hasattr(value, "shape")


def _short_repr(value, limit=40):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _escape(label):
    """A DOT label: backslashes and quotes escaped, line breaks as DOT's centred \\n."""
    return label.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _class_name(node):
    return type(node).__name__


def _output_name(k, outputs):
    return "output" if len(outputs) == 1 else f"output {k}"


def _as_tensors(tensor_or_tensors):
    if hasattr(tensor_or_tensors, "grad_fn"):
        return (tensor_or_tensors,)
    return tuple(tensor_or_tensors)


def _import_graphviz():
    try:
        import graphviz
    except ImportError as error:
        raise ImportError("tapegrad.viz.draw needs the graphviz package: "
                          "pip install tapegrad[viz] (and Graphviz's `dot` program to render "
                          "images)") from error
    return graphviz


_DOT_HINT = ("Graphviz's `dot` program is not installed (the graphviz Python package only calls "
             "it): apt-get install graphviz, brew install graphviz or conda install graphviz, "
             "then try again. Without it, .source holds the DOT text, and .save(path) writes it.")


@functools.cache
def _digraph_class(graphviz):
    """graphviz.Digraph whose rendering says how to get `dot` when it is missing."""

    class MissingDot(graphviz.ExecutableNotFound):
        def __init__(self, message):
            RuntimeError.__init__(self, message)

    class Digraph(graphviz.Digraph):
        def render(self, *args, **kwargs):
            try:
                return super().render(*args, **kwargs)
            except graphviz.ExecutableNotFound as error:
                raise MissingDot(_DOT_HINT) from error

        def pipe(self, *args, **kwargs):  # also what Jupyter's inline display calls
            try:
                return super().pipe(*args, **kwargs)
            except graphviz.ExecutableNotFound as error:
                raise MissingDot(_DOT_HINT) from error

    return Digraph
