"""Devices on a machine without CUDA, as a CPU-only torch build has them: torch.device,
torch.cuda, torch.backends, the default device, device= in every factory, Tensor.to/cuda/cpu,
Tensor.type, the new_* methods and the new factories (checked against torch 2.13 CPU)."""
import contextlib
import io
import pickle
import textwrap

import numpy as np
import pytest

import tapegrad
from compare import same, same_error, torch_or_skip


@pytest.fixture(autouse=True)
def default_device_restored():
    yield
    tapegrad.set_default_device(None)
    torch = pytest.importorskip("torch")
    torch.set_default_device(None)


def outcome(fn):
    """What fn() gives, comparable across libraries: repr of the result, or the error."""
    try:
        return "ok", repr(fn())
    except Exception as error:  # noqa: BLE001  (the error itself is what is compared)
        return type(error).__name__, str(error)


def same_outcome(scenario):
    torch = torch_or_skip()
    assert outcome(lambda: scenario(tapegrad)) == outcome(lambda: scenario(torch))


# ---- torch.device ----------------------------------------------------------------------------

DEVICE_ARGUMENTS = [
    ("cpu",), ("cpu:0",), ("cpu:1",), ("cuda",), ("cuda:1",), ("mps",), ("meta",), ("xla",),
    ("hip:0",), ("cuda", 1), ("cpu", 0), ("cuda", None), (b"cuda:2",), ("cuda:127",),
    ("banana",), ("CPU",), ("Cuda:1",), ("cuda_x",), ("",), (" cpu",), ("cuda:",), ("cuda:x",),
    ("cuda:-1",), ("cuda:01",), ("cuda1",), ("cuda:1:2",), ("9cuda",), ("cuda:99999999999",),
    ("cuda:1", 1), ("cuda:1", None), ("cuda", -1), ("cpu", -1), (0,), (1,), (-1,), (1.0,),
    (True,), (None,), (), ("cuda", 1.0), ("cuda", True), ("cuda", "3"), (2, 1),
]


@pytest.mark.parametrize("arguments", DEVICE_ARGUMENTS, ids=repr)
def test_device_parses_as_torch(arguments):
    same_outcome(lambda lib: lib.device(*arguments))


@pytest.mark.parametrize("arguments", [("cuda:2",), ("cuda", 3), ("cpu",), ("meta",)], ids=repr)
def test_device_attributes_and_text(arguments):
    same(lambda lib: (lambda d: (d.type, d.index, str(d), repr(d)))(lib.device(*arguments)))


def test_device_from_a_device_and_keywords():
    same(lambda lib: repr(lib.device(lib.device("cuda:2"))))
    same(lambda lib: repr(lib.device(type="cuda", index=3)))
    same(lambda lib: repr(lib.device("cuda", index=3)))
    same_error(lambda lib: lib.device(lib.device("cuda:2"), 1))


def test_device_equality_and_hash():
    def scenario(lib):
        d = lib.device
        return (d("cpu") == d("cpu"), d("cpu") == "cpu", d("cpu") != "cpu",
                d("cpu") == d("cpu:0"), d("cuda") == d("cuda:0"), d("cuda", 1) == d("cuda:1"),
                hash(d("cuda:1")) == hash(d("cuda", 1)), len({d("cpu"), d("cpu")}),
                lib.ones(1).device == d("cpu"), lib.ones(1).device == "cpu")
    same(scenario)


def test_device_pickles_and_is_read_only():
    assert pickle.loads(pickle.dumps(tapegrad.device("cuda", 1))) == tapegrad.device("cuda:1")
    with pytest.raises(AttributeError):
        tapegrad.device("cpu").type = "cuda"


# ---- tapegrad.cuda -----------------------------------------------------------------------------

CUDA_CALLS = {
    "is_available": (), "device_count": (), "is_initialized": (), "init": (),
    "manual_seed": (1,), "manual_seed_all": (1,), "seed": (), "seed_all": (),
    "synchronize": (), "current_device": (), "get_device_name": (), "get_device_name-0": (0,),
    "get_device_properties": (0,), "get_device_capability": (), "empty_cache": (),
    "memory_allocated": (), "memory_allocated-cuda:0": ("cuda:0",), "max_memory_allocated": (),
    "memory_reserved": (), "max_memory_reserved": (), "memory_stats": (),
    "reset_peak_memory_stats-cpu": ("cpu",), "initial_seed": (), "get_rng_state": (),
    "get_rng_state_all": (), "is_bf16_supported": (), "mem_get_info": (), "ipc_collect": (),
    "get_arch_list": (), "get_gencode_flags": (), "current_stream": (), "default_stream": (),
    "can_device_access_peer": (0, 1), "set_device--1": (-1,), "set_device-cpu": ("cpu",),
    "Stream": (), "Event": (), "is_tf32_supported": (),
}


@pytest.mark.parametrize("call", CUDA_CALLS)
def test_cuda_function_matches_torch(call):
    name = call.split("-")[0]
    same_outcome(lambda lib: getattr(lib.cuda, name)(*CUDA_CALLS[call]))


def test_cuda_bad_seed_raises_as_torch():
    same_error(lambda lib: lib.cuda.manual_seed("x"))


@pytest.mark.parametrize("call", [("set_device", 0), ("set_device", "cuda:0"),
                                  ("reset_peak_memory_stats",), ("memory_summary",)])
def test_cuda_calls_torch_fails_on_internally_raise_not_compiled(call):
    # torch's CPU build raises AttributeError/KeyError about its own internals here
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        getattr(tapegrad.cuda, call[0])(*call[1:])


@pytest.mark.parametrize("argument", [0, -1, None, "cuda:1", "cpu"], ids=repr)
def test_cuda_device_context_manager(argument):
    def scenario(lib):
        with lib.cuda.device(argument):
            return "entered"
    same_outcome(scenario)


def test_cuda_device_of_a_cpu_tensor_does_nothing():
    def scenario(lib):
        context = lib.cuda.device_of(lib.ones(1))
        with context:
            return context.idx
    same(scenario)


def test_cuda_stream_none_is_a_no_op():
    def scenario(lib):
        with lib.cuda.stream(None):
            return "entered"
    same(scenario)


# ---- tapegrad.backends -------------------------------------------------------------------------

def test_backends_report_what_a_cpu_build_reports():
    def scenario(lib):
        b = lib.backends
        return (b.cudnn.enabled, b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32,
                b.cudnn.is_available(), b.cudnn.version(), b.cudnn.is_acceptable(lib.ones(1)),
                b.mps.is_available(), b.mps.is_built(), b.cuda.is_built(),
                b.cuda.matmul.allow_tf32, b.cuda.matmul.allow_fp16_reduced_precision_reduction,
                b.cuda.matmul.allow_bf16_reduced_precision_reduction,
                b.cuda.flash_sdp_enabled(), b.cuda.mem_efficient_sdp_enabled(),
                b.cuda.math_sdp_enabled(), b.cuda.cudnn_sdp_enabled())
    same(scenario)


def test_cudnn_flags_context_sets_and_restores():
    def scenario(lib):
        cudnn = lib.backends.cudnn
        with cudnn.flags(enabled=False, benchmark=True):
            inside = (cudnn.enabled, cudnn.benchmark)
        return inside, (cudnn.enabled, cudnn.benchmark)
    same(scenario)


def test_matmul_tf32_follows_float32_matmul_precision():
    def scenario(lib):
        matmul = lib.backends.cuda.matmul
        seen = [lib.get_float32_matmul_precision()]
        matmul.allow_tf32 = True
        seen.append(lib.get_float32_matmul_precision())
        lib.set_float32_matmul_precision("medium")
        seen.append(matmul.allow_tf32)
        lib.set_float32_matmul_precision("highest")
        seen.append(matmul.allow_tf32)
        return seen
    same(scenario)
    same_error(lambda lib: lib.backends.cuda.matmul.foo)
    same_error(lambda lib: setattr(lib.backends.cuda.matmul, "foo", 1))
    same_error(lambda lib: lib.backends.mps.is_macos13_or_newer())


def test_deterministic_algorithms_switch():
    def scenario(lib):
        seen = [lib.are_deterministic_algorithms_enabled()]
        lib.use_deterministic_algorithms(True, warn_only=True)
        seen += [lib.are_deterministic_algorithms_enabled(),
                 lib.is_deterministic_algorithms_warn_only_enabled()]
        lib.use_deterministic_algorithms(False)
        return seen + [lib.are_deterministic_algorithms_enabled()]
    same(scenario)
    same_error(lambda lib: lib.use_deterministic_algorithms("x"))


# ---- device= in factories ----------------------------------------------------------------------

FACTORIES = {
    "tensor": lambda lib, **options: lib.tensor([1.0], **options),
    "as_tensor": lambda lib, **options: lib.as_tensor([1.0], **options),
    "as_tensor-tensor": lambda lib, **options: lib.as_tensor(lib.ones(1), **options),
    "zeros": lambda lib, **options: lib.zeros(2, **options),
    "ones": lambda lib, **options: lib.ones(2, **options),
    "empty": lambda lib, **options: lib.empty(2, **options).shape,
    "full": lambda lib, **options: lib.full((2,), 1.5, **options),
    "arange": lambda lib, **options: lib.arange(3, **options),
    "linspace": lambda lib, **options: lib.linspace(0, 1, 3, **options),
    "logspace": lambda lib, **options: lib.logspace(0, 1, 3, **options),
    "eye": lambda lib, **options: lib.eye(2, **options),
    "rand": lambda lib, **options: lib.rand(2, **options).shape,
    "randn": lambda lib, **options: lib.randn(2, **options).shape,
    "randint": lambda lib, **options: lib.randint(3, (2,), **options).shape,
    "randperm": lambda lib, **options: lib.randperm(3, **options).shape,
    "scalar_tensor": lambda lib, **options: lib.scalar_tensor(1, **options),
    "empty_strided": lambda lib, **options: lib.empty_strided((2,), (1,), **options).shape,
    "empty_permuted": lambda lib, **options: lib.empty_permuted((2,), (0,), **options).shape,
    "zeros_like": lambda lib, **options: lib.zeros_like(lib.ones(1), **options),
    "ones_like": lambda lib, **options: lib.ones_like(lib.ones(1), **options),
    "full_like": lambda lib, **options: lib.full_like(lib.ones(1), 2.0, **options),
    "empty_like": lambda lib, **options: lib.empty_like(lib.ones(1), **options).shape,
    "rand_like": lambda lib, **options: lib.rand_like(lib.ones(1), **options).shape,
    "randn_like": lambda lib, **options: lib.randn_like(lib.ones(1), **options).shape,
    "new_tensor": lambda lib, **options: lib.ones(1).new_tensor([2.0], **options),
    "new_zeros": lambda lib, **options: lib.ones(1).new_zeros(2, **options),
    "new_ones": lambda lib, **options: lib.ones(1).new_ones(2, **options),
    "new_full": lambda lib, **options: lib.ones(1).new_full((2,), 3.0, **options),
    "new_empty": lambda lib, **options: lib.ones(1).new_empty(2, **options).shape,
    "to": lambda lib, **options: lib.ones(1).to(options["device"]),
    "to-keyword": lambda lib, **options: lib.ones(1).to(**options),
}


def _first_line(result):
    kind, text = result
    return kind, text.split(" This could be")[0]  # torch goes on with its dispatcher's tables


@pytest.mark.parametrize("device", ["cpu", "cpu:0", "cpu:1", "cuda", "cuda:0", "cuda:1", 1,
                                    "mps", "xla", "banana"], ids=str)
@pytest.mark.parametrize("factory", FACTORIES)
def test_factory_device(factory, device):
    torch = torch_or_skip()
    make = FACTORIES[factory]
    ours = _first_line(outcome(lambda: make(tapegrad, device=device)))
    theirs = _first_line(outcome(lambda: make(torch, device=device)))
    assert ours == theirs


@pytest.mark.parametrize("factory", FACTORIES)
def test_factory_refuses_meta_clearly(factory):
    with pytest.raises(NotImplementedError, match="tapegrad has no meta tensors"):
        FACTORIES[factory](tapegrad, device="meta")


def test_factory_made_on_cpu_index_is_on_cpu():
    same(lambda lib: str(lib.zeros(2, device="cpu:1").device))
    same(lambda lib: str(lib.tensor([1.0], device=lib.device("cpu", 0)).device))


def test_device_checked_before_the_other_arguments():
    same_error(lambda lib: lib.zeros(-1, device="cuda"))
    same_error(lambda lib: lib.zeros(2, device="cuda", dtype=lib.int64, requires_grad=True))
    same_error(lambda lib: lib.tensor("a", device="cuda"))


def test_factory_device_of_the_wrong_type():
    with pytest.raises(TypeError, match="argument 'device' must be torch.device, not float"):
        tapegrad.zeros(2, device=1.5)


# ---- the default device ------------------------------------------------------------------------

def test_default_device_cpu_and_back():
    def scenario(lib):
        seen = [str(lib.get_default_device())]
        lib.set_default_device("cpu:1")
        seen += [str(lib.get_default_device()), str(lib.zeros(1).device)]
        lib.set_default_device(lib.device("cpu"))
        seen.append(str(lib.get_default_device()))
        lib.set_default_device(None)
        return seen + [str(lib.get_default_device())]
    same(scenario)


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "mps"])
def test_default_device_missing_refuses_every_factory(device):
    def scenario(lib):
        lib.set_default_device(device)
        return lib.get_default_device()
    same_outcome(scenario)

    def factory(lib):
        lib.set_default_device(device)
        return lib.tensor([1.0]) if device == "mps" else lib.zeros(1)
    same_error(factory)


def test_default_device_meta_is_reported_but_refused_by_factories():
    def scenario(lib):
        with lib.device("meta"):
            return str(lib.get_default_device())
    same(scenario)
    with tapegrad.device("meta"), pytest.raises(NotImplementedError, match="no meta tensors"):
        tapegrad.zeros(1)


def test_default_device_bad_values():
    same_error(lambda lib: lib.set_default_device("banana"))
    same_error(lambda lib: lib.set_default_device(1))
    same_error(lambda lib: lib.set_default_device(1.5))


def test_device_as_a_context_manager_sets_the_default():
    def scenario(lib):
        with lib.device("cpu") as d:
            inside = (str(d), str(lib.get_default_device()))
        with lib.device("cuda"):
            refused = outcome(lambda: lib.zeros(1))
        return inside, refused, str(lib.get_default_device())
    same(scenario)


# ---- Tensor.to, cuda, cpu and device queries ---------------------------------------------------

TO_CALLS = [
    ((), {}), (("cpu",), {}), ((None,), {}), (("cpu",), {"non_blocking": True}),
    (("cpu",), {"copy": True}), (("float64",), {}), (("cpu", "int32", False, True), {}),
    (("float64", True, True), {}), (("tensor-int32",), {}), ((), {"dtype": None}),
    ((), {"device": None, "dtype": "int64"}), ((), {"memory_format": "contiguous_format"}),
    (("cpu",), {"memory_format": "preserve_format"}),
    (("cpu", "float32"), {"memory_format": "channels_last"}),
    (("banana",), {}), (("float32", "float32"), {}), (("cpu", "cpu"), {}), ((), {"foo": 1}),
    (("cpu", 5), {}), (("float32", "x"), {}), (("cpu", None, "a"), {}), (("cpu",), {"foo": 2}),
    (("cuda",), {}), (("cuda:0", "float64"), {}), ((0,), {}), (("mps",), {}),
    (("xla",), {}), ((), {"device": "cuda"}),
]


def _resolved(lib, value):
    if value == "tensor-int32":
        return lib.ones(2, dtype=lib.int32)
    if value in ("float32", "float64", "int32", "int64", "contiguous_format",
                 "preserve_format", "channels_last"):
        return getattr(lib, value)
    return value


@pytest.mark.parametrize("args, kwargs", TO_CALLS, ids=repr)
def test_tensor_to_forms(args, kwargs):
    def scenario(lib):
        x = lib.ones(1)
        result = x.to(*(_resolved(lib, a) for a in args),
                      **{k: _resolved(lib, v) for k, v in kwargs.items()})
        return result, result is x
    same_outcome(scenario)


def test_tensor_to_channels_last_strides():
    same(lambda lib: lib.ones(1, 2, 3, 4).to(memory_format=lib.channels_last).stride())
    same(lambda lib: lib.empty(1, 2, 3, 4, memory_format=lib.channels_last).stride())
    same_error(lambda lib: lib.ones(2, 3).to(memory_format=lib.channels_last_3d))


def test_tensor_to_keeps_the_graph():
    same(lambda lib: type(lib.ones(2, requires_grad=True).to("cpu", lib.float64).grad_fn)
         .__name__)
    same(lambda lib: lib.ones(2, requires_grad=True).to("cpu").requires_grad)


@pytest.mark.parametrize("call", [
    lambda t: t.cuda(), lambda t: t.cuda(1), lambda t: t.cuda(-1), lambda t: t.cuda("cuda:0"),
    lambda t: t.cuda("cpu"), lambda t: t.cuda("banana"), lambda t: t.cuda(non_blocking=True),
    lambda t: t.cpu(), lambda t: (t.cpu() is t),
])
def test_tensor_cuda_and_cpu(call):
    same_outcome(lambda lib: call(lib.ones(1)))


def test_tensor_cpu_memory_format():
    same(lambda lib: lib.ones(1, 2, 1, 3).cpu(memory_format=lib.channels_last).stride())


def test_tensor_device_queries():
    same(lambda lib: (lambda t: (str(t.device), t.is_cpu, t.is_cuda, t.is_meta, t.is_mps,
                                 t.get_device()))(lib.ones(2)))


# ---- Tensor.type and type_as --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "bool", "complex64", "int64", "uint8", "float16"])
def test_tensor_type_names(dtype):
    same(lambda lib: lib.ones(1, dtype=getattr(lib, dtype)).type())


@pytest.mark.parametrize("target", [
    "torch.IntTensor", "torch.DoubleTensor", "torch.FloatTensor", "torch.cuda.IntTensor",
    "torch.int32", "int", "torch.FooTensor", "dtype:int32", "dtype:float32", "type:int", 3,
])
def test_tensor_type_conversion(target):
    def scenario(lib):
        x = lib.ones(1)
        if isinstance(target, str) and target.startswith("dtype:"):
            value = getattr(lib, target[6:])
        elif target == "type:int":
            value = int
        else:
            value = target
        result = x.type(value)
        return result, result is x
    same_outcome(scenario)


def test_tensor_type_keeps_the_graph_and_takes_non_blocking():
    same(lambda lib: type(lib.ones(1, requires_grad=True).type(lib.float64).grad_fn).__name__)
    same(lambda lib: repr(lib.ones(1).type(lib.float64, non_blocking=True)))


def test_tensor_type_as():
    same(lambda lib: repr(lib.ones(1).type_as(lib.ones(1, dtype=lib.int8))))
    same_error(lambda lib: lib.ones(1).type_as(1))


# ---- new_* methods and the new factories -------------------------------------------------------

NEW_CALLS = [
    lambda lib: lib.ones(1, dtype=lib.int32).new_tensor([1.0, 2.0]),
    lambda lib: lib.zeros(2).new_tensor([1, 2]),
    lambda lib: lib.ones(1).new_tensor([1.0], requires_grad=True),
    lambda lib: lib.ones(1, dtype=lib.int32).new_zeros((2, 3)),
    lambda lib: lib.ones(1, dtype=lib.int32).new_zeros(2, 3),
    lambda lib: lib.ones(1, dtype=lib.int32).new_zeros([2, 3], dtype=lib.float64),
    lambda lib: lib.ones(1).new_zeros(2, requires_grad=True),
    lambda lib: lib.ones(1).new_ones(size=(2,)),
    lambda lib: lib.ones(1, dtype=lib.int32).new_full((2,), 1.5),
    lambda lib: lib.ones(1, dtype=lib.int32).new_full(2, 1.5),
    lambda lib: lib.ones(1).new_empty(()).shape,
    lambda lib: lib.ones(1).new_empty_strided((2, 3), (1, 2)).stride(),
    lambda lib: lib.ones(1).new_zeros(2, device="cpu", pin_memory=False, layout=lib.strided),
]


@pytest.mark.parametrize("call", NEW_CALLS)
def test_new_methods(call):
    same_outcome(call)


def test_new_tensor_from_a_tensor_warns_as_torch():
    torch = torch_or_skip()
    with pytest.warns(UserWarning) as ours:
        tapegrad.ones(1).new_tensor(tapegrad.ones(2))
    with pytest.warns(UserWarning) as theirs:
        torch.ones(1).new_tensor(torch.ones(2))
    assert str(ours[0].message) == str(theirs[0].message)


FACTORY_CALLS = [
    lambda lib: lib.empty_strided((2, 3), (1, 2)).stride(),
    lambda lib: lib.empty_strided((2, 3), (1, 2), dtype=lib.int64, requires_grad=False).dtype,
    lambda lib: lib.empty_strided((2, 3), (1,)), lambda lib: lib.empty_strided((2, -3), (1, 2)),
    lambda lib: lib.empty_strided((2, 3), (1, -2)), lambda lib: lib.empty_strided(2, (1,)),
    lambda lib: lib.empty_permuted((2, 3, 4), (2, 0, 1)).stride(),
    lambda lib: lib.empty_permuted((2, 3), (0,)), lambda lib: lib.empty_permuted((2, 3), (0, 0)),
    lambda lib: lib.empty_permuted((2, 3), (0, 2)), lambda lib: lib.empty_permuted((2, 3), (1, -1)),
    lambda lib: lib.linspace(0, 1, -1), lambda lib: lib.linspace(lib.ones(2), 1, 3),
    lambda lib: lib.linspace(0, 1, 1), lambda lib: lib.linspace(0, 1, 0),
    lambda lib: lib.linspace(0, 1, 5, dtype=lib.bool),
    lambda lib: lib.linspace(1, 10, 4, dtype=lib.int8),
    lambda lib: lib.linspace(-2, -3, 3, dtype=lib.int64),
    lambda lib: lib.linspace(0, 3, 5, dtype=lib.int64),
    lambda lib: lib.linspace(0, 1, lib.tensor(3)),
    lambda lib: lib.linspace(lib.tensor(0.5, dtype=lib.float64), 3, 5).dtype,
    lambda lib: lib.logspace(0, 1, -1), lambda lib: lib.logspace(0, 2, 3, base=2),
    lambda lib: lib.logspace(0, 2, 3, 2, dtype=lib.int32),
    lambda lib: lib.logspace(0, 3, 5, dtype=lib.int64),
    lambda lib: lib.logspace(lib.tensor(1.5), 2, 3),
    lambda lib: lib.logspace(0, 2, 3, lib.tensor(2.0)),
    lambda lib: lib.full(2, 1.0), lambda lib: lib.full((2,), True),
    lambda lib: lib.full((2,), 1.5, dtype=lib.int32), lambda lib: lib.scalar_tensor(True),
    lambda lib: lib.eye(-1), lambda lib: lib.eye(2, -1),
    lambda lib: lib.eye(2, 3, dtype=lib.int32),
    lambda lib: lib.zeros(2, layout=lib.strided, pin_memory=False),
    lambda lib: lib.empty_like(lib.ones(2, 3).t()).stride(),
    lambda lib: lib.zeros_like(lib.ones(2, 3).t()).stride(),
    lambda lib: lib.zeros_like(lib.ones(2, 3).t(), memory_format=lib.contiguous_format).stride(),
    lambda lib: lib.fill(lib.ones(2), lib.ones(2)),
    lambda lib: lib.fill(lib.ones(2, dtype=lib.int32), 2.7),
]


@pytest.mark.parametrize("call", FACTORY_CALLS)
def test_factory_values_and_errors(call):
    same_outcome(call)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linspace_values_are_torchs_to_the_bit(dtype):
    torch = torch_or_skip()
    rng = np.random.default_rng(0)
    for _ in range(200):
        start, end = rng.uniform(-10, 10, 2)
        steps = int(rng.integers(1, 100))
        ours = tapegrad.linspace(start, end, steps, dtype=getattr(tapegrad, dtype)).numpy()
        theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
        np.testing.assert_array_equal(ours, theirs)


def test_factory_out_argument():
    same(lambda lib: repr(lib.zeros(2, 3, out=lib.empty(0))))
    same(lambda lib: repr(lib.arange(4, out=lib.empty(0, dtype=lib.int64))))


# ---- the tutorial opening ----------------------------------------------------------------------

TUTORIAL = textwrap.dedent("""
    device = (torch.accelerator.current_accelerator().type
              if torch.accelerator.is_available() else "cpu")
    print(f"Using {device} device")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"Using {device} device")
    torch.set_default_device(device)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    model = model.to(device)
    print(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.ones(3, 4).to(device)
    y = torch.tensor([0, 1, 1], device=device)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(x.device, y.device, next(model.parameters()).device, loss.dtype, loss.shape)
    print(torch.get_default_device(), model[0].weight.grad.shape, model.cpu() is model)
""")


def _printed(lib):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(TUTORIAL, {"torch": lib})
    return out.getvalue()


def test_tutorial_opening_prints_what_torch_prints():
    torch = torch_or_skip()
    assert _printed(tapegrad) == _printed(torch)


def test_module_to_cuda_is_refused_as_torch():
    same_error(lambda lib: lib.nn.Linear(2, 3).to("cuda"))
    same_error(lambda lib: lib.nn.Linear(2, 3).cuda())
    same_error(lambda lib: lib.nn.Linear(2, 3).cuda(1))
    same_error(lambda lib: lib.nn.Linear(2, 3).to("mps"))
    same_error(lambda lib: lib.nn.Linear(2, 3).to("banana"))
    same_error(lambda lib: lib.nn.Linear(2, 3).to(lib.int32))
    same_error(lambda lib: lib.nn.Linear(2, 3).to(lib.float64, copy=True))
    same_error(lambda lib: lib.nn.Linear(2, 3).to("cpu", "cpu"))


def test_module_to_device_and_dtype():
    same(lambda lib: str(lib.nn.Linear(2, 3).to("cpu", lib.float64, True).weight.dtype))
    same(lambda lib: str(lib.nn.Linear(2, 3).to(lib.ones(1, dtype=lib.float64)).weight.dtype))
    same(lambda lib: repr(lib.nn.Linear(2, 3).to(device="cpu", non_blocking=True)))
    same(lambda lib: repr(lib.nn.Module().to("cuda")))
    same(lambda lib: lib.nn.Conv2d(2, 3, 1).to(memory_format=lib.channels_last).weight.stride())


@pytest.mark.parametrize("device", ["cpu", "cpu:1", "cuda", "mps", "xla", "meta", "hip", 0],
                         ids=str)
def test_generator_device(device):
    same_outcome(lambda lib: lib.Generator(device=device).device)


@pytest.mark.parametrize("factory", [name for name in FACTORIES
                                     if not name.startswith(("to", "as_"))])
def test_factory_refuses_pinned_memory(factory):
    same_error(lambda lib: FACTORIES[factory](lib, pin_memory=True))


def test_pinned_memory_queries():
    same(lambda lib: (lib.ones(1).is_pinned(), repr(lib.ones(1).layout)))
    same_error(lambda lib: lib.ones(1).pin_memory())


def test_module_type_takes_tensor_type_names():
    same(lambda lib: str(lib.nn.Linear(2, 3).type("torch.DoubleTensor").weight.dtype))
    same(lambda lib: str(lib.nn.Linear(2, 3).type(lib.float64).bias.dtype))


@pytest.mark.parametrize("call", [
    "is_available", "current_accelerator", "device_count", "current_device_index",
    "set_device_index", "synchronize", "current_stream", "empty_cache", "memory_allocated",
    "memory_stats", "max_memory_allocated", "memory_reserved", "reset_peak_memory_stats",
    "get_memory_info", "get_device_capability",
])
def test_accelerator_function_matches_torch(call):
    arguments = (0,) if call == "set_device_index" else ()
    same_outcome(lambda lib: getattr(lib.accelerator, call)(*arguments))


@pytest.mark.parametrize("index", [0, None])
def test_accelerator_device_index_context(index):
    def scenario(lib):
        with lib.accelerator.device_index(index):
            return "entered"
    same_outcome(scenario)


def test_accelerator_tutorial_opening():
    same(lambda lib: lib.accelerator.current_accelerator().type
         if lib.accelerator.is_available() else "cpu")


# ---- legacy constructors and type objects ------------------------------------------------------

LEGACY_CALLS = [
    lambda lib: lib.FloatTensor(2, 3).shape, lambda lib: lib.FloatTensor([1, 2]),
    lambda lib: lib.LongTensor([1.5, 2]), lambda lib: lib.FloatTensor(),
    lambda lib: lib.FloatTensor((2, 3)), lambda lib: lib.FloatTensor(lib.Size([2, 3])).shape,
    lambda lib: lib.FloatTensor(lib.ones(2)), lambda lib: lib.FloatTensor(2.5),
    lambda lib: lib.FloatTensor(2, device="cpu").shape, lambda lib: lib.FloatTensor(-1),
    lambda lib: lib.FloatTensor("a"), lambda lib: lib.FloatTensor(np.ones(2)),
    lambda lib: lib.FloatTensor(lib.ones(2, dtype=lib.float64)),
    lambda lib: lib.FloatTensor(lib.ones(1, dtype=lib.int32)),
    lambda lib: lib.FloatTensor(2, device="cuda"),
    lambda lib: (isinstance(lib.ones(1), lib.FloatTensor),
                 isinstance(lib.ones(1, dtype=lib.int64), lib.FloatTensor),
                 isinstance(lib.ones(1), lib.cuda.FloatTensor),
                 issubclass(lib.FloatTensor, lib.Tensor), lib.FloatTensor.dtype),
    lambda lib: (lib.BoolTensor([True]), lib.HalfTensor([1]), lib.CharTensor([1]),
                 lib.ShortTensor([1]), lib.IntTensor([1]), lib.ByteTensor([1])),
    lambda lib: lib.cuda.FloatTensor(2), lambda lib: lib.ones(1).type(lib.DoubleTensor),
    lambda lib: lib.ones(1).type(lib.cuda.FloatTensor),
    lambda lib: lib.Tensor(2, 3).shape, lambda lib: lib.Tensor([1, 2]), lambda lib: lib.Tensor(),
    lambda lib: lib.Tensor(lib.ones(1, dtype=lib.int64)), lambda lib: lib.Tensor(2, device="cuda"),
]


@pytest.mark.parametrize("call", LEGACY_CALLS)
def test_legacy_constructors_and_types(call):
    torch = torch_or_skip()

    def shown(lib):
        kind, text = outcome(lambda: call(lib))
        return kind, text.split("\n      didn't match")[0].split("\n * (torch.Storage")[0]
    assert shown(tapegrad) == shown(torch)


def test_legacy_type_names():
    same(lambda lib: (repr(lib.FloatTensor), repr(lib.cuda.LongTensor)))


def test_legacy_types_pickle_without_torch():
    assert pickle.loads(pickle.dumps(tapegrad.FloatTensor)) is tapegrad.FloatTensor
    assert pickle.loads(pickle.dumps(tapegrad.cuda.IntTensor)) is tapegrad.cuda.IntTensor
