"""The Householder family: geqrf (LAPACK's QR: R and the reflectors' vectors and scales),
householder_product (torch.orgqr: Q from them) and ormqr (Q or Q^T applied to a matrix without
forming Q), by SciPy's LAPACK matrix by matrix on the cpu; on a device (CuPy has geqrf, through
qr's 'raw' mode, but no orgqr or ormqr) the reflectors are applied one by one to the whole
batch; gradients are torch's formulas in tapegrad ops."""
import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import is_recording
from ._define import defop, is_array
from .complex_parts import conj_of
from .decomposition import _mH, check_lapack
from .factorization import _routine
from .joining import cat, stack
from .linalg import matmul
from .reduction import return_type, sum
from .reordering import tril
from .shape import constant_beside, unsqueeze, zeros_of

geqrf_return = return_type("geqrf", ("a", "tau"))


def _constant(array, like):
    """A constant for a formula, beside like: an array when the formula runs on arrays, else a
    Tensor."""
    return constant_beside(like, array.astype(like.dtype if is_array(like) else
                                              like.dtype.numpy))


def _reflected(xp, input, tau, C, left, transpose):
    """Q C, Q^H C (transpose), C Q or C Q^H, Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^H, with
    the reflectors applied one at a time to the whole batch (ormqr's work, for a device)."""
    k = tau.shape[-1]
    V = xp.tril(input[..., :k], -1) + xp.eye(input.shape[-2], k, dtype=input.dtype)
    scales = xp.conj(tau) if transpose else tau
    C = C.copy()
    for i in (range(k) if left == transpose else range(k - 1, -1, -1)):
        v, t = V[..., i:, i:i + 1], scales[..., i, None, None]
        if left:  # v is 0 above row i: only C's rows from i change
            C[..., i:, :] -= (t * v) @ (xp.conj(xp.swapaxes(v, -1, -2)) @ C[..., i:, :])
        else:
            C[..., :, i:] -= (C[..., :, i:] @ v) @ (t * xp.conj(xp.swapaxes(v, -1, -2)))
    return C


def _device_geqrf(xp, A):
    """geqrf of a batch on a device: CuPy's 'raw' QR is cuSOLVER's geqrf (LAPACK's vectors and
    scales), its vectors transposed as NumPy's are."""
    vectors, tau = xp.linalg.qr(A, mode="raw")
    return xp.ascontiguousarray(xp.swapaxes(vectors, -1, -2)), tau


@defop("GeqrfBackward0")
def _geqrf(xp, input: Tensor):
    if xp is not np:
        return _device_geqrf(xp, input)
    m, n = input.shape[-2:]
    a = input.copy()
    tau = xp.zeros(input.shape[:-2] + (min(m, n),), input.dtype)
    if input.size:
        geqrf = _routine("geqrf", input, "torch.geqrf")
        for index in xp.ndindex(input.shape[:-2]):
            a[index], tau[index], _, _ = geqrf(input[index])
    return a, tau


def _geqrf_backward(ctx):
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


_geqrf.derivatives(input=_geqrf_backward)


def geqrf(input, *, out=None):
    """(a, tau): LAPACK's QR, R on and above a's diagonal and the Householder vectors below it,
    with their scales tau (householder_product makes Q of them)."""
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    check_lapack("geqrf_cpu", input)
    if input.dtype.is_complex and input.requires_grad and is_recording():
        raise RuntimeError("geqrf does not support automatic differentiation for outputs with "
                           "complex dtype.")
    return geqrf_return(*_geqrf(input))


@defop("LinalgHouseholderProductBackward0", save=("result", "input", "tau"))
def _householder_product(xp, input: Tensor, tau: Tensor):
    m, n = input.shape[-2:]
    Q = xp.empty(input.shape, input.dtype)
    Q[...] = xp.eye(m, n, dtype=input.dtype)  # no reflectors: the first n columns of I
    if xp is not np:
        return _reflected(xp, input, tau, Q, left=True, transpose=False)
    if input.size and tau.shape[-1]:
        orgqr = _routine("orgqr", input, "torch.linalg.householder_product")
        for index in xp.ndindex(input.shape[:-2]):
            Q[index], _, _ = orgqr(input[index], tau[index])
    return Q


def _householder_grads(ctx):
    """Both gradients at once (they share the work), kept on ctx for the second formula."""
    if "_householder" not in ctx.__dict__:
        ctx._householder = _householder_backward(ctx.grad, ctx.result, ctx.input, ctx.tau)
    return ctx._householder


_householder_product.derivatives(input=lambda ctx: _householder_grads(ctx)[0],
                                 tau=lambda ctx: _householder_grads(ctx)[1])


def _householder_backward(grad, result, input, tau, flip=False):
    """torch's householder_product_backward. Q = H_1 ... H_k (first n columns), H_i = I - tau_i
    v_i v_i^T with v_i input's column i below the diagonal and 1 on it. With K_i = H_i+ Q_grad^T
    H_i- (the products after and before H_i), v_i's gradient is -tau_i (v_i^T K_i)^T - tau_i
    K_i v_i and tau_i's -v_i^T K_i v_i; K_i+1 = H_i+1^-1 K_i H_i, with H(tau)^-1 = H(sigma),
    sigma = tau / (tau |v|^2 - 1). flip runs i backwards with the sides swapped (ormqr)."""
    m, n = input.shape[-2:]
    k = tau.shape[-1]
    if 0 in input.shape or k == 0:  # as torch: no gradient at all
        return None, None
    V = tril(input, -1) + _constant(np.eye(m, n), input)
    sigma = tau / (tau * sum(V[..., :k] * conj_of(V[..., :k]), -2) - 1.0)
    K = matmul(result, _mH(grad))

    def reflect(K, i, scales, left):
        v, t = V[..., i:i + 1], unsqueeze(scales[..., i:i + 1], -1)
        return K - (t * v) * matmul(_mH(v), K) if left else K - matmul(K, t * v) * _mH(v)

    order = range(k - 1, -1, -1) if flip else range(k)
    K = reflect(K, order[0], sigma, not flip)
    input_grads, tau_grads = [None] * k, [None] * k
    for step, i in enumerate(order):
        v, t = V[..., i:, i:i + 1], unsqueeze(tau[..., i:i + 1], -1)
        vK = matmul(_mH(v), K[..., i:, :])
        Kv = matmul(K[..., :, i:], v)
        input_grads[i] = conj_of(-t * vK)[..., 0, :] - (t * Kv)[..., :, 0]
        tau_grads[i] = -conj_of(matmul(vK[..., :, i:], v))[..., 0, :]
        if step + 1 < k:
            following = order[step + 1]
            K = reflect(K, following, sigma, not flip)
            K = reflect(K, i, tau, flip)
    if k < n:  # the columns past k take no part
        input_grads.extend([zeros_of(input_grads[0])] * (n - k))
    return tril(stack(input_grads, -1), -1), cat(tau_grads, -1)


def _check_reflectors(name, input, tau):
    """What householder_product and ormqr ask of the vectors and their scales."""
    if input.ndim - tau.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to "
                           f"{input.ndim}")


def _check_batch(name, what, batch, input):
    if input.ndim > 2 and batch != input.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of {what} to be equal to "
                           f"input.shape[:-2], but got {list(batch)}")


def householder_product(input, tau, *, out=None):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, from geqrf's vectors
    (input's columns below the diagonal, 1 on it) and scales: Q of the QR."""
    name = "torch.linalg.householder_product"
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if input.shape[-2] < input.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.ndim and input.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    _check_reflectors(name, input, tau)
    _check_batch(name, "tau", tau.shape[:-1], input)
    if tau.dtype is not input.dtype:
        raise RuntimeError(f"{name}: tau dtype {tau.dtype.legacy_name} does not match input "
                           f"dtype {input.dtype.legacy_name}")
    check_lapack("orgqr_cpu", input)
    return _householder_product(input, tau)


@defop("OrmqrBackward0", save=("input", "input2", "result", "left", "transpose"))
def _ormqr(xp, input: Tensor, input2: Tensor, input3: Tensor, left=True, transpose=False):
    if xp is not np:
        return _reflected(xp, input, input2, input3, left, transpose)
    C = input3.copy()
    if C.size and input2.shape[-1]:
        ormqr = _routine("ormqr", C, "torch.ormqr")
        # Q^H for complex matrices (unmqr's "C")
        side = "L" if left else "R"
        trans = ("C" if C.dtype.kind == "c" else "T") if transpose else "N"
        k = input2.shape[-1]  # SciPy wants as many columns of vectors as scales
        for index in xp.ndindex(C.shape[:-2]):
            C[index], _, _ = ormqr(side, trans, input[index][:, :k], input2[index], C[index],
                                   max(1, C.shape[-1] if left else C.shape[-2]))
    return C


def _ormqr_reflector_grads(ctx):
    """input's and input2's gradients: householder_product's, with Q grad^T's roles swapped
    or reversed as the product is applied (torch's ormqr_backward)."""
    if "_reflectors" not in ctx.__dict__:
        grad, result = ctx.grad, ctx.result
        if ctx.left != ctx.transpose:
            pair = (grad, result) if not ctx.transpose else (_mH(grad), _mH(result))
            ctx._reflectors = _householder_backward(*pair, ctx.input, ctx.input2)
        else:
            pair = (_mH(result), _mH(grad)) if not ctx.transpose else (result, grad)
            ctx._reflectors = _householder_backward(*pair, ctx.input, ctx.input2, flip=True)
    return ctx._reflectors


_ormqr.derivatives(input=lambda ctx: _ormqr_reflector_grads(ctx)[0],
                   input2=lambda ctx: _ormqr_reflector_grads(ctx)[1],
                   input3=lambda ctx: _ormqr(ctx.input, ctx.input2, ctx.grad, ctx.left,
                                             not ctx.transpose))


def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """Q C, Q^T C, C Q or C Q^T (left, transpose) for Q = householder_product(input, input2),
    without forming Q (LAPACK's ormqr)."""
    name = "torch.ormqr"
    for label, tensor in (("input", input), ("other", input3)):
        if tensor.ndim < 2:
            raise RuntimeError(f"{name}: {label} must have at least 2 dimensions.")
    side = -2 if left else -1
    if input3.shape[side] != input.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if input2.ndim and input2.shape[-1] != min(input3.shape[side], input.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], "
                           "input.shape[-1])")
    _check_reflectors(name, input, input2)
    if input.ndim != input3.ndim:
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as "
                           f"input, but got other.ndim equal to {input3.ndim} and input.ndim is "
                           f"equal to {input.ndim}")
    _check_batch(name, "tau", input2.shape[:-1], input)
    _check_batch(name, "other", input3.shape[:-2], input)
    for label, tensor in (("tau", input2), ("other", input3)):
        if tensor.dtype is not input.dtype:
            raise RuntimeError(f"{name}: Expected input and {label} to have the same dtype, but "
                               f"input has dtype{input.dtype.legacy_name} and {label} has dtype "
                               f"{tensor.dtype.legacy_name}")
    check_lapack("ormqr_cpu", input)
    return _ormqr(input, input2, input3, left, transpose)


FUNCTIONS = {"geqrf": geqrf, "orgqr": householder_product, "ormqr": ormqr}
METHODS = FUNCTIONS
LINALG_FUNCTIONS = ("householder_product",)
