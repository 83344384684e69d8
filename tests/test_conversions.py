"""dtype conversion methods (float(), double(), ..., bfloat16()), memory formats (strides of
channels_last tensors, is_contiguous(memory_format=), contiguous/clone/to with a format) and
tapegrad.bfloat16, against torch."""
import pickle

import pytest

import tapegrad
from compare import same, same_error

CONVERSIONS = ("float", "double", "half", "long", "int", "short", "char", "byte", "bool")
FORMATS = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")


def _images(lib, *shape):
    return lib.arange(float(lib.Size(shape).numel()), dtype=lib.float64).reshape(shape)


def _channels_last(lib):
    return _images(lib, 2, 3, 4, 5).contiguous(memory_format=lib.channels_last)


def test_memory_formats_print_and_pickle_as_torch():
    same(lambda lib: [(repr(getattr(lib, name)), str(getattr(lib, name))) for name in FORMATS])
    for name in FORMATS:
        value = getattr(tapegrad, name)
        assert pickle.loads(pickle.dumps(value)) is value


@pytest.mark.parametrize("name", CONVERSIONS)
def test_conversion_methods_take_a_memory_format(name):
    def scenario(lib):
        x = _images(lib, 2, 3, 4, 5).requires_grad_()
        results = [getattr(x, name)(memory_format=getattr(lib, fmt))
                   for fmt in ("contiguous_format", "preserve_format", "channels_last")]
        results.append(getattr(_channels_last(lib), name)())
        return [(str(r.dtype), r.stride(), r.tolist(), type(r.grad_fn).__name__, r is x)
                for r in results]
    same(scenario)


@pytest.mark.parametrize("name", CONVERSIONS + ("contiguous", "is_contiguous"))
def test_memory_format_argument_errors_match_torch(name):
    for call in (lambda x, lib: getattr(x, name)(lib.channels_last),
                 lambda x, lib: getattr(x, name)(1, 2),
                 lambda x, lib: getattr(x, name)(foo=1),
                 lambda x, lib: getattr(x, name)(memory_format=3),
                 lambda x, lib: getattr(x, name)(memory_format=lib.float32)):
        same_error(lambda lib: call(_images(lib, 2, 3), lib))
    if name in CONVERSIONS:  # their memory_format is optional: None is the default
        same(lambda lib: str(getattr(_images(lib, 2, 3), name)(memory_format=None).dtype))
    else:
        same_error(lambda lib: getattr(_images(lib, 2, 3), name)(memory_format=None))


def test_conversions_to_the_same_dtype_return_self_like_torch():
    def scenario(lib):
        x, image = _images(lib, 2, 3), _channels_last(lib)
        return [x.double() is x, x.double(memory_format=lib.contiguous_format) is x,
                image.double() is image, image.double(memory_format=lib.channels_last) is image,
                image.double(memory_format=lib.contiguous_format) is image,
                image.to(memory_format=lib.channels_last) is image]
    same(scenario)


STRIDE_CASES = {
    "to channels_last": lambda L: _images(L, 2, 3, 4, 5).to(memory_format=L.channels_last),
    "contiguous channels_last": lambda L: _channels_last(L),
    "back to contiguous": lambda L: _channels_last(L).contiguous(),
    "clone preserves": lambda L: _channels_last(L).clone(memory_format=L.preserve_format),
    "clone contiguous": lambda L: _channels_last(L).clone(memory_format=L.contiguous_format),
    "clone channels_last": lambda L: _images(L, 2, 3, 4, 5).clone(
        memory_format=L.channels_last),
    "float keeps channels_last": lambda L: _channels_last(L).float(),
    "channels_last_3d": lambda L: _images(L, 2, 3, 2, 2, 2).contiguous(
        memory_format=L.channels_last_3d),
    "size-1 dims": lambda L: _images(L, 2, 3, 1, 1).contiguous(memory_format=L.channels_last),
    "arithmetic keeps the layout": lambda L: _channels_last(L) * 2 + 1,
    # clone's default, preserve_format: dense strides in the input's order
    "clone of a transpose": lambda L: _images(L, 3, 4).t().clone(),
    "clone of a permutation": lambda L: _images(L, 2, 3, 4).permute(2, 0, 1).clone(),
    "clone of a strided permutation": lambda L: _images(L, 2, 3, 4)[:, :, ::2].permute(
        2, 0, 1).clone(),
    "clone of a broadcast": lambda L: _images(L, 1, 3, 4).expand(3, 3, 4).clone(),
    "reshape of a transpose": lambda L: _images(L, 3, 4).t().reshape(2, 6),
    "float of a transpose": lambda L: _images(L, 3, 4).t().float(),
}


@pytest.mark.parametrize("case", STRIDE_CASES)
def test_strides_match_torch(case):
    same(lambda lib: (STRIDE_CASES[case](lib).stride(), STRIDE_CASES[case](lib).tolist()))


IS_CONTIGUOUS_CASES = {
    "contiguous 4-d": lambda L: _images(L, 2, 3, 4, 5),
    "channels_last": _channels_last,
    "2-d": lambda L: _images(L, 2, 3),
    "transposed": lambda L: _images(L, 2, 3).t(),
    "N111": lambda L: _images(L, 2, 1, 1, 1),
    "NC11": lambda L: _images(L, 2, 3, 1, 1),
    "empty": lambda L: L.zeros(0, 3, 4, 5),
    "channels_last_3d": lambda L: _images(L, 2, 3, 2, 2, 2).contiguous(
        memory_format=L.channels_last_3d),
    "5-d": lambda L: _images(L, 2, 3, 2, 2, 2),
    "sliced channels_last": lambda L: _channels_last(L)[:, :, ::2],
}


@pytest.mark.parametrize("case", IS_CONTIGUOUS_CASES)
def test_is_contiguous_with_a_memory_format_matches_torch(case):
    same(lambda lib: [IS_CONTIGUOUS_CASES[case](lib).is_contiguous(
        memory_format=getattr(lib, fmt)) for fmt in FORMATS])


FORMAT_ERRORS = {
    "contiguous preserve": lambda L: _channels_last(L).contiguous(
        memory_format=L.preserve_format),
    "contiguous 2-d channels_last": lambda L: _images(L, 2, 3).contiguous(
        memory_format=L.channels_last),
    "clone 4-d channels_last_3d": lambda L: _images(L, 2, 3, 4, 5).clone(
        memory_format=L.channels_last_3d),
    "float 2-d channels_last": lambda L: _images(L, 2, 3).float(memory_format=L.channels_last),
    "to 3-d channels_last": lambda L: _images(L, 2, 3, 4).to(memory_format=L.channels_last),
    "clone str": lambda L: _images(L, 2, 3).clone(memory_format="x"),
}


@pytest.mark.parametrize("case", FORMAT_ERRORS)
def test_memory_format_errors_match_torch(case):
    same_error(FORMAT_ERRORS[case])


def test_contiguous_of_a_contiguous_tensor_with_preserve_format_is_itself():
    same(lambda lib: [(x.contiguous(memory_format=lib.preserve_format) is x)
                      for x in (_images(lib, 2, 3),)])


def test_layout_changes_are_differentiable_like_torch():
    def scenario(lib):
        x = _images(lib, 2, 3, 2, 2).requires_grad_()
        y = x.contiguous(memory_format=lib.channels_last)
        z = x.float(memory_format=lib.channels_last)
        w = y.clone(memory_format=lib.contiguous_format)
        (y * 2 + z * 3 + w).sum().backward()
        return [type(t.grad_fn).__name__ for t in (y, z, w)], x.grad.tolist(), x.grad.stride()
    same(scenario)


# ---- bfloat16 -------------------------------------------------------------------------------

def _has_ml_dtypes():
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        return False
    return True


def test_bfloat16_dtype_matches_torch():
    same(lambda lib: (repr(lib.bfloat16), lib.bfloat16.is_floating_point,
                      lib.bfloat16.is_complex, lib.bfloat16.is_signed, lib.bfloat16.itemsize,
                      lib.bfloat16 == lib.float16, str(lib.promote_types(lib.bfloat16,
                                                                        lib.float32))))


@pytest.mark.skipif(_has_ml_dtypes(), reason="ml_dtypes gives tapegrad a real bfloat16")
def test_bfloat16_without_ml_dtypes_says_what_is_missing():
    for make in (lambda: tapegrad.ones(2).bfloat16(),
                 lambda: tapegrad.zeros(2, dtype=tapegrad.bfloat16),
                 lambda: tapegrad.ones(2).to(tapegrad.bfloat16)):
        with pytest.raises(RuntimeError, match="^tapegrad.bfloat16 needs the ml_dtypes package"):
            make()


@pytest.mark.skipif(not _has_ml_dtypes(), reason="needs ml_dtypes for NumPy's bfloat16")
def test_bfloat16_with_ml_dtypes_rounds_as_torch():
    def scenario(lib):
        x = lib.tensor([1.0, 1.00390625, 3.14159, -2.5e-3, 65504.0, 1e30],
                       dtype=lib.float64).requires_grad_()
        y = x.bfloat16()
        y.float().sum().backward()
        return (str(y.dtype), y.float().tolist(), type(y.grad_fn).__name__, x.grad.tolist(),
                str(lib.promote_types(lib.bfloat16, lib.float16)), str((y + 1).dtype))
    same(scenario)


def test_promotion_of_half_floats_with_complex_matches_torch():
    same(lambda lib: [str(lib.promote_types(lib.complex64, d)) for d in (
        lib.float16, lib.bfloat16, lib.float64, lib.int64)])


@pytest.mark.skipif(not _has_ml_dtypes(), reason="needs ml_dtypes for NumPy's bfloat16")
def test_bfloat16_samplers_check_bounds_as_torch():
    same_error(lambda lib: lib.zeros(3, dtype=lib.bfloat16).uniform_(-3e38, 3e38))
    same_error(lambda lib: lib.zeros(3, dtype=lib.bfloat16).uniform_(0, 1e39))
    same(lambda lib: str(lib.zeros(3, dtype=lib.bfloat16).normal_().dtype))
