"""nn.Parameter, nn.Module and the containers, checked against torch.

Each scenario is written once as a function of the library (tapegrad or torch), so the same
source runs on both; reprs, key orders, values and error texts are compared. Layers used here
are tiny test-only ones built from Parameter, so these tests do not depend on nn's real layers.
"""
import copy
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import tapegrad
from tapegrad import nn
from compare import error_of, same, same_error, torch_or_skip


def layers(lib):
    """A tiny Linear and a network using every kind of member and container."""
    nn_ = lib.nn

    class TinyLinear(nn_.Module):
        def __init__(self, in_features, out_features, bias=True):
            super().__init__()
            self.in_features, self.out_features = in_features, out_features
            self.weight = nn_.Parameter(lib.ones(out_features, in_features))
            if bias:
                self.bias = nn_.Parameter(lib.zeros(out_features))
            else:
                self.register_parameter("bias", None)

        def forward(self, x):
            y = x @ self.weight.t()
            return y if self.bias is None else y + self.bias

        def extra_repr(self):
            return (f"in_features={self.in_features}, out_features={self.out_features}, "
                    f"bias={self.bias is not None}")

    class Net(nn_.Module):
        def __init__(self):
            super().__init__()
            self.body = nn_.Sequential(TinyLinear(2, 3), TinyLinear(3, 3), TinyLinear(3, 3),
                                       nn_.Sequential(OrderedDict(out=TinyLinear(3, 1, False))))
            self.heads = nn_.ModuleList([TinyLinear(1, 1) for _ in range(3)] + [TinyLinear(1, 2)])
            self.table = nn_.ModuleDict({"x": TinyLinear(1, 1), "a": nn_.ModuleList()})
            self.plist = nn_.ParameterList([lib.ones(2), nn_.Parameter(lib.ones(3).double()), 3])
            self.pdict = nn_.ParameterDict({"b": lib.ones(2), "a": lib.zeros(1, 2)})
            self.register_buffer("running", lib.zeros(3))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)
            self.empty = nn_.Module()

        def forward(self, x):
            return self.heads[0](self.body(x))

    return TinyLinear, Net


def seeded_net(lib):
    """Net with the same pseudo-random weights in either library (copied through NumPy)."""
    net = layers(lib)[1]()
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for _, param in net.named_parameters():
            param.copy_(lib.tensor(rng.standard_normal(tuple(param.shape))))
    return net


# ---- Parameter -------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.Parameter(lib.tensor([1.0, 2.5])),
    lambda lib: lib.nn.Parameter(lib.tensor([[1.0, 2.0]]), requires_grad=False),
    lambda lib: lib.nn.Parameter(lib.tensor([1.0], dtype=lib.float64)),
    lambda lib: lib.nn.Parameter(lib.tensor([1, 2]), requires_grad=False),
    lambda lib: lib.nn.Parameter(),
    lambda lib: lib.nn.Parameter(lib.nn.Parameter(lib.ones(2))),
])
def test_parameter_repr_matches_torch(make):
    same(lambda lib: (repr(make(lib)), type(make(lib)).__name__))


def test_parameter_is_leaf_tensor_and_ops_return_tensors():
    param = nn.Parameter(tapegrad.ones(2))
    assert isinstance(param, tapegrad.Tensor) and param.is_leaf and param.requires_grad
    for result in (param * 2, param.detach(), param.data, param[0], param.clone()):
        assert type(result) is tapegrad.Tensor
    assert param.to(tapegrad.float32) is param


def test_parameter_shares_storage_and_version_with_its_data():
    data = tapegrad.ones(2)
    param = nn.Parameter(data)
    data.add_(1)
    assert param.tolist() == [2.0, 2.0] and param._version == data._version == 1


def test_parameter_gets_gradient_through_ops():
    param = nn.Parameter(tapegrad.tensor([1.0, 2.0]))
    (param * param).sum().backward()
    assert param.grad.tolist() == [2.0, 4.0]


def test_parameter_integer_requires_grad_error_matches_torch():
    same_error(lambda lib: lib.nn.Parameter(lib.tensor([1, 2])))


def test_parameter_deepcopy_and_pickle_keep_kind_and_flag():
    param = nn.Parameter(tapegrad.tensor([1.0, 2.0]), requires_grad=False)
    for clone in (copy.deepcopy(param), pickle.loads(pickle.dumps(param))):
        assert type(clone) is nn.Parameter and not clone.requires_grad
        assert clone.tolist() == [1.0, 2.0] and clone.data_ptr() != param.data_ptr()


def test_buffer_assignment_registers_buffer():
    def scenario(lib):
        module = lib.nn.Module()
        module.a = lib.nn.Buffer(lib.ones(2))
        module.b = lib.nn.Buffer(lib.ones(1), persistent=False)
        module.a = lib.zeros(2)  # a registered buffer stays a buffer
        return (isinstance(module.a, lib.nn.Buffer), list(module.state_dict()),
                [n for n, _ in module.named_buffers()])
    same(scenario)


# ---- registration and attribute errors --------------------------------------------------------

@pytest.mark.parametrize("action", [
    "m.weight = lib.ones(2)",
    "m.foo",
    "m.register_buffer('weight', lib.ones(1))",
    "m.register_buffer('a.b', lib.ones(1))",
    "m.register_buffer('', lib.ones(1))",
    "m.register_buffer('b', 3)",
    "m.register_buffer(1, lib.ones(1))",
    "m.register_parameter('p', lib.ones(1))",
    "m.register_parameter('p.q', None)",
    "m.register_parameter('p', lib.nn.Parameter(lib.ones(1)) * 2)",
    "m.add_module('c', 3)",
    "m.add_module('a.b', lib.nn.Module())",
    "m.add_module('', lib.nn.Module())",
    "m.add_module('weight', lib.nn.Module())",
    "m.sub = lib.nn.Module(); m.sub = 5",
    "m.to(lib.long)",
    "m.train(1)",
    "m.get_submodule('x.y')",
    "m.get_parameter('sub')",
    "m.get_parameter('nothing')",
    "m.sub = lib.nn.Module(); m.get_buffer('sub.b')",
    "m.get_buffer('weight')",
    "m(1)",
    "lib.nn.Module(3)",
    "lib.nn.Module(a=3)",
    "m.zz = lib.nn.Buffer(lib.ones(1)); m.zz = 3",
    "m.load_state_dict([1])",
])
def test_module_errors_match_torch(action):
    def scenario(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = lib.nn.Parameter(lib.ones(2))
        m = Net()  # noqa: F841  (used by the action)
        exec(action)
    same_error(scenario)


def test_module_assign_before_init_errors_match_torch():
    def scenario(lib):
        class Early(lib.nn.Module):
            def __init__(self):
                self.w = lib.nn.Parameter(lib.ones(1))
        Early()
    same_error(scenario)


def test_module_reassignment_moves_member_between_kinds():
    def scenario(lib):
        m = lib.nn.Module()
        m.x = lib.nn.Parameter(lib.ones(1))
        m.x = None  # a parameter slot kept empty
        first = (list(m._parameters), m.x)
        del m.x
        m.x = lib.nn.Module()
        m.y = 3
        del m.y
        return first, list(m._modules), hasattr(m, "x"), hasattr(m, "y")
    same(scenario)


def test_module_dir_lists_members():
    net = layers(tapegrad)[1]()
    names = dir(net)
    assert {"body", "running", "forward", "training"} <= set(names) and names == sorted(names)
    assert dir(net.body) == [n for n in dir(net.body) if not n.isdigit()]


# ---- traversal, state dict, printing --------------------------------------------------------

def test_module_repr_matches_torch():
    same(lambda lib: repr(layers(lib)[1]()))


def test_module_traversal_orders_match_torch():
    def scenario(lib):
        net = layers(lib)[1]()
        return ([n for n, _ in net.named_parameters()], [n for n, _ in net.named_buffers()],
                [n for n, _ in net.named_modules()], [n for n, _ in net.named_children()],
                [n for n, _ in net.named_parameters(prefix="net", recurse=False)],
                len(list(net.parameters())), len(list(net.modules())),
                len(list(net.buffers(recurse=False))), len(list(net.children())))
    same(scenario)


def test_module_shared_members_listed_once_unless_asked():
    def scenario(lib):
        linear = layers(lib)[0](2, 2)
        seq = lib.nn.Sequential(linear, linear)
        seq.tied = linear.weight
        return ([n for n, _ in seq.named_modules()],
                [n for n, _ in seq.named_modules(remove_duplicate=False)],
                [n for n, _ in seq.named_parameters()],
                [n for n, _ in seq.named_parameters(remove_duplicate=False)],
                list(seq.state_dict()))
    same(scenario)


def test_module_state_dict_keys_shapes_and_values_match_torch():
    def scenario(lib):
        state = seeded_net(lib).state_dict()
        return [(k, tuple(v.shape), str(v.dtype), v.requires_grad, v.numpy().tolist())
                for k, v in state.items()]
    same(scenario)


def test_module_state_dict_is_detached_unless_keep_vars():
    net = seeded_net(tapegrad)
    state = net.state_dict()
    assert type(state) is OrderedDict and state._metadata[""] == {"version": 1}
    assert type(state["body.0.weight"]) is tapegrad.Tensor
    assert state["body.0.weight"].data_ptr() == net.body[0].weight.data_ptr()
    kept = net.state_dict(keep_vars=True, prefix="model.")
    assert kept["model.body.0.weight"] is net.body[0].weight


def test_module_load_state_dict_copies_into_same_parameters():
    torch = torch_or_skip()
    source, target = seeded_net(torch), layers(tapegrad)[1]()
    weight = target.body[0].weight
    state = {k: tapegrad.tensor(v.numpy()) for k, v in source.state_dict().items()}
    result = target.load_state_dict(state)
    assert repr(result) == "<All keys matched successfully>" == repr(
        source.load_state_dict(source.state_dict()))
    assert target.body[0].weight is weight
    for (key, mine), theirs in zip(target.state_dict().items(), source.state_dict().values()):
        np.testing.assert_array_equal(mine.numpy(), theirs.numpy(), err_msg=key)


@pytest.mark.parametrize("edit", ["missing", "unexpected", "both", "shape", "not_tensor",
                                  "child_unknown"])
def test_module_load_state_dict_errors_match_torch(edit):
    def scenario(lib):
        net = layers(lib)[1]()
        state = net.state_dict()
        if edit in ("missing", "both"):
            del state["body.1.bias"], state["running"]
        if edit in ("unexpected", "both"):
            state["body.1.extra"] = lib.ones(1)
            state["zzz"] = lib.ones(1)
        if edit == "shape":
            state["body.0.weight"] = lib.ones(4, 4)
            state["pdict.a"] = lib.ones(2)
        if edit == "not_tensor":
            state["running"] = [1.0, 2.0]
        if edit == "child_unknown":
            state["nothere.weight"] = lib.ones(1)
        net.load_state_dict(state)
    same_error(scenario)


def test_module_load_state_dict_non_strict_returns_keys_like_torch():
    def scenario(lib):
        net = layers(lib)[1]()
        state = net.state_dict()
        del state["body.1.bias"]
        state["extra"] = lib.ones(1)
        result = net.load_state_dict(state, strict=False)
        return repr(result), result.missing_keys, result.unexpected_keys, str(result)
    same(scenario)


def test_module_load_state_dict_assign_replaces_parameters():
    def scenario(lib):
        linear = layers(lib)[0](2, 1)
        new_weight = lib.full((1, 2), 3.0)
        linear.load_state_dict({"weight": new_weight, "bias": lib.zeros(1)}, assign=True)
        return (type(linear.weight).__name__, linear.weight.requires_grad,
                linear.weight.data_ptr() == new_weight.data_ptr())
    same(scenario)


def test_module_load_state_dict_accepts_one_element_for_scalar():
    def scenario(lib):
        m = lib.nn.Module()
        m.register_buffer("count", lib.tensor(0))
        m.load_state_dict({"count": lib.tensor([5])})
        return m.count.tolist()
    same(scenario)


def test_module_load_state_dict_post_hook_sees_keys():
    seen = []
    linear = layers(tapegrad)[0](1, 1)
    linear.register_load_state_dict_post_hook(lambda m, keys: seen.append(list(keys)))
    linear.load_state_dict({"weight": tapegrad.ones(1, 1)}, strict=False)
    assert seen == [[["bias"], []]]


# ---- modes, grads, conversions ----------------------------------------------------------------

def test_module_train_eval_reach_every_submodule():
    net = layers(tapegrad)[1]()
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())


def test_module_requires_grad_and_zero_grad():
    def scenario(lib):
        net = seeded_net(lib)
        net(lib.ones(5, 2)).sum().backward()
        grads = [p.grad is not None for p in net.parameters()]
        net.zero_grad(set_to_none=False)
        zeroed = [p.grad.abs().sum().item() for p in net.parameters() if p.grad is not None]
        net.zero_grad()
        cleared = all(p.grad is None for p in net.parameters())
        net.requires_grad_(False)
        return grads, zeroed, cleared, [p.requires_grad for p in net.parameters()]
    same(scenario)


def test_module_apply_visits_children_first():
    def scenario(lib):
        seen = []
        layers(lib)[1]().apply(lambda m: seen.append(type(m).__name__))
        return seen
    same(scenario)


@pytest.mark.parametrize("convert", ["double", "half", "float", "to64", "to_tensor", "to_kw"])
def test_module_dtype_conversions_match_torch(convert):
    def scenario(lib):
        net = layers(lib)[1]()
        net.register_buffer("steps", lib.tensor(3))
        before = net.body[0].weight
        net.body[0].weight.grad = lib.ones(3, 2)
        result = {"double": lambda: net.double(), "half": lambda: net.half(),
                  "float": lambda: net.double().float(),
                  "to64": lambda: net.to(lib.float64),
                  "to_tensor": lambda: net.to(lib.ones(1, dtype=lib.float64)),
                  "to_kw": lambda: net.to(device="cpu", dtype=lib.float64)}[convert]()
        return (result is net, net.body[0].weight is before,
                [(k, str(v.dtype)) for k, v in net.state_dict().items()],
                str(net.body[0].weight.grad.dtype))
    same(scenario)


def test_module_to_cpu_and_cpu_return_self():
    net = layers(tapegrad)[1]()
    assert net.to("cpu") is net and net.cpu() is net and net.to() is net


# ---- calling and hooks ----------------------------------------------------------------------

def test_module_forward_output_and_gradients_match_torch():
    def scenario(lib):
        net = seeded_net(lib).double()
        x = lib.tensor(np.linspace(-1, 1, 10).reshape(5, 2))
        out = net(x)
        out.square().sum().backward()
        return out.tolist(), [(n, p.grad.tolist()) for n, p in net.named_parameters()
                              if p.grad is not None]
    torch = torch_or_skip()
    mine, theirs = scenario(tapegrad), scenario(torch)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-12)
    assert [n for n, _ in mine[1]] == [n for n, _ in theirs[1]]
    for (_, a), (_, b) in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def hook_scenario(lib):
    """Forward pre-hooks, forward hooks, kwargs hooks, prepend and removal; returns a log."""
    log = []

    class Scale(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.tensor([2.0, 3.0]))

        def forward(self, x, y=None, k=1.0):
            return x * self.w * k, x.sum()

    m = Scale()
    m.register_forward_pre_hook(lambda mod, args: log.append(("pre", len(args))))
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,) + args[1:])
    m.register_forward_pre_hook(lambda mod, args, kw: log.append(("pre_kw", sorted(kw))),
                                with_kwargs=True, prepend=True)
    handle = m.register_forward_hook(lambda mod, args, out: (out[0] + 1, out[1]))
    m.register_forward_hook(lambda mod, args, kw, out: log.append(("fw_kw", sorted(kw))),
                            with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: log.append("first"), prepend=True)
    m.register_forward_pre_hook(lambda mod, args: args[0])  # a single value becomes a tuple
    log.append(m(lib.tensor([1.0, -1.0]), 5, k=3.0)[0].tolist())
    handle.remove()
    log.append(m(lib.tensor([1.0, -1.0]))[0].tolist())
    return log


def test_module_forward_hooks_order_and_effects_match_torch():
    same(hook_scenario)


def test_module_forward_pre_hook_with_kwargs_bad_return_matches_torch():
    def scenario(lib):
        m = layers(lib)[0](1, 1)
        m.register_forward_pre_hook(lambda mod, args, kw: 5, with_kwargs=True)
        m(lib.ones(1))
    same_error(scenario)


def backward_hook_scenario(lib):
    log = []

    def grads(gs):
        return [None if g is None else g.tolist() for g in gs]

    class Scale(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.tensor([2.0, 3.0]))

        def forward(self, x, y):
            return x * self.w, x.sum()

    m = Scale()

    def replace_grad_input(mod, grad_input, grad_output):
        log.append(("bw", grads(grad_input), grads(grad_output)))
        return (grad_input[0] * 10,) + grad_input[1:]

    m.register_full_backward_hook(replace_grad_input)
    m.register_full_backward_hook(lambda mod, gi, go: log.append("first"), prepend=True)
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", grads(go))))
    x = lib.tensor([1.0, -1.0], requires_grad=True)
    out = m(x, 5)
    (out[0].sum() * 2).backward()
    log += [x.grad.tolist(), m.w.grad.tolist(), type(out[0].grad_fn).__name__]
    return log


def test_module_full_backward_hooks_match_torch():
    same(backward_hook_scenario)


def test_module_full_backward_hook_without_input_grad_warns_like_torch():
    def scenario(lib):
        seen = []
        m = layers(lib)[0](2, 1)
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go[0].tolist())))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m(lib.ones(3, 2)).sum().backward()
        return seen, [str(w.message) for w in caught]
    same(scenario)


def test_module_full_backward_hook_wrong_length_matches_torch():
    def scenario(lib):
        m = layers(lib)[0](2, 1)
        m.register_full_backward_hook(lambda mod, gi, go: (None, None))
        m(lib.ones(3, 2, requires_grad=True)).sum().backward()
    same_error(scenario)


# ---- containers -----------------------------------------------------------------------------

def test_sequential_list_operations_match_torch():
    def scenario(lib):
        Linear = layers(lib)[0]
        seq = lib.nn.Sequential(*(Linear(1, i) for i in range(1, 5)))
        names = lambda s: [m.out_features for m in s]  # noqa: E731
        log = [len(seq), seq[-1].out_features, names(seq[1:3]), type(seq[1:3]).__name__]
        seq.append(Linear(1, 9)).insert(0, Linear(1, 7)).extend([Linear(1, 8)])
        log.append(names(seq))
        del seq[1]
        del seq[::3]
        log += [names(seq), list(seq._modules)]
        seq[0] = Linear(1, 6)
        log += [seq.pop(1).out_features, names(seq), names(seq + seq), names(seq * 2)]
        log.append(error_of(lambda: seq[10]))
        log.append(error_of(lambda: seq.insert(10, Linear(1, 1))))
        log.append(error_of(lambda: seq + 3))
        # the class path in the text differs (tapegrad.nn.modules vs torch.nn.modules)
        log.append(error_of(lambda: seq * 0)[1].replace("tapegrad.", "torch."))
        seq += lib.nn.Sequential(Linear(1, 5))
        log += [names(seq), repr(seq)]
        return log
    same(scenario)


def test_sequential_forward_chains_and_ordered_dict_keeps_names():
    def scenario(lib):
        Linear = layers(lib)[0]
        seq = lib.nn.Sequential(OrderedDict([("first", Linear(2, 3)), ("second", Linear(3, 1))]))
        return seq(lib.ones(4, 2)).tolist(), list(seq.state_dict()), repr(seq)
    same(scenario)


def test_module_list_operations_and_repr_match_torch():
    def scenario(lib):
        Linear = layers(lib)[0]
        mlist = lib.nn.ModuleList([Linear(2, 2), Linear(2, 2), Linear(2, 2), Linear(2, 3)])
        log = [repr(mlist), repr(lib.nn.ModuleList()), len(mlist), mlist[-1].out_features]
        mlist.append(Linear(3, 3))
        mlist.insert(1, Linear(1, 1))
        mlist.extend([Linear(2, 2)])
        mlist += [Linear(2, 2)]
        log.append(repr(mlist))
        del mlist[0]
        del mlist[1:3]
        mlist[0] = Linear(5, 5)
        log += [repr(mlist), repr(mlist[1:]), repr(mlist + mlist), mlist.pop(0).in_features]
        log += [error_of(lambda: mlist[20]), error_of(lambda: mlist.extend(3))]
        return log
    same(scenario)


def test_module_list_collapses_only_adjacent_repeats():
    def scenario(lib):
        Linear = layers(lib)[0]
        seq = lib.nn.Sequential(Linear(1, 1), Linear(1, 1))
        return repr(lib.nn.ModuleList([Linear(1, 1), seq, seq, Linear(1, 1), Linear(1, 1)]))
    same(scenario)


def test_module_dict_operations_match_torch():
    def scenario(lib):
        Linear = layers(lib)[0]
        mdict = lib.nn.ModuleDict({"b": Linear(1, 1), "a": Linear(1, 2)})
        mdict["c"] = Linear(2, 2)
        mdict.update([("d", Linear(1, 3))])
        log = [list(mdict), list(mdict.keys()), len(mdict), "a" in mdict, repr(mdict)]
        log += [mdict.pop("b").out_features, [v.out_features for v in mdict.values()],
                [k for k, _ in mdict.items()]]
        del mdict["a"]
        log.append(list(mdict))
        log += [error_of(lambda: mdict.update(3)), error_of(lambda: mdict.update([(1, 2, 3)])),
                error_of(lambda: mdict.update([3]))]
        mdict.clear()
        return log + [len(mdict)]
    same(scenario)


def test_parameter_list_and_dict_match_torch():
    def scenario(lib):
        plist = lib.nn.ParameterList([lib.ones(2, 3), lib.nn.Parameter(lib.zeros(1)), "x"])
        plist.append(lib.ones(4, dtype=lib.float64))
        pdict = lib.nn.ParameterDict({"w": lib.ones(2), "b": lib.zeros(3, 1)})
        pdict["z"] = lib.ones(1)
        pdict.update(OrderedDict([("y", lib.ones(2, 2))]))
        log = [repr(plist), repr(pdict), len(plist), len(pdict), list(pdict),
               type(plist[0]).__name__, type(pdict["w"]).__name__, repr(plist[1:3])]
        log += [list(reversed(pdict)), pdict.get("nothing", 5), "w" in pdict,
                pdict.popitem()[0], pdict.pop("w").tolist(), list(pdict.copy()),
                list(pdict | lib.nn.ParameterDict({"q": lib.ones(1)})),
                [n for n, _ in plist.named_parameters()], list(pdict.state_dict())]
        log += [error_of(lambda: plist(1)), error_of(lambda: pdict(1)),
                error_of(lambda: pdict[1]), error_of(lambda: plist.extend(lib.ones(2)))]
        return log
    same(scenario)
