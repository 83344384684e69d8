"""Names ordinary PyTorch scripts reach for outside the op families: tensor predicates
(is_signed, is_nonzero, ...), torch.asarray, index helpers (tril_indices, unravel_index), the
deprecated spellings torch still keeps (chain_matmul, frobenius_norm, range, ...), the
torch-level losses and pools (positional arguments, reduction as an int), process settings
(threads, warn_always) and Tensor attributes about storage and backends."""
import builtins
import importlib
import math
import warnings

import numpy as np

from .. import _backend, _creation, _dtype
from .._layout import channels_last as channels_last_format, memory_format
from .._tensor import Size, Tensor, device
from ._define import defop
from ._inplace import fill_
from .decomposition import matrix_norm
from .pointwise import require_tensors
from .reduction import aten_norm, reduced_dims
from .shape import constant_beside
from .._warnings import warn

# ---- warnings torch gives once per process (unless set_warn_always(True)) -----------------

_settings = {"warn_always": False, "threads": 1, "interop_threads": 1, "interop_set": False}
_warned = set()


def _warn_once(message):
    if _settings["warn_always"] or message not in _warned:
        _warned.add(message)
        warn(message, UserWarning)


def set_warn_always(b):
    """Whether the warnings torch gives once per process are given every time."""
    if type(b) is not bool:
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _settings["warn_always"] = b


def is_warn_always_enabled():
    return _settings["warn_always"]


# ---- threads: tapegrad runs on one thread; the values set are kept and read back ---------

def _check_thread_count(name, n):
    if type(n) is bool or not isinstance(n, (int, np.integer)):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")


def get_num_threads():
    """The intra-op thread count last set (1 at start: tapegrad's ops run on one thread)."""
    return _settings["threads"]


def set_num_threads(int):  # torch's parameter name
    _check_thread_count("set_num_threads", int)
    _settings["threads"] = builtins.int(int)


def get_num_interop_threads():
    return _settings["interop_threads"]


def set_num_interop_threads(int):
    """Like torch, allowed once per process."""
    _check_thread_count("set_num_interop_threads", int)
    if _settings["interop_set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has "
                           "started or set_num_interop_threads called")
    _settings["interop_threads"], _settings["interop_set"] = builtins.int(int), True




def set_flush_denormal(mode):
    """Whether the denormal mode asked for is in effect. NumPy cannot flush denormals to zero,
    so asking for flushing answers False (torch's answer where a CPU lacks it) and keeping
    them answers True."""
    if type(mode) is not bool:
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return not mode


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, name=None, disable=False, recompile_limit=None,
            isolate_recompiles=False, shapes_spec=None):
    """A pass-through: tapegrad has no compiler, so the function or module comes back unchanged
    (torch would wrap it; the results are the same, only the speed differs). Used without a
    model (`@torch.compile(mode=...)`) it returns the decorator that does this."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if model is None:
        return lambda function: function
    return model


# ---- predicates on tensors ------------------------------------------------------------------

def is_complex(input):
    require_tensors("is_complex", input=input)
    return input.dtype.is_complex


def is_signed(input):
    require_tensors("is_signed", input=input)
    return input.dtype.is_signed


def is_nonzero(input):
    """The single element of input, as a bool (nan counts as nonzero)."""
    require_tensors("is_nonzero", input=input)
    if input.numel() != 1:
        amount = "no values" if input.numel() == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
    return bool(input._data.reshape(()) != 0)


def is_same_size(input, other):
    require_tensors("is_same_size", input=input, other=other)
    return input.shape == other.shape


def _is_same_size_method(self, other):
    if not isinstance(other, Tensor):
        raise TypeError("is_same_size(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    return self.shape == other.shape


def is_inference(input):
    require_tensors("is_inference", input=input)
    return input.is_inference()


def get_device(input):
    require_tensors("get_device", input=input)
    return input.get_device()


def detach(input):
    require_tensors("detach", input=input)
    return input.detach()


def detach_(input):
    require_tensors("detach_", input=input)
    return input.detach_()


def can_cast(from_, to):
    """Whether casting keeps the kind: bool -> integer -> floating point -> complex."""
    for position, (name, value) in enumerate((("from_", from_), ("to", to)), 1):
        if not isinstance(value, _dtype.dtype):
            raise TypeError(f"can_cast(): argument '{name}' (position {position}) must be "
                            f"torch.dtype, not {type(value).__name__}")
    return _dtype._category(from_) <= _dtype._category(to)


def typename(obj):
    """torch's name for a tensor's type (torch.FloatTensor), else the object's dotted name
    (tapegrad's modules for tapegrad's classes: tapegrad.nn.modules.linear.Linear)."""
    if isinstance(obj, Tensor):
        return obj.type()
    if isinstance(obj, (_dtype.dtype, device, Size)):  # torch.dtype, torch.device, torch.Size
        return f"torch.{type(obj).__name__}"
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def is_storage(obj):
    """Whether obj is a storage (tapegrad.storage's UntypedStorage or TypedStorage)."""
    from ..storage import TypedStorage, UntypedStorage
    return isinstance(obj, (TypedStorage, UntypedStorage))


# ---- asarray ----------------------------------------------------------------------------------

def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """obj as a tensor, sharing its memory when it can (a tensor, an ndarray) unless copy=True;
    copy=False refuses where sharing is impossible."""
    if isinstance(obj, Tensor):
        if requires_grad is None and obj.requires_grad:
            _warn_once("torch.asarray: unspecified requires_grad now defaults to "
                       "obj.requires_grad instead of False. Pass requires_grad=False "
                       "explicitly to get the old behavior and silence this warning.")
        return _tensor_as_array(obj, dtype, device, copy, requires_grad)
    if isinstance(obj, np.ndarray) and copy is not True:
        if dtype is None or dtype.numpy == obj.dtype:
            result = _creation.from_numpy(obj).to(device) if device else _creation.from_numpy(obj)
            return result.requires_grad_(True) if requires_grad else result
        if copy is False:
            source = _dtype._BY_NUMPY[obj.dtype].legacy_name
            raise ValueError(f"can't alias tensor with dtype '{source}' into dtype "
                             f"'{dtype.legacy_name}'.")
    elif copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    return _creation.tensor(obj, dtype=dtype, device=device, requires_grad=bool(requires_grad))


def _tensor_as_array(obj, dtype, device, copy, requires_grad):
    result = obj
    if dtype is not None and dtype is not obj.dtype:
        if copy is False:
            raise ValueError(f"can't alias tensor with dtype '{obj.dtype.legacy_name}' into "
                             f"dtype '{dtype.legacy_name}'.")
        result = obj.to(dtype)
    if device is not None:
        result = result.to(device)
    if copy and result is obj:
        result = obj.clone()
    if requires_grad is not None and requires_grad != result.requires_grad:
        result = result.detach().requires_grad_(requires_grad)
    return result


# ---- index helpers --------------------------------------------------------------------------

def _triangle_indices(name, numpy_indices, row, col, offset, dtype, device, layout):
    for position, (argument, value) in enumerate((("row", row), ("col", col),
                                                 ("offset", offset)), 1):
        if type(value) is bool or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be int,"
                            f" not {type(value).__name__}")
    for argument, value in (("row", row), ("col", col)):
        if value < 0:
            raise RuntimeError(f"{argument} must be non-negative, got{value}")
    dtype = _dtype.int64 if dtype is None else dtype
    if dtype.is_floating_point or dtype.is_complex or dtype is _dtype.bool:
        raise NotImplementedError(f'"{name}" not implemented for \'{dtype.legacy_name}\'')
    rows, cols = numpy_indices(row, offset, col)
    return _creation.tensor(np.stack([rows, cols]).reshape(2, -1), dtype=dtype, device=device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the lower triangle of a row x col matrix, row by row."""
    return _triangle_indices("tril_indices", np.tril_indices, row, col, offset, dtype, device,
                             layout)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the upper triangle of a row x col matrix, row by row."""
    return _triangle_indices("triu_indices", np.triu_indices, row, col, offset, dtype, device,
                             layout)


def unravel_index(indices, shape):
    """The coordinates in a tensor of `shape` of flat (row-major) indices, one int64 tensor
    per dim. Like torch, indices outside the shape wrap around instead of raising."""
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype is _dtype.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, (int, np.integer)) and type(shape) is not bool:
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    for size in shape:
        if type(size) is bool or not isinstance(size, (int, np.integer)):
            raise TypeError("expected 'shape' sequence to only contain ints, but got "
                            f"{type(size)}")
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    flat = indices.long()
    coordinates, stride = [], 1
    for size in reversed(shape):
        coordinates.append(flat // stride % size)
        stride *= size
    return tuple(reversed(coordinates))


# ---- deprecated spellings torch still has ---------------------------------------------------

def range(start, end, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Deprecated in torch: start to end *inclusive*, in the default float dtype."""
    warn("torch.range is deprecated and will be removed in a future release because "
         "its behavior is inconsistent with Python's range builtin. Instead, use "
         "torch.arange, which produces values in [start, end).", UserWarning)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if step > 0 and end < start or step < 0 and end > start:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = math.floor((end - start) / step) + 1
    values = start + np.arange(count, dtype=np.float64) * step
    result = _creation.tensor(values, dtype=dtype or _dtype.get_default_dtype(), device=device,
                              requires_grad=requires_grad)
    return result if out is None else out.resize_(result.shape).copy_(result)


_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int",
                   "int32": "int", "int16": "short int", "int8": "signed char",
                   "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half"}


def chain_matmul(*matrices, out=None):
    """Deprecated: the product of 2-D matrices, in the order with the fewest multiplications
    (linalg.multi_dot's order)."""
    _warn_once("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
               "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
               "more tensors rather than multiple parameters.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for matrix in matrices:
        if matrix.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {matrix.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    _check_chain(matrices)
    result = _chain_product(matrices)
    result = result.view(matrices[0].shape[0], matrices[-1].shape[1])
    return result if out is None else out.resize_(result.shape).copy_(result)


def _check_chain(matrices):
    first = matrices[0]
    for i, matrix in enumerate(matrices[1:], 1):
        if matrix.dtype is not first.dtype:
            raise RuntimeError("multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {_CPP_TYPE_NAMES.get(first.dtype.name, first.dtype.name)} "
                               f"and tensor {i} "
                               f"{_CPP_TYPE_NAMES.get(matrix.dtype.name, matrix.dtype.name)}")
        if matrices[i - 1].shape[1] != matrix.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes "
                               f"{list(matrices[i - 1].shape)} and {list(matrix.shape)} cannot "
                               "be multiplied")


def _chain_product(matrices):
    """The product in torch's order: for three, the cheaper bracketing ((AB)C on ties); for
    more, the matrix-chain dynamic programme (the first cheapest split)."""
    if len(matrices) == 2:
        return matrices[0].mm(matrices[1])
    sizes = [m.shape[0] for m in matrices] + [matrices[-1].shape[1]]
    if len(matrices) == 3:
        a, b, c, d = sizes
        if a * c * (b + d) > b * d * (a + c):
            return matrices[0].mm(matrices[1].mm(matrices[2]))
        return matrices[0].mm(matrices[1]).mm(matrices[2])
    n = len(matrices)
    cost = [[0] * n for _ in matrices]
    split = [[0] * n for _ in matrices]
    for length in builtins.range(1, n):
        for i in builtins.range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in builtins.range(i, j):
                candidate = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if candidate < cost[i][j]:
                    cost[i][j], split[i][j] = candidate, k

    def product(i, j):
        if i == j:
            return matrices[i]
        return product(i, split[i][j]).mm(product(split[i][j] + 1, j))
    return product(0, n - 1)




def frobenius_norm(input, dim, keepdim=False):
    """Deprecated: the 2-norm over at most two dims (at::norm's node, NormBackward1)."""
    _warn_once("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It "
               "will be removed in a future PyTorch release. Please use "
               "`linalg.vector_norm(A, 2., dim, keepdim)` instead")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions "
                           "instead.")
    dims = reduced_dims(dims, input.ndim)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {input.dtype.legacy_name} instead.")
    return aten_norm(input, 2.0, dims, keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    """Deprecated: nuclear_norm(input, keepdim=False) or nuclear_norm(input, dim, keepdim)."""
    _warn_once("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It "
               "will be removed in a future PyTorch release. Please use "
               "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def set_default_tensor_type(t):
    """Deprecated: sets the default dtype from a float tensor type or its name."""
    _warn_once("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
               "torch.set_default_dtype() and torch.set_default_device() as alternatives.")
    from .._legacy_tensor_types import CPU_TYPES, CUDA_TYPES  # they load after ops
    if isinstance(t, str):
        t = _dotted_name(t)
    if t in CUDA_TYPES.values():
        raise TypeError(f"type {t.torch_name} not available. Torch not compiled with CUDA "
                        "enabled.")
    if t not in CPU_TYPES.values():
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    _dtype.set_default_dtype(t.dtype)


def _dotted_name(name):
    """The object a dotted name such as 'torch.DoubleTensor' names, as torch resolves it."""
    first, *rest = name.split(".")
    obj = importlib.import_module("tapegrad" if first == "torch" else first)
    for component in rest:
        if not hasattr(obj, component):
            module = obj.__name__.replace("tapegrad", "torch", 1)
            raise AttributeError(f"module '{module}' has no attribute '{component}'")
        obj = getattr(obj, component)
    return obj


# ---- torch-level losses and pools: positional, reduction as an int --------------------------

def _reduction(name, reduction, position):
    """torch's int reduction (0 none, 1 mean, 2 sum; other ints none) as F's string."""
    if type(reduction) is bool or not isinstance(reduction, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'reduction' (position {position}) must be int, not "
                        f"{type(reduction).__name__}")
    return {1: "mean", 2: "sum"}.get(builtins.int(reduction), "none")


def _functional():
    from ..nn import functional  # nn builds on ops: looked up when called
    return functional


def kl_div(input, target, reduction=0, *, log_target=False):
    with warnings.catch_warnings():  # F's warning about 'mean' is F's alone
        warnings.simplefilter("ignore")
        return _functional().kl_div(input, target, reduction=_reduction("kl_div", reduction, 3),
                                    log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    mode = _reduction("binary_cross_entropy_with_logits", reduction, 5)
    return _functional().binary_cross_entropy_with_logits(input, target, weight, reduction=mode,
                                                          pos_weight=pos_weight)


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    mode = _reduction("hinge_embedding_loss", reduction, 4)
    return _functional().hinge_embedding_loss(input, target, margin, reduction=mode)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    mode = _reduction("margin_ranking_loss", reduction, 5)
    return _functional().margin_ranking_loss(input1, input2, target, margin, reduction=mode)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    mode = _reduction("cosine_embedding_loss", reduction, 5)
    return _functional().cosine_embedding_loss(input1, input2, target, margin, reduction=mode)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    mode = _reduction("poisson_nll_loss", reduction, 6)
    return _functional().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                          reduction=mode)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    mode = _reduction("triplet_margin_loss", reduction, 8)
    return _functional().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                             reduction=mode)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch.embedding: weight first; a negative padding_idx means none."""
    return _functional().embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def adaptive_max_pool1d(input, output_size):
    """(values, indices), as F.adaptive_max_pool1d(..., return_indices=True)."""
    return _functional().adaptive_max_pool1d(input, output_size, return_indices=True)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """(values, indices), as F.max_pool1d(..., return_indices=True); stride () is kernel_size."""
    return _functional().max_pool1d(input, kernel_size, stride or None, padding, dilation,
                                    ceil_mode, return_indices=True)


@defop("NativeDropoutBackward0", save=("result1", "scale"))
def _native_dropout(xp, input: Tensor, kept, scale):
    return (input * kept * scale).astype(input.dtype), kept


_native_dropout.derivatives(input=lambda ctx: ctx.grad * ctx.result1 * ctx.scale)


def native_dropout(input, p, train):
    """(output, mask): dropout with its boolean keep-mask; train=False (or p=0) keeps all.
    The mask is drawn as torch draws it: after manual_seed, torch's mask."""
    require_tensors("native_dropout", input=input)
    if train is not None and type(train) is not bool:
        raise TypeError("native_dropout(): argument 'train' (position 3) must be bool, not "
                        f"{type(train).__name__}")
    if train is not False and not 0 <= p <= 1:  # torch draws the mask with bernoulli_(1 - p)
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1 - p}")
    if train is not False and not input.dtype.is_floating_point:
        raise RuntimeError("result type Float can't be cast to the desired output type "
                           f"{input.dtype.legacy_name}")
    if train is False or p == 0:
        kept, scale = _backend.array_module(input._data).ones(input.shape, bool), 1.0
    else:
        from .._random import bernoulli_mask
        kept = bernoulli_mask(None, input.shape, 1 - p, input.device)  # mask.bernoulli_(1 - p)
        scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    return _native_dropout(input, kept, input.dtype.numpy.type(scale))


# ---- Tensor methods and attributes ------------------------------------------------------------

def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal (all indices equal) in place. wrap: a matrix taller than wide
    starts the diagonal again every cols + 1 rows. Like torch, it writes through a view
    (CopySlices); a view self is written itself, so that its own history is rebased."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if isinstance(fill_value, Tensor):  # torch takes a Scalar: no gradient reaches the value
        fill_value = fill_value.item()
    target = self if self._base is not None else self[:]
    rows, cols = self.shape[0], self.shape[1]
    main = np.zeros(self.shape, bool)
    main[(np.arange(min(self.shape)),) * self.ndim] = True
    target.masked_fill_(constant_beside(self, main), fill_value)
    if self.ndim == 2 and wrap and rows > cols + 1:  # torch's second write: the repeats
        repeats = np.zeros(self.shape, bool)
        repeats.reshape(-1)[::cols + 1] = True
        repeats[:cols] = False
        target.masked_fill_(constant_beside(self, repeats), fill_value)
    return self


def new(self, *args, **kwargs):
    """The legacy constructor in this tensor's dtype, on its device: new(2, 3), new([1, 2]),
    new(size)."""
    from .._legacy_tensor_types import legacy_new
    return legacy_new(self.dtype, args, dict(kwargs), home=self.device)


def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (torch's elementwise-output order)."""
    _check_ambiguity_argument(ambiguity_check)
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    if (ambiguity_check is not False and _has_several_dim_orders(self)
            and sum(self.is_contiguous(memory_format=f) for f in formats) != 1):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact "
                           "one of the given memory formats.")
    ndim = self.ndim
    contiguous = self.is_contiguous()
    channels_last = ndim == 4 and self.is_contiguous(memory_format=channels_last_format)
    if ndim < 2 or contiguous and not channels_last:
        return tuple(builtins.range(ndim))
    if channels_last and not contiguous:
        return (0, 2, 3, 1)
    strides, shape = self.stride(), self.shape
    order = list(builtins.range(ndim - 1, -1, -1))  # innermost first: reversed at the end
    for i in builtins.range(1, ndim):  # insertion sort; 0 means the strides cannot tell
        moving = i
        for j in builtins.range(i - 1, -1, -1):
            comparison = _compare_dims(strides, shape, order[j], order[moving])
            if comparison > 0:
                order[j], order[moving] = order[moving], order[j]
                moving = j
            elif comparison < 0:
                break
    if ambiguity_check and any(_compare_dims(strides, shape, a, b) != -1
                               for a, b in zip(order, order[1:])):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(order))


def _compare_dims(strides, shape, a, b):
    """> 0 when dim a lies outside dim b in memory, < 0 inside, 0 when strides cannot tell."""
    if strides[a] == 0 or strides[b] == 0:
        return 0
    if strides[a] == strides[b]:
        return 0 if shape[b] >= shape[a] else 1
    return -1 if strides[b] > strides[a] else 1


def _check_ambiguity_argument(ambiguity_check):
    if isinstance(ambiguity_check, bool):
        return
    if not isinstance(ambiguity_check, list) or not all(
            isinstance(f, memory_format) for f in ambiguity_check):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                        "formats.")


def _has_several_dim_orders(tensor):
    """Singleton dims, or two neighbouring dims with one stride, can sit in either order."""
    strides = tensor.stride()
    return (any(a == b for a, b in zip(strides, strides[1:]))
            or any(size == 1 for size in tensor.shape))


def _python_number(value, dtype):
    """A callable's result as an element of dtype (torch's unpacking: numbers and objects with
    __float__ / __index__ only)."""
    if not (hasattr(type(value), "__float__") or hasattr(type(value), "__index__")):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    if dtype is _dtype.bool:
        return bool(value)
    if dtype.is_floating_point:
        return float(value)
    return builtins.int(float(value)) if not hasattr(type(value), "__index__") else \
        builtins.int(value)


def _refuse_grad(name, tensor):
    if tensor.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")


def apply_(self, callable):
    """Replace each element x by callable(x), in place (x as a Python number)."""
    _refuse_grad("apply_", self)
    values = [_python_number(callable(x), self.dtype) for x in self._data.ravel().tolist()]
    self._data[...] = np.array(values, dtype=self.dtype.numpy).reshape(self.shape)
    return self  # like torch, no version bump: tensors that require grad are refused


def map_(self, tensor, callable):
    """Replace each element x by callable(x, y), y the matching element of tensor (broadcast
    to this tensor's shape), in place."""
    if not isinstance(tensor, Tensor):
        raise TypeError("map_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    _refuse_grad("map_", self)
    _refuse_grad("map_", tensor)
    if tensor.dtype is not self.dtype:
        raise TypeError(f"map_: expected {self.type()} for 'other' (got {tensor.type()})")
    others = tensor.expand(self.shape)._data.ravel().tolist()
    values = [_python_number(callable(x, y), self.dtype)
              for x, y in zip(self._data.ravel().tolist(), others)]
    self._data[...] = np.array(values, dtype=self.dtype.numpy).reshape(self.shape)
    return self  # like torch, no version bump: tensors that require grad are refused


def share_memory_(self):
    """tapegrad runs in one process: the tensor stays where it is and counts as shared."""
    self.__dict__["_shared"] = True
    return self


def is_shared(self):
    return self.__dict__.get("_shared", False)


_NEVER = property(lambda self: False)  # sparse, quantized, nested, other backends: never here

FUNCTIONS = {name: globals()[name] for name in """
    asarray is_complex is_nonzero is_same_size is_signed is_inference get_device detach detach_
    can_cast typename tril_indices triu_indices unravel_index chain_matmul frobenius_norm
    nuclear_norm get_num_threads set_num_threads get_num_interop_threads set_num_interop_threads
    set_warn_always is_warn_always_enabled set_flush_denormal embedding kl_div
    binary_cross_entropy_with_logits hinge_embedding_loss margin_ranking_loss
    cosine_embedding_loss poisson_nll_loss triplet_margin_loss adaptive_max_pool1d
    max_pool1d_with_indices native_dropout compile range is_storage set_default_tensor_type
    """.split()}
FUNCTIONS["fill_"] = fill_
TENSOR_ONLY = {
    "is_signed": lambda self: self.dtype.is_signed,
    "is_nonzero": is_nonzero,
    "is_same_size": _is_same_size_method,
    "itemsize": property(lambda self: self.dtype.itemsize),
    "nbytes": property(lambda self: self.numel() * self.dtype.itemsize),
    "ndimension": lambda self: self.ndim,
    "fill_diagonal_": fill_diagonal_, "new": new, "dim_order": dim_order,
    "apply_": apply_, "map_": map_, "share_memory_": share_memory_, "is_shared": is_shared,
    **{name: _NEVER for name in ("is_sparse is_sparse_csr is_quantized is_nested is_mkldnn "
                                 "is_xpu is_ipu is_xla is_vulkan is_mtia is_maia").split()},
}
