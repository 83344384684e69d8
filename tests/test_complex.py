"""Complex tensors: creation, printing, the parts (real, imag, view_as_real/complex), conj,
complex and polar, promotion with complex numbers, arithmetic and math with torch's conjugate
Wirtinger gradients, and torch's refusals, against torch where it is importable.

Gradients of complex functions are checked in float64 through real parameters: z = complex(x,
y), f(z) seen as view_as_real(f(z)); the real-to-real Jacobian is right only if every complex
formula follows torch's convention."""
import numpy as np
import pytest

import tapegrad
from compare import error_of, same, same_error, torch_or_skip
from tapegrad.autograd import gradcheck, gradgradcheck

_RNG = np.random.default_rng(13)
Z = _RNG.normal(size=5) + 1j * _RNG.normal(size=5)
W = _RNG.normal(size=5) + 1j * _RNG.normal(size=5)
X = _RNG.normal(size=5)


def text(lib, build):
    return repr(build(lib))


# ---- printing ---------------------------------------------------------------------------------

PRINTED = {
    "basic": lambda lib: lib.tensor([1 + 2j, 3 - 1j]),
    "complex128": lambda lib: lib.tensor([1 + 2j, 3 - 1j], dtype=lib.complex128),
    "fractions": lambda lib: lib.tensor([0.5 + 1.25j, -2.125 - 3j]),
    "sci": lambda lib: lib.tensor([0.5 + 1e-5j, 2 - 3j]),
    "big": lambda lib: lib.tensor([1e10 + 1j, 1 - 1j]),
    "nonfinite": lambda lib: lib.tensor([complex("nan+1j"), complex("inf-2j"), 1 + 0j]),
    "signed_zeros": lambda lib: lib.tensor([complex(-0.0, -0.0), complex(0.0, -0.0)]),
    "scalar": lambda lib: lib.tensor(1 - 2.5j),
    "empty": lambda lib: lib.zeros(0, dtype=lib.complex64),
    "empty_2d": lambda lib: lib.zeros(2, 0, dtype=lib.complex128),
    "matrix": lambda lib: lib.tensor(Z[:4].reshape(2, 2)),
    "three_d": lambda lib: lib.tensor(np.arange(12).reshape(2, 3, 2) * (1 - 0.5j)),
    "wrapped": lambda lib: lib.tensor(Z.tolist() * 3),
    "summarised": lambda lib: lib.tensor(np.arange(2000) * (0.5 + 1j)),
    "requires_grad": lambda lib: lib.tensor([1 + 2j], requires_grad=True),
    "grad_fn": lambda lib: lib.tensor([1 + 2j], requires_grad=True) * 2,
    "ints": lambda lib: lib.tensor([1, 2]) * 1j,
}


@pytest.mark.parametrize("case", PRINTED)
def test_complex_printing_matches_torch(case):
    same(lambda lib: text(lib, PRINTED[case]))


def test_complex_printing_default_complex128_when_default_double():
    torch = torch_or_skip()
    for lib in (tapegrad, torch):
        lib.set_default_dtype(lib.float64)
    try:
        same(lambda lib: [repr(lib.tensor([1 + 2j])), repr(lib.tensor([1j], dtype=lib.cfloat))])
    finally:
        for lib in (tapegrad, torch):
            lib.set_default_dtype(lib.float32)


def test_complex_printing_precision_and_linewidth():
    torch = torch_or_skip()
    try:
        for lib in (tapegrad, torch):
            lib.set_printoptions(precision=2, linewidth=40)
        same(lambda lib: repr(lib.tensor(Z)))
    finally:
        for lib in (tapegrad, torch):
            lib.set_printoptions(profile="default")


# ---- creation and conversions -----------------------------------------------------------------

CREATED = {
    "list": lambda lib: lib.tensor([1 + 2j, 3]),
    "mixed_list": lambda lib: lib.tensor([[1, 2.5], [1j, 0]]),
    "zeros": lambda lib: lib.zeros(2, 3, dtype=lib.complex64),
    "ones": lambda lib: lib.ones(2, dtype=lib.cdouble),
    "full": lambda lib: lib.full((2,), 1 - 1j),
    "eye": lambda lib: lib.eye(2, dtype=lib.complex128),
    "from_numpy": lambda lib: lib.from_numpy(Z.astype(np.complex64)),
    "cfloat": lambda lib: lib.tensor([1, 2]).cfloat(),
    "cdouble": lambda lib: lib.tensor([1.5]).cdouble(),
    "cfloat_itself": lambda lib: lib.tensor([1j]).cfloat(),
    "zeros_like": lambda lib: lib.zeros_like(lib.tensor([1j, 2])),
    "to_complex": lambda lib: lib.tensor([1.5, 2.0]).to(lib.complex128),
    "linspace": lambda lib: lib.linspace(-1 + 2j, 3 - 1j, 7),
    "linspace_complex128": lambda lib: lib.linspace(0, 1 + 1j, 5, dtype=lib.complex128),
    "linspace_tensor_end": lambda lib: lib.linspace(lib.tensor(1j), 2, 3),
    "scalar_tensor": lambda lib: lib.scalar_tensor(1j, dtype=lib.cfloat),
    "fill": lambda lib: lib.zeros(2, dtype=lib.cdouble).fill_(1 - 1j),
}


@pytest.mark.parametrize("case", CREATED)
def test_complex_creation_matches_torch(case):
    same(lambda lib: (lambda t: (str(t.dtype), t.shape, t.numpy().tolist(), t.is_complex()))(
        CREATED[case](lib)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_randn_draws_torchs_stream(dtype):
    def drawn(lib):
        lib.manual_seed(7)
        first = lib.randn(9, dtype=getattr(lib, dtype))
        return first.numpy().tolist(), lib.randn_like(first).numpy().tolist()
    same(drawn)


def test_complex_randn_has_unit_variance():
    tapegrad.manual_seed(0)
    z = tapegrad.randn(200000, dtype=tapegrad.complex128).numpy()
    assert abs(z.real.var() - 0.5) < 0.01 and abs(z.imag.var() - 0.5) < 0.01


def test_complex_to_real_warns_and_keeps_real_part():
    torch = torch_or_skip()
    for lib in (tapegrad, torch):
        with pytest.warns(UserWarning, match="Casting complex values to real discards the "
                                             "imaginary part"):
            result = lib.tensor([1 + 2j, -3j]).to(lib.float32)
        assert result.tolist() == [1.0, 0.0]


def test_complex_chalf_refused():
    assert error_of(lambda: tapegrad.zeros(2).chalf())[0] == "NotImplementedError"


@pytest.mark.parametrize("case", [
    lambda lib: lib.tensor([1.0], dtype=lib.float32) + 1j,
    lambda lib: lib.tensor([1.0], dtype=lib.float64) * 1j,
    lambda lib: lib.tensor([1, 2]) + 0.5j,
    lambda lib: lib.tensor([True]) * 1j,
    lambda lib: lib.tensor([1j]) + lib.tensor([1.0], dtype=lib.float64),
    lambda lib: lib.tensor([1j]) + lib.tensor(2.0, dtype=lib.float64),
    lambda lib: lib.tensor([1.0]) + lib.tensor(1j, dtype=lib.complex128),
    lambda lib: lib.tensor([1j], dtype=lib.complex128) * lib.tensor([2.0]),
    lambda lib: lib.tensor([1j]) / 2,
    lambda lib: lib.tensor([1, 2]) / lib.tensor([1j]),
    lambda lib: 2 ** lib.tensor([1j]),
    lambda lib: (1 + 1j) - lib.tensor([1.0]),
    lambda lib: lib.tensor([1j]).abs(),
    lambda lib: lib.tensor([1j], dtype=lib.complex128).angle(),
], ids=lambda case: None)
def test_complex_promotion_matches_torch(case):
    same(lambda lib: (str(case(lib).dtype), case(lib).numpy().tolist()))


# ---- the parts: views, writes, errors ---------------------------------------------------------

def test_complex_real_and_imag_are_writable_views():
    def written(lib):
        z = lib.tensor([1 + 2j, 3 - 1j])
        z.real[0] = 7
        z.imag.mul_(2)
        parts = lib.view_as_real(z)
        parts[1, 0] = -5
        return z.numpy().tolist(), z.real._version if lib is tapegrad else z.real._version
    same(written)


def test_complex_part_assignment():
    def assigned(lib):
        z = lib.zeros(2, dtype=lib.complex64)
        z.real = lib.tensor([1.0, 2.0])
        z.imag = lib.tensor([3.0, 4.0])
        return z.numpy().tolist()
    same(assigned)


def test_complex_view_as_real_shares_memory_both_ways():
    z = tapegrad.tensor(Z)
    parts = tapegrad.view_as_real(z)
    back = tapegrad.view_as_complex(parts)
    back[2] = 10j
    assert z[2].item() == 10j and parts[2].tolist() == [0.0, 10.0]
    assert np.shares_memory(parts.numpy(), z.numpy())


def test_complex_view_as_real_of_strided_and_scalar():
    same(lambda lib: [lib.view_as_real(lib.tensor(Z[:4].reshape(2, 2)).t()).numpy().tolist(),
                      lib.view_as_real(lib.tensor(1 + 2j)).numpy().tolist(),
                      lib.view_as_real(lib.tensor(Z)[::2]).numpy().tolist()])


def test_complex_view_as_complex_of_strided_and_empty():
    same(lambda lib: [lib.view_as_complex(lib.zeros(3, 4, 2)[:, 1:, :]).shape,
                      lib.view_as_complex(lib.arange(8.0).reshape(2, 2, 2)).numpy().tolist(),
                      lib.view_as_complex(lib.stack([lib.zeros(0, 3)] * 2, -1)).shape])


@pytest.mark.parametrize("case", [
    lambda lib: lib.view_as_real(lib.zeros(3)),
    lambda lib: lib.view_as_real(lib.zeros(3, dtype=lib.cfloat).conj()),
    lambda lib: lib.view_as_complex(lib.zeros(3)),
    lambda lib: lib.view_as_complex(lib.zeros(3, 2).t()),
    lambda lib: lib.view_as_complex(lib.zeros(2, 3)[:, :2].t()),
    lambda lib: lib.view_as_complex(lib.zeros(3, 3)[:, 1:]),
    lambda lib: lib.view_as_complex(lib.zeros(7)[1:].view(3, 2)),
    lambda lib: lib.view_as_complex(lib.zeros(3, 2, dtype=lib.int32)),
    lambda lib: lib.view_as_complex(lib.zeros((), dtype=lib.float64)),
    lambda lib: lib.zeros(2).imag,
    lambda lib: lib.complex(lib.zeros(2), lib.zeros(2, dtype=lib.float64)),
    lambda lib: lib.complex(lib.zeros(2, dtype=lib.int64), lib.zeros(2, dtype=lib.int64)),
    lambda lib: lib.complex(lib.zeros(2), lib.zeros(3)),
    lambda lib: lib.polar(lib.zeros(2), lib.zeros(2, dtype=lib.float64)),
    lambda lib: lib.polar(lib.zeros(2, dtype=lib.int32), lib.zeros(2, dtype=lib.int32)),
], ids=lambda case: None)
def test_complex_parts_errors_match_torch(case):
    same_error(case)


def test_complex_conj_bit_and_resolution():
    def flags(lib):
        z = lib.tensor([1 + 2j])
        c = z.conj()
        return [c.is_conj(), c.conj().is_conj(), c.resolve_conj().is_conj(), z.is_conj(),
                z.resolve_conj() is z, c.resolve_conj().numpy().tolist(),
                z.conj_physical().is_conj(), z.conj_physical().numpy().tolist()]
    same(flags)


def test_complex_conj_of_real_is_itself():
    x = tapegrad.tensor([1.0, -2.0], requires_grad=True)
    assert x.conj() is x and x.conj_physical() is x and x.resolve_conj() is x and x.real is x


def test_complex_conj_physical_in_place():
    def conjugated(lib):
        z = lib.tensor([1 + 2j, -1j])
        version = z._version
        z.conj_physical_()
        return z.numpy().tolist(), z._version - version
    same(conjugated)


def test_complex_complex_and_polar_values():
    same(lambda lib: [lib.complex(lib.tensor([1.0, 2.0]), lib.tensor([[3.0], [4.0]]))
                      .numpy().tolist(),
                      lib.polar(lib.tensor(X), lib.tensor(X[::-1].copy())).numpy().tolist(),
                      str(lib.complex(lib.zeros(1, dtype=lib.float64),
                                      lib.zeros(1, dtype=lib.float64)).dtype)])


# ---- refusals of ordering and rounding ---------------------------------------------------------

@pytest.mark.parametrize("case", [
    lambda lib: lib.tensor([1 + 1j]) < 1,
    lambda lib: lib.tensor([1 + 1j]) >= lib.tensor([1j]),
    lambda lib: lib.tensor([1.0]) > 1j,
    lambda lib: lib.tensor([1 + 1j]).clamp(0, 1),
    lambda lib: lib.tensor([1 + 1j]).clamp(min=lib.tensor([0j])),
    lambda lib: lib.tensor([1 + 1j]).clamp_min(0),
    lambda lib: lib.tensor([1 + 1j]).clamp_max(0),
    lambda lib: lib.maximum(lib.tensor([1 + 1j]), lib.tensor([1j])),
    lambda lib: lib.minimum(lib.tensor([1 + 1j]), lib.tensor([1j])),
    lambda lib: lib.tensor([1 + 1j]).sign(),
    lambda lib: lib.tensor([1 + 1j]).floor(),
    lambda lib: lib.tensor([1 + 1j]).ceil(),
    lambda lib: lib.tensor([1 + 1j]).trunc(),
    lambda lib: lib.tensor([1 + 1j]).round(),
    lambda lib: lib.tensor([1 + 1j]).frac(),
    lambda lib: lib.tensor([1 + 1j]).relu(),
    lambda lib: lib.tensor([1 + 1j]).erf(),
    lambda lib: lib.tensor([1 + 1j]).erfc(),
    lambda lib: lib.tensor([1 + 1j]).logit(),
    lambda lib: lib.tensor([1 + 1j]).deg2rad(),
    lambda lib: lib.tensor([1 + 1j]).rad2deg(),
    lambda lib: lib.tensor([1 + 1j]).abs_(),
    lambda lib: lib.atan2(lib.tensor([1 + 1j]), lib.tensor([1.0])),
    lambda lib: lib.copysign(lib.tensor([1 + 1j]), 1.0),
    lambda lib: lib.hypot(lib.tensor([1 + 1j]), lib.tensor([1j])),
    lambda lib: lib.nextafter(lib.tensor([1 + 1j]), lib.tensor([1j])),
    lambda lib: lib.logaddexp2(lib.tensor([1 + 1j]), lib.tensor([1j])),
    lambda lib: lib.fmax(lib.tensor([1 + 1j]), lib.tensor([1j])),
    lambda lib: lib.fmin(lib.tensor([1.0]), lib.tensor([1j])),
    lambda lib: lib.heaviside(lib.tensor([1 + 1j]), lib.tensor([1j])),
    lambda lib: lib.remainder(lib.tensor([1 + 1j]), 2),
    lambda lib: lib.fmod(lib.tensor([1 + 1j]), lib.tensor([1j])),
    lambda lib: lib.floor_divide(lib.tensor([1 + 1j]), 2),
    lambda lib: lib.div(lib.tensor([1 + 1j]), 2, rounding_mode="trunc"),
    lambda lib: lib.xlogy(lib.tensor([1 + 1j]), lib.tensor([1j])),
    lambda lib: lib.zeros(2, dtype=lib.cfloat).float_power_(2),
    lambda lib: lib.lerp(lib.zeros(2, dtype=lib.cfloat), lib.zeros(2, dtype=lib.cdouble), 0.5),
    lambda lib: lib.zeros(2).fill_(1j),
    lambda lib: lib.zeros(2).masked_fill(lib.tensor([True, False]), 1j),
    lambda lib: lib.full((2,), 1j, dtype=lib.int32),
    lambda lib: lib.scalar_tensor(1j),
    lambda lib: lib.linspace(0, 1j, 4, dtype=lib.float32),
    lambda lib: lib.arange(3, dtype=lib.complex128),
    lambda lib: lib.arange(1j),
    lambda lib: lib.randint(0, 3, (2,), dtype=lib.cdouble),
], ids=lambda case: None)
def test_complex_refusals_match_torch(case):
    same_error(case)


def test_complex_nan_to_num_part_by_part():
    same(lambda lib: lib.nan_to_num(lib.tensor([complex("nan+1j"), complex("inf-infj")]), 2.0,
                                    5.0, -5.0).tolist())


def test_complex_eq_and_ne():
    same(lambda lib: [(lib.tensor([1j, 2]) == lib.tensor([1j, 2j])).tolist(),
                      (lib.tensor([1j, 2]) != 2).tolist()])


def test_complex_backward_of_complex_scalar_refused():
    same_error(lambda lib: (lib.tensor([1j], requires_grad=True) * 2).sum().backward())


# ---- values, gradients and node names against torch --------------------------------------------

def _scenarios():
    return {
        "mul": (lambda lib, z, w: z * w, Z, W),
        "div": (lambda lib, z, w: z / w, Z, W),
        "add_alpha": (lambda lib, z, w: lib.add(z, w, alpha=2 - 1j), Z, W),
        "sub_alpha": (lambda lib, z, w: lib.sub(z, w, alpha=1 + 1j), Z, W),
        "rsub": (lambda lib, z: 1j - z, Z),
        "mul_real": (lambda lib, z, x: z * x, Z, X),
        "div_real": (lambda lib, x, z: x / z, X, Z),
        "mul_number": (lambda lib, x: x * (2 + 3j), X),
        "div_number": (lambda lib, z: z / (2 + 3j), Z),
        "pow_number": (lambda lib, z: z ** 2, Z),
        "pow_complex_number": (lambda lib, z: z ** (0.5 + 1j), Z),
        "pow_tensors": (lambda lib, z, w: z ** w, Z, W),
        "number_pow": (lambda lib, z: (2 + 1j) ** z, Z),
        "square": (lambda lib, z: z.square(), Z),
        "reciprocal": (lambda lib, z: z.reciprocal(), Z),
        "neg": (lambda lib, z: -z, Z),
        "addcmul": (lambda lib, z, w: lib.addcmul(z, z, w, value=2), Z, W),
        "addcdiv": (lambda lib, z, w: lib.addcdiv(z, z, w, value=2), Z, W),
        "where": (lambda lib, z, w: lib.where(z.real > 0, z, w), Z, W),
        "to_complex": (lambda lib, x: x.to(lib.complex128) * (1 + 2j), X),
        "sum": (lambda lib, z: z.sum() * z, Z),
        **{name: (lambda lib, z, name=name: getattr(z, name)(), Z) for name in (
            "exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan sinh cosh tanh asin "
            "acos atan asinh acosh atanh sigmoid abs angle sgn conj_physical").split()},
        "conj": (lambda lib, z: z.conj() * 1, Z),
        "real": (lambda lib, z: z.real * z.imag, Z),
        "view_as_real": (lambda lib, z: lib.view_as_real(z) * 2, Z),
        "view_as_complex": (lambda lib, x: lib.view_as_complex(x.reshape(2, 2)), X[:4]),
        "complex": (lambda lib, x, y: lib.complex(x, y), X, X[::-1].copy()),
        "polar": (lambda lib, x, y: lib.polar(x, y), X, X[::-1].copy()),
        "abs_squared": (lambda lib, z: (z * z.conj()).real, Z),
        "at_zero": (lambda lib, z: (z * 0).abs() + (z * 0).angle() + (z * 0).sgn().real, Z),
    }


SCENARIOS = _scenarios()


def _run(lib, name):
    function, *arrays = SCENARIOS[name]
    inputs = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = function(lib, *inputs)
    node = type(out.grad_fn).__name__
    flat = lib.view_as_real(out) if out.dtype.is_complex else out
    cotangent = np.linspace(-1, 1.5, flat.numel()).reshape(tuple(flat.shape))
    grads = lib.autograd.grad(flat, inputs, lib.tensor(cotangent, dtype=flat.dtype),
                              allow_unused=True)
    return (node, str(out.dtype), out.detach().resolve_conj().numpy(),
            [None if g is None else (str(g.dtype), g.resolve_conj().numpy()) for g in grads])


@pytest.mark.parametrize("name", SCENARIOS)
def test_complex_values_and_gradients_match_torch(name):
    torch = torch_or_skip()
    mine, theirs = _run(tapegrad, name), _run(torch, name)
    assert mine[:2] == theirs[:2]
    np.testing.assert_allclose(mine[2], theirs[2], rtol=1e-12, atol=1e-12)
    for got, want in zip(mine[3], theirs[3]):
        assert (got is None) == (want is None)
        if want is not None:
            assert got[0] == want[0]
            np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)


# ---- gradcheck through real parameters ----------------------------------------------------------

HOLOMORPHIC_AND_NOT = {
    "mul": lambda z, w: z * w, "div": lambda z, w: z / w, "pow": lambda z, w: z ** w,
    "mul_conj": lambda z, w: z * w.conj(), "abs": lambda z, w: z.abs() * w,
    "angle": lambda z, w: z.angle() + w.real, "sgn": lambda z, w: z.sgn() * w,
    "exp_log": lambda z, w: z.exp() + w.log(), "sqrt_tanh": lambda z, w: z.sqrt() * w.tanh(),
    "trig": lambda z, w: z.sin() * w.cos() + z.tan(), "sigmoid": lambda z, w: z.sigmoid() - w,
    "inverse_trig": lambda z, w: z.asin() + z.acos() * w.atan(),
    "inverse_hyperbolic": lambda z, w: z.asinh() + z.acosh() * w.atanh(),
    "reciprocal_rsqrt": lambda z, w: z.reciprocal() + w.rsqrt(),
    "parts": lambda z, w: tapegrad.complex(z.imag, w.real) * z.real,
    "polar": lambda z, w: tapegrad.polar(z.abs(), w.angle()),
    "addcdiv": lambda z, w: tapegrad.addcdiv(z, z, w, value=0.5 - 1j),
}


def _through_real_parameters(function):
    def real_function(x, y, u, v):
        result = function(tapegrad.complex(x, y), tapegrad.complex(u, v))
        return tapegrad.view_as_real(result) if result.dtype.is_complex else result
    return real_function


def _real_parameters():
    return [tapegrad.tensor(part, requires_grad=True) for part in
            (Z.real.copy(), Z.imag.copy(), W.real.copy(), W.imag.copy())]


@pytest.mark.parametrize("name", HOLOMORPHIC_AND_NOT)
def test_complex_gradcheck(name):
    assert gradcheck(_through_real_parameters(HOLOMORPHIC_AND_NOT[name]), _real_parameters())


@pytest.mark.parametrize("name", ["mul", "div", "mul_conj", "abs", "exp_log", "trig"])
def test_complex_gradgradcheck(name):
    assert gradgradcheck(_through_real_parameters(HOLOMORPHIC_AND_NOT[name]), _real_parameters())


def test_complex_gradient_of_real_loss_is_conjugate_wirtinger():
    z = tapegrad.tensor(Z, requires_grad=True)
    (z * z.conj()).real.sum().backward()  # |z|^2: torch's gradient is 2 z
    np.testing.assert_allclose(z.grad.numpy(), 2 * Z)


def test_complex_real_input_of_complex_op_gets_real_gradient():
    x = tapegrad.tensor(X, requires_grad=True)
    (x * (1 + 2j)).abs().sum().backward()
    assert x.grad.dtype is tapegrad.float64
    np.testing.assert_allclose(x.grad.numpy(), np.sqrt(5) * np.sign(X))


def test_complex_empty_and_batched():
    same(lambda lib: [(lambda z: (z.exp() * z).abs().sum().item())(lib.zeros(0, 3,
                                                                              dtype=lib.cfloat)),
                      lib.view_as_real(lib.zeros(2, 0, dtype=lib.cdouble)).shape,
                      (lib.tensor(Z[:4].reshape(2, 2, 1)) * lib.tensor(W[:2])).shape])


def test_real_gradients_unchanged_on_arrays():
    # conj_of is the identity on real values: a real backward still runs on arrays
    # (an earlier test's mixed-dtype backward may have sent mul to Tensors for good: start
    # from arrays, so the flag tells what this backward did)
    from tapegrad.ops.pointwise import mul
    mul.on_arrays = True
    x = tapegrad.tensor(X, requires_grad=True)
    (x * x.exp()).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(X) * (1 + X))
    assert mul.on_arrays
