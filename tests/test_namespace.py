"""torch names outside the op families (ops/namespace.py), each against torch: predicates,
asarray, index helpers, deprecated spellings with their warnings, torch-level losses and pools,
process settings, and Tensor attributes; values, dtypes, grad_fn names and error texts."""
import warnings

import numpy as np
import pytest

import tapegrad
from compare import error_of, same, same_error, torch_or_skip

_NAMES = "is_sparse is_sparse_csr is_quantized is_nested is_mkldnn is_xpu is_ipu is_xla " \
         "is_vulkan is_mtia is_maia".split()


def described(result):
    """A comparable picture of a result: nested lists of (dtype, values, grad_fn name)."""
    if isinstance(result, (tuple, list)):
        return [described(item) for item in result]
    if hasattr(result, "dtype") and hasattr(result, "grad_fn"):
        node = None if result.grad_fn is None else type(result.grad_fn).__name__
        return (str(result.dtype), result.requires_grad, node,
                np.round(result.detach().numpy().astype(np.float64), 10).tolist())
    return result


def same_result(scenario):
    same(lambda lib: described(scenario(lib)))


def warnings_of(scenario, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scenario(lib)
    # torch names the C++ line that warned; tapegrad has none to name
    return [(w.category.__name__, str(w.message).split(" (Triggered internally at")[0])
            for w in caught]


def matrix(lib, *shape, seed=0, requires_grad=True, dtype="float64"):
    values = np.random.default_rng(seed).uniform(-2, 2, shape)
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=requires_grad)


# ---- predicates -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int64", "uint8",
                                   "bool", "complex64"])
def test_dtype_predicates(dtype):
    same(lambda lib: (lib.is_signed(lib.ones(2, dtype=getattr(lib, dtype))),
                      lib.ones(2, dtype=getattr(lib, dtype)).is_signed(),
                      lib.is_complex(lib.ones(2, dtype=getattr(lib, dtype))),
                      lib.ones(2, dtype=getattr(lib, dtype)).itemsize,
                      lib.ones(2, 3, dtype=getattr(lib, dtype)).nbytes))


def test_tensor_predicates():
    same(lambda lib: (lib.is_nonzero(lib.tensor([0.0])), lib.is_nonzero(lib.tensor(float("nan"))),
                      lib.tensor([[3]]).is_nonzero(), lib.is_same_size(lib.ones(2), lib.ones(2)),
                      lib.ones(2).is_same_size(lib.ones(1, 2)), lib.get_device(lib.ones(1)),
                      lib.is_inference(lib.ones(1)), lib.ones(2, 3).ndimension(),
                      lib.ones(2, 3)[:, :2].nbytes, lib.ones(3).expand(2, 3).nbytes,
                      [getattr(lib.ones(1), name) for name in _NAMES]))


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.is_nonzero(lib.ones(2)),
    lambda lib: lib.is_nonzero(lib.ones(0)),
    lambda lib: lib.is_nonzero(1),
    lambda lib: lib.is_same_size(lib.ones(1), 1),
    lambda lib: lib.ones(1).is_same_size(1),
    lambda lib: lib.is_signed(1),
    lambda lib: lib.is_complex(1.0),
    lambda lib: lib.get_device(1),
    lambda lib: lib.detach([1.0]),
])
def test_predicate_errors(scenario):
    same_error(scenario)


def test_detach_functions():
    same_result(lambda lib: (lib.detach(matrix(lib, 2)),
                             lib.detach_(matrix(lib, 2) * 2),
                             lib.fill_(matrix(lib, 2) * 1, 3.0),
                             lib.fill_(matrix(lib, 2) * 1, lib.tensor(3.0))))


@pytest.mark.parametrize("pair", [("float32", "int32"), ("int32", "float32"), ("bool", "uint8"),
                                  ("uint8", "int8"), ("int64", "uint8"), ("int8", "bool"),
                                  ("complex64", "float64"), ("float64", "float16"),
                                  ("float64", "complex64"), ("bool", "bool")])
def test_can_cast(pair):
    same(lambda lib: lib.can_cast(getattr(lib, pair[0]), getattr(lib, pair[1])))


def test_can_cast_errors():
    same_error(lambda lib: lib.can_cast(lib.float32, 1))
    same_error(lambda lib: lib.can_cast("float32", lib.int8))


def test_typename():
    same(lambda lib: [lib.typename(x) for x in (
        lib.ones(1), lib.ones(1, dtype=lib.int64), 1, "s", lib.float32, lib.device("cpu"),
        lib.Size([1]), len, [1], None)])
    # tapegrad's classes keep their own modules, laid out as torch's
    assert tapegrad.typename(tapegrad.nn.Linear) == "tapegrad.nn.modules.linear.Linear"


def test_is_storage():
    same(lambda lib: (lib.is_storage(lib.ones(1)), lib.is_storage(1),
                      lib.is_storage(lib.ones(2).untyped_storage()),
                      lib.is_storage(lib.ones(2)[1:].storage())))


# ---- asarray --------------------------------------------------------------------------------

@pytest.mark.parametrize("scenario", [
    lambda lib: lib.asarray(matrix(lib, 2), requires_grad=False),
    lambda lib: lib.asarray(matrix(lib, 2), copy=True),
    lambda lib: lib.asarray(matrix(lib, 2), dtype=lib.float32),
    lambda lib: lib.asarray(matrix(lib, 2, requires_grad=False), requires_grad=True),
    lambda lib: lib.asarray([1, 2]),
    lambda lib: lib.asarray([1.5, 2]),
    lambda lib: lib.asarray(3.0),
    lambda lib: lib.asarray(np.array([1, 2])),
    lambda lib: lib.asarray(np.array([1.0, 2.0]), dtype=lib.float32),
    lambda lib: lib.asarray(np.ones(2), requires_grad=True),
    lambda lib: lib.asarray([lib.tensor(1.0), lib.tensor(2.0)]),
    lambda lib: lib.asarray([1], device="cpu"),
])
def test_asarray(scenario):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_result(scenario)


def test_asarray_aliases():
    def scenario(lib):
        x = matrix(lib, 2, requires_grad=False)
        array = np.zeros(2)
        lib.asarray(array)[0] = 5.0
        return lib.asarray(x) is x, array.tolist(), lib.asarray(x, copy=True) is x
    same(scenario)


def test_asarray_warns_once_about_requires_grad():
    def scenario(lib):
        def call(lib):
            return lib.asarray(matrix(lib, 2))
        warnings_of(call, lib)  # the process's first warning may have been given already
        again = warnings_of(call, lib)
        lib.set_warn_always(True)
        try:
            always = warnings_of(call, lib)
        finally:
            lib.set_warn_always(False)
        unneeded = warnings_of(lambda lib: lib.asarray(matrix(lib, 2, requires_grad=False)), lib)
        return again, always, unneeded
    same(scenario)


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.asarray(lib.ones(2), dtype=lib.float64, copy=False),
    lambda lib: lib.asarray(np.ones(2), dtype=lib.float32, copy=False),
    lambda lib: lib.asarray([1, 2], copy=False),
    lambda lib: lib.asarray([1, 2], requires_grad=True),
    lambda lib: lib.asarray("abc"),
])
def test_asarray_errors(scenario):
    same_error(scenario)


# ---- index helpers --------------------------------------------------------------------------

@pytest.mark.parametrize("args", [(3, 4, 1), (4, 3, -1), (3, 3), (0, 3), (3, 3, 10),
                                  (3, 3, -10), (1, 5, 2), (5, 1, -2)])
def test_triangle_indices(args):
    same_result(lambda lib: (lib.tril_indices(*args), lib.triu_indices(*args),
                             lib.tril_indices(*args, dtype=lib.int32)))


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.tril_indices(-1, 3),
    lambda lib: lib.triu_indices(3, -2),
    lambda lib: lib.tril_indices(3, 3, dtype=lib.float32),
    lambda lib: lib.triu_indices(3, 3, dtype=lib.bool),
    lambda lib: lib.tril_indices(3.0, 3),
    lambda lib: lib.triu_indices(3, 3, 1.5),
])
def test_triangle_index_errors(scenario):
    same_error(scenario)


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.unravel_index(lib.tensor([4, 1, 5]), (2, 3)),
    lambda lib: lib.unravel_index(lib.tensor(4), (2, 3)),
    lambda lib: lib.unravel_index(lib.tensor([[6, -1], [0, 23]]), (2, 3, 4)),
    lambda lib: lib.unravel_index(lib.tensor([1], dtype=lib.int32), [2, 3]),
    lambda lib: lib.unravel_index(lib.tensor(2), 3),
    lambda lib: lib.unravel_index(lib.tensor(0), ()),
])
def test_unravel_index(scenario):
    same_result(scenario)


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.unravel_index(4, (2, 3)),
    lambda lib: lib.unravel_index(lib.tensor(4.0), (2, 3)),
    lambda lib: lib.unravel_index(lib.tensor([True]), (2, 3)),
    lambda lib: lib.unravel_index(lib.tensor(1), (-2, 3)),
    lambda lib: lib.unravel_index(lib.tensor(1), (2.0, 3)),
    lambda lib: lib.unravel_index(lib.tensor(1), 2.5),
])
def test_unravel_index_errors(scenario):
    same_error(scenario)


# ---- deprecated spellings -------------------------------------------------------------------

@pytest.mark.parametrize("shapes", [[(2, 3)], [(2, 3), (3, 4)], [(2, 3), (3, 4), (4, 1)],
                                    [(5, 1), (1, 5), (5, 2)], [(2, 2), (2, 2), (2, 2)],
                                    [(3, 4), (4, 2), (2, 5), (5, 1), (1, 3)]])
def test_chain_matmul(shapes):
    def scenario(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            matrices = [matrix(lib, *shape, seed=i) for i, shape in enumerate(shapes)]
            result = lib.chain_matmul(*matrices)
        result.sum().backward()
        return result, [m.grad for m in matrices]
    same_result(scenario)


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.chain_matmul(),
    lambda lib: lib.chain_matmul(lib.ones(2, 2, 2)),
    lambda lib: lib.chain_matmul(lib.ones(2), lib.ones(2)),
    lambda lib: lib.chain_matmul(lib.ones(2, 3), lib.ones(2, 3)),
    lambda lib: lib.chain_matmul(lib.ones(2, 3), lib.ones(3, 3, dtype=lib.float64)),
])
def test_chain_matmul_errors(scenario):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(scenario)


def test_chain_matmul_of_integers():
    same_result(lambda lib: lib.chain_matmul(lib.ones(2, 3, dtype=lib.int64),
                                             lib.ones(3, 2, dtype=lib.int64)))


@pytest.mark.parametrize("dim", [(0, 1), 1, (), [-1, 0], (2,)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_frobenius_norm(dim, keepdim):
    def scenario(lib):
        x = matrix(lib, 2, 3, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = lib.frobenius_norm(x, dim, keepdim)
        result.sum().backward()
        return result, x.grad
    same_result(scenario)


@pytest.mark.parametrize("call", [lambda lib, x: lib.nuclear_norm(x),
                                  lambda lib, x: lib.nuclear_norm(x, True),
                                  lambda lib, x: lib.nuclear_norm(x, (0, 2)),
                                  lambda lib, x: lib.nuclear_norm(x, [2, 1], keepdim=True),
                                  lambda lib, x: lib.nuclear_norm(x[0], keepdim=False)])
def test_nuclear_norm(call):
    def scenario(lib):
        x = matrix(lib, 2, 3, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call(lib, x)
        result.sum().backward()
        return result, x.grad
    same_result(scenario)


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.frobenius_norm(lib.ones(2, 2, 2), (0, 1, 2)),
    lambda lib: lib.frobenius_norm(lib.ones(2, 2), (1, 1)),
    lambda lib: lib.frobenius_norm(lib.ones(2, 2, dtype=lib.int64), (0, 1)),
    lambda lib: lib.nuclear_norm(lib.ones(3)),
    lambda lib: lib.nuclear_norm(lib.ones(2, 2, dtype=lib.int64)),
    lambda lib: lib.nuclear_norm(lib.ones(2, 2, 2), (0,)),
])
def test_norm_errors(scenario):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(scenario)


def test_deprecations_warn_once_unless_warn_always():
    def scenario(lib):
        calls = [lambda: lib.chain_matmul(lib.ones(2, 2)),
                 lambda: lib.frobenius_norm(lib.ones(2, 2), (0, 1)),
                 lambda: lib.nuclear_norm(lib.ones(2, 2))]
        for call in calls:  # the first warnings of the process may have been given already
            warnings_of(lambda lib: call(), lib)
        again = [warnings_of(lambda lib: call(), lib) for call in calls]
        lib.set_warn_always(True)
        try:
            always = [warnings_of(lambda lib: call(), lib) for call in calls]
        finally:
            lib.set_warn_always(False)
        return again, always, lib.is_warn_always_enabled()
    same(scenario)


@pytest.mark.parametrize("args", [(1, 4), (1, 2, 0.5), (3, 0, -1), (0, 1, 0.3), (-1.5, 2),
                                  (2, 2)])
def test_range(args):
    same(lambda lib: warnings_of(lambda lib: lib.range(*args), lib))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_result(lambda lib: (lib.range(*args), lib.range(*args, dtype=lib.float64),
                                 lib.range(*args, requires_grad=True)))


def test_range_of_integers():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_result(lambda lib: lib.range(0, 3, dtype=lib.int64))


@pytest.mark.parametrize("args", [(3, 0), (0, 3, 0), (0, 3, -1)])
def test_range_errors(args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda lib: lib.range(*args))


def test_set_default_tensor_type():
    def scenario(lib):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lib.set_default_tensor_type(lib.DoubleTensor)
                first = str(lib.get_default_dtype()), str(lib.tensor([1.0]).dtype)
                lib.set_default_tensor_type("torch.HalfTensor")
                second = str(lib.get_default_dtype())
                lib.set_default_tensor_type("torch.FloatTensor")
            return first, second, str(lib.get_default_dtype())
        finally:
            lib.set_default_dtype(lib.float32)
    same(scenario)


@pytest.mark.parametrize("value", ["LongTensor", "torch.IntTensor", "torch.Foo", "Foo",
                                   "float64", "torch.cuda.FloatTensor", 1])
def test_set_default_tensor_type_errors(value):
    def scenario(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if value in ("LongTensor", "float64"):
                return lib.set_default_tensor_type(getattr(lib, value))
            return lib.set_default_tensor_type(value)
    same_error(scenario)
    assert tapegrad.get_default_dtype() is tapegrad.float32


# ---- process settings -----------------------------------------------------------------------

def test_num_threads_round_trip():
    before = tapegrad.get_num_threads()
    assert before == 1  # tapegrad computes on one thread
    tapegrad.set_num_threads(3)
    try:
        assert tapegrad.get_num_threads() == 3
    finally:
        tapegrad.set_num_threads(before)
    assert isinstance(tapegrad.get_num_interop_threads(), int)


@pytest.mark.parametrize("value", [0, -1, 2.0, "2", True])
@pytest.mark.parametrize("name", ["set_num_threads", "set_num_interop_threads"])
def test_thread_count_errors(name, value):
    same_error(lambda lib: getattr(lib, name)(value))


@pytest.mark.parametrize("scenario", [lambda lib: lib.set_warn_always(1),
                                      lambda lib: lib.set_flush_denormal(1),
                                      lambda lib: lib.set_flush_denormal("a")])
def test_setting_errors(scenario):
    same_error(scenario)


def test_flush_denormal_is_not_available():
    # NumPy keeps denormals: keeping them succeeds, flushing them is refused
    assert tapegrad.set_flush_denormal(False) is True
    assert tapegrad.set_flush_denormal(True) is False
    assert tapegrad.tensor([1e-320], dtype=tapegrad.float64).item() != 0


def test_compile_is_a_pass_through():
    def function(x):
        return x * 2
    module = tapegrad.nn.Linear(2, 2)
    assert tapegrad.compile(function) is function
    assert tapegrad.compile(module, backend="eager") is module
    assert tapegrad.compile(mode="reduce-overhead")(function) is function
    same_error(lambda lib: lib.compile(function, mode="default", options={}))


# ---- torch-level losses and pools -----------------------------------------------------------

def _loss_inputs(lib):
    x = matrix(lib, 3, 4, seed=1)
    y = matrix(lib, 3, 4, seed=2, requires_grad=False)
    return x, y, lib.tensor([1.0, -1.0, 1.0])


@pytest.mark.parametrize("call", [
    lambda lib, x, y, s: lib.kl_div(x, y.abs()),
    lambda lib, x, y, s: lib.kl_div(x, y.abs(), 1),
    lambda lib, x, y, s: lib.kl_div(x, y, 2, log_target=True),
    lambda lib, x, y, s: lib.binary_cross_entropy_with_logits(x, y.sigmoid()),
    lambda lib, x, y, s: lib.binary_cross_entropy_with_logits(x, y.sigmoid(), y.abs(),
                                                              y[0].abs(), 1),
    lambda lib, x, y, s: lib.hinge_embedding_loss(x, y.sign()),
    lambda lib, x, y, s: lib.hinge_embedding_loss(x, y.sign(), 0.5, 2),
    lambda lib, x, y, s: lib.margin_ranking_loss(x[0], y[0], s.repeat(2)[:4]),
    lambda lib, x, y, s: lib.margin_ranking_loss(x[0], y[0], s.repeat(2)[:4], 0.3, 1),
    lambda lib, x, y, s: lib.cosine_embedding_loss(x, y, s),
    lambda lib, x, y, s: lib.cosine_embedding_loss(x, y, s, 0.2, 2),
    lambda lib, x, y, s: lib.poisson_nll_loss(x, y.abs(), True, False, 1e-8, 1),
    lambda lib, x, y, s: lib.poisson_nll_loss(x.abs(), y.abs(), False, True, 1e-8, 0),
    lambda lib, x, y, s: lib.triplet_margin_loss(x, y, y * 2),
    lambda lib, x, y, s: lib.triplet_margin_loss(x, y, y * 2, 0.5, 1, 1e-6, True, 1),
    lambda lib, x, y, s: lib.kl_div(x, y.abs(), 7),
    lambda lib, x, y, s: lib.embedding(x, lib.tensor([2, 0, 2])),
    lambda lib, x, y, s: lib.embedding(x, lib.tensor([[2, 0], [1, 2]]), 0),
    lambda lib, x, y, s: lib.adaptive_max_pool1d(x[None], 3),
    lambda lib, x, y, s: lib.adaptive_max_pool1d(x, [2]),
    lambda lib, x, y, s: lib.max_pool1d_with_indices(x[None], 2),
    lambda lib, x, y, s: lib.max_pool1d_with_indices(x, 2, 1, 1, 1, True),
])
def test_torch_level_losses_and_pools(call):
    def scenario(lib):
        x, y, s = _loss_inputs(lib)
        result = call(lib, x, y, s)
        first = result[0] if isinstance(result, tuple) else result
        first.sum().backward()
        return result, x.grad
    same_result(scenario)


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.kl_div(lib.ones(2), lib.ones(2), "mean"),
    lambda lib: lib.hinge_embedding_loss(lib.ones(2), lib.ones(2), 1.0, 1.0),
    lambda lib: lib.triplet_margin_loss(lib.ones(2), lib.ones(2), lib.ones(2), 1.0, 2, 1e-6,
                                        False, "sum"),
])
def test_reduction_must_be_an_int(scenario):
    same_error(scenario)


def test_native_dropout_deterministic_cases():
    def scenario(lib):
        x = matrix(lib, 3, 4)
        out = [lib.native_dropout(x, 0.3, False), lib.native_dropout(x, 0.0, True),
               lib.native_dropout(x, 1.0, True)]
        sum(o[0].sum() for o in out).backward()
        return out, x.grad
    same_result(scenario)


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.native_dropout(lib.ones(2), 1.5, True),
    lambda lib: lib.native_dropout(lib.ones(2), -0.5, None),
    lambda lib: lib.native_dropout(lib.ones(2, dtype=lib.int64), 0.5, True),
    lambda lib: lib.native_dropout(lib.ones(2), 0.5, 1),
    lambda lib: lib.native_dropout([1.0], 0.5, True),
])
def test_native_dropout_errors(scenario):
    same_error(scenario)


def test_native_dropout_keeps_and_scales():
    tapegrad.manual_seed(0)
    x = tapegrad.ones(200, 50, requires_grad=True)
    out, mask = tapegrad.native_dropout(x, 0.25, None)
    assert mask.dtype is tapegrad.bool and type(out.grad_fn).__name__ == "NativeDropoutBackward0"
    assert 0.7 < mask.float().mean().item() < 0.8
    assert np.allclose(out.detach().numpy(), mask.numpy() / 0.75)
    out.sum().backward()
    assert np.allclose(x.grad.numpy(), mask.numpy() / 0.75)


# ---- Tensor methods -------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda lib, x: x.fill_diagonal_(5.0),
    lambda lib, x: x[:, :3].fill_diagonal_(lib.tensor(2.0)),
    lambda lib, x: x.t()[:6].fill_diagonal_(1.0),
    lambda lib, x: x.reshape(7, 2).fill_diagonal_(-1.0, wrap=True),
    lambda lib, x: x.reshape(7, 2).fill_diagonal_(-1.0),
    lambda lib, x: x[:, :6].reshape(4, 3).fill_diagonal_(3.0, True),
    lambda lib, x: x[:, :4].reshape(2, 2, 2).fill_diagonal_(4.0),
])
def test_fill_diagonal(call):
    def scenario(lib):
        leaf = matrix(lib, 2, 7)
        x = leaf * 1
        result = call(lib, x)
        (result * matrix(lib, *result.shape, seed=3, requires_grad=False)).sum().backward()
        return result, x, leaf.grad
    same_result(scenario)


def test_fill_diagonal_of_integers():
    same_result(lambda lib: lib.zeros(2, 2, dtype=lib.int64).fill_diagonal_(2.7))


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.zeros(2).fill_diagonal_(1.0),
    lambda lib: lib.zeros(2, 2, 3).fill_diagonal_(1.0),
    lambda lib: lib.zeros(2, 2, requires_grad=True).fill_diagonal_(1.0),
])
def test_fill_diagonal_errors(scenario):
    same_error(scenario)


@pytest.mark.parametrize("call", [
    lambda lib, x: x.new().shape, lambda lib, x: x.new(2, 3).shape,
    lambda lib, x: x.new([1, 2]), lambda lib, x: x.new((1, 2)),
    lambda lib, x: x.new(np.ones(2)), lambda lib, x: x.new(lib.Size([2])).shape,
    lambda lib, x: x.new(2, device="cpu").shape,
    lambda lib, x: x.int().new([1.7]),
])
def test_new(call):
    same_result(lambda lib: call(lib, lib.ones(2, 3)))


@pytest.mark.parametrize("call", [
    lambda lib, x: x.new(lib.tensor([1, 2])),
])
def test_new_errors(call):
    same_error(lambda lib: call(lib, lib.ones(2)))


@pytest.mark.parametrize("view", [
    lambda x: x, lambda x: x.transpose(0, 1), lambda x: x.permute(2, 0, 1), lambda x: x[:1],
    lambda x: x[:, :1].transpose(0, 1), lambda x: x.permute(1, 0, 2)[:, :, ::2],
    lambda x: x[0, 0], lambda x: x[0, 0, 0], lambda x: x[0].expand(3, 3, 4),
    lambda x: x.transpose(0, 2)[:1], lambda x: x.reshape(6, 4)[::2].t(),
])
def test_dim_order(view):
    same(lambda lib: view(lib.ones(2, 3, 4)).dim_order())


@pytest.mark.parametrize("check", [True, [], "formats"])
@pytest.mark.parametrize("shape", [(2, 3), (1, 3), (2, 1, 3, 4)])
def test_dim_order_ambiguity(check, shape):
    def scenario(lib):
        formats = [lib.contiguous_format] if check == "formats" else check
        return lib.ones(*shape).dim_order(ambiguity_check=formats)
    torch = torch_or_skip()
    outcomes = []
    for lib in (tapegrad, torch):
        try:
            outcomes.append(scenario(lib))
        except Exception:  # noqa: BLE001 - compared below
            outcomes.append(error_of(lambda: scenario(lib)))
    assert outcomes[0] == outcomes[1]


def test_dim_order_argument_check():
    same_error(lambda lib: lib.ones(2).dim_order(ambiguity_check=1))
    same_error(lambda lib: lib.ones(2).dim_order(ambiguity_check=[1]))


@pytest.mark.parametrize("call", [
    lambda lib: lib.arange(4.0).apply_(lambda v: v * 2),
    lambda lib: lib.arange(4).apply_(lambda v: int(type(v) is int)),
    lambda lib: lib.arange(4).apply_(lambda v: v + 0.7),
    lambda lib: lib.tensor([True, False]).apply_(lambda v: not v),
    lambda lib: lib.arange(2.0).apply_(lambda v: lib.tensor(3.0)),
    lambda lib: lib.arange(6.0).reshape(2, 3).t().apply_(lambda v: v ** 2),
    lambda lib: lib.arange(4.0).map_(lib.ones(4), lambda a, b: a + b),
    lambda lib: lib.zeros(2, 2).map_(lib.tensor([1.0, 2.0]), lambda a, b: a - b),
])
def test_apply_and_map(call):
    same_result(call)


def test_apply_writes_through_views():
    def scenario(lib):
        x = lib.arange(6.0).reshape(2, 3)
        version = x._version
        x[:, 1].apply_(lambda v: -v)
        return x, x._version - version
    same_result(scenario)


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.arange(4.0).apply_(lambda v: None),
    lambda lib: lib.arange(4.0).apply_(lambda v: "1"),
    lambda lib: lib.arange(4.0, requires_grad=True).apply_(lambda v: v),
    lambda lib: (lib.arange(4.0, requires_grad=True) * 1).apply_(lambda v: v),
    lambda lib: lib.arange(4.0).apply_(1),
    lambda lib: lib.arange(2.0).apply_(lambda v: 1 / 0),
    lambda lib: lib.zeros(2).map_(lib.ones(2, 2), lambda a, b: a + b),
    lambda lib: lib.zeros(2).map_(lib.ones(2, dtype=lib.int64), lambda a, b: a + b),
    lambda lib: lib.zeros(2, requires_grad=True).map_(lib.ones(2), lambda a, b: a + b),
    lambda lib: lib.zeros(2).map_(1, lambda a, b: a + b),
    lambda lib: lib.zeros(2).map_(lib.ones(2, requires_grad=True), lambda a, b: a + b),
])
def test_apply_and_map_errors(scenario):
    same_error(scenario)


def test_shared_memory():
    same(lambda lib: (lib.ones(2).is_shared(), lib.ones(2).share_memory_().is_shared()))
    x = tapegrad.ones(2)
    assert x.share_memory_() is x
