"""torch's CPU random streams: its mt19937 engine and the transforms its CPU kernels apply per
distribution, dtype and size, so that a seeded program draws torch's numbers bit for bit.
The transforms were derived by comparing with torch 2.13's outputs (tests/test_rng_streams.py)."""
import math

import numpy as np

_STATE_SIZE = 624
_U64 = np.uint64


def engine(seed):
    """NumPy's MT19937 bit generator holding the state torch's generator has after
    manual_seed(seed): the standard initialisation from the seed's low 32 bits."""
    key = np.empty(_STATE_SIZE, np.uint32)
    word = seed & 0xFFFFFFFF
    for index in range(_STATE_SIZE):
        key[index] = word
        word = (1812433253 * (word ^ (word >> 30)) + index + 1) & 0xFFFFFFFF
    bits = np.random.MT19937()
    bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _STATE_SIZE}}
    return bits


# torch's CPUGeneratorImplState: seed, left, seeded, next, the 624 words (as uint64), the
# cached double normal (normal_y, flagged by normal_is_valid) and a float one, padded to 8
STATE_BYTES = 5056
_STATE_FIELDS = np.dtype({
    "names": ["seed", "left", "seeded", "next", "words", "normal_y", "normal_valid"],
    "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", _STATE_SIZE), "<f8", "<i4"],
    "offsets": [0, 8, 12, 16, 24, 5024, 5040], "itemsize": STATE_BYTES})


def pack_state(generator):
    """The generator's state as torch.get_rng_state's 5056 bytes."""
    state = generator.engine.state["state"]
    record = np.zeros((), _STATE_FIELDS)
    record["seed"], record["seeded"] = generator.initial_seed(), 1
    record["left"] = _STATE_SIZE + 1 - state["pos"]
    record["next"] = state["pos"] % _STATE_SIZE if state["pos"] < _STATE_SIZE else 0
    record["words"] = state["key"]
    if generator.next_normal is not None:
        record["normal_y"], record["normal_valid"] = generator.next_normal, 1
    return np.frombuffer(record.tobytes(), np.uint8).copy()


def unpack_state(generator, data):
    record = np.frombuffer(np.ascontiguousarray(data, np.uint8).tobytes(), _STATE_FIELDS)[0]
    generator._seed = int(record["seed"])
    key = record["words"].astype(np.uint32)
    generator.engine.state = {"bit_generator": "MT19937",
                              "state": {"key": key, "pos": _STATE_SIZE + 1 - int(record["left"])}}
    generator.next_normal = float(record["normal_y"]) if record["normal_valid"] else None


def random32(generator, count):
    """count 32-bit draws (as uint64)."""
    return generator.engine.random_raw(count).astype(_U64)


def random64(generator, count):
    """count 64-bit draws, each made of two 32-bit draws, the first one high."""
    pairs = random32(generator, 2 * count).reshape(count, 2)
    return (pairs[:, 0] << _U64(32)) | pairs[:, 1]


def _standard_uniform(generator, count, dtype):
    """[0, 1) from the low `digits` bits of a 32-bit draw (float32) or a 64-bit one
    (float64)."""
    if dtype == np.float64:
        return (random64(generator, count) & _U64(2**53 - 1)).astype(np.float64) * 2.0**-53
    bits = (random32(generator, count) & _U64(2**24 - 1)).astype(np.float32)
    return bits * np.float32(2.0**-24)


# Note [Reduced precision draws]: torch draws float16 and bfloat16 samples in float (its
# "opmath" type): uniforms of 24 bits, float bounds and means, float Box-Muller, and rounds
# only the result. Values computed in double (the scalar paths) become float first, then the
# 16-bit type, as C++'s Half(float) and BFloat16(float) convert: two roundings, not one.

def is_floating(dtype):
    """A real floating dtype (ml_dtypes' bfloat16 has NumPy's kind "V")."""
    return dtype.kind == "f" or dtype.kind == "V" and dtype.itemsize == 2


def is_reduced(dtype):
    """float16 or bfloat16."""
    return is_floating(dtype) and dtype.itemsize == 2


def compute_dtype(dtype):
    """The NumPy dtype torch computes dtype's samples in."""
    return np.dtype(np.float64 if dtype == np.float64 else np.float32)


def rounded(values, dtype):
    """values (doubles, floats or integers) in dtype, rounded as C++ converts them (see the
    Note above)."""
    if values.dtype == dtype:
        return values
    with np.errstate(over="ignore"):  # C++ casts overflow to infinity without a word
        if is_reduced(dtype) and values.dtype != np.float32:
            values = values.astype(np.float32)
        return values.astype(dtype)


def uniform(generator, count, dtype, low, high):
    """uniform_'s samples: u * (to - from) + from in the compute dtype, fused, rounded to dtype;
    a sample that rounds up to `to` becomes `from`, so that the range stays half-open."""
    compute = compute_dtype(dtype)
    sample = _standard_uniform(generator, count, compute)
    low, high = compute.type(low), compute.type(high)
    sample = rounded(_fma(sample, high - low, low, compute), dtype)
    sample[sample == dtype.type(high)] = dtype.type(low)
    return sample


def _fma(a, b, c, dtype):
    """a * b + c rounded once (the kernels are compiled with fused multiply-add); float32
    through float64, where the product is exact."""
    b, c = float(dtype.type(b)), float(dtype.type(c))
    if dtype == np.float64:
        return _fma64(a, b, c)
    return (a.astype(np.float64) * b + c).astype(np.float32)


def _fma64(a, b, c):
    """a * b + c for float64 with the product's rounding error kept (Dekker's exact product
    and Knuth's exact sum): the fused result but in rare near-halfway cases."""
    if abs(b) >= 2.0 ** 996:  # b's split would overflow: work 2**64 times smaller, exactly
        return _fma64(a, b * 2.0 ** -64, c * 2.0 ** -64) * 2.0 ** 64
    with np.errstate(invalid="ignore", over="ignore"):  # inf terms make NaN errors, unused
        product = a * b
        a_high, a_low = _split(a)
        b_high, b_low = _split(np.float64(b))
        error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
        total = product + c
        virtual = total - product
        rounding = (product - (total - virtual)) + (c - virtual)
        # an inf (or NaN) sum is the fused result as it is
        return np.where(np.isfinite(total), total + (rounding + error), total)


def _split(x):
    scaled = x * 134217729.0  # 2**27 + 1
    high = scaled - (scaled - x)
    return high, x - high


def normal(generator, count, dtype, mean, std, contiguous=True):
    """normal_'s samples. A contiguous target of 16 or more elements: Box-Muller over blocks of
    16 uniforms, the last block redrawn and written over the last 16 places when count is not
    a multiple of 16 (float32 and float64 draw all count uniforms first, float16 and bfloat16
    block by block). Else one double pair per two samples, the second kept for the next call."""
    if count < 16 or not contiguous:  # in double, mean and std not rounded to the dtype
        values = _scalar_normals(generator, count)
        return rounded(_fma64(values, float(std), float(mean)), dtype)
    compute = compute_dtype(dtype)
    whole = count - count % 16
    blocks = _standard_uniform(generator, whole if is_reduced(dtype) else count, compute)[:whole]
    if count % 16:  # the redrawn block goes through Box-Muller with the others
        blocks = np.concatenate([blocks, _standard_uniform(generator, 16, compute)])
    _box_muller_16(blocks.reshape(-1, 16), compute)
    data = blocks[:count].copy()
    data[count - 16:] = blocks[-16:]
    return rounded(_fma(data, std, mean, compute), dtype)


def _box_muller_16(blocks, dtype):
    """In place: first halves u1, second halves u2 -> r cos(theta), r sin(theta)."""
    one_minus = dtype.type(1) - blocks[:, :8]
    angle = dtype.type(2.0 * np.pi) * blocks[:, 8:]
    if dtype == np.float64:  # the C library's log, sin and cos, as torch's double kernel
        radius = np.sqrt(-2.0 * _libm(math.log, one_minus))
        sine, cosine = _libm(math.sin, angle), _libm(math.cos, angle)
    else:
        radius = np.sqrt(np.float32(-2) * _log_ps(one_minus))
        sine, cosine = _sincos_ps(angle)
    blocks[:, :8] = radius * cosine
    blocks[:, 8:] = radius * sine


def _libm(function, values):
    return np.array([function(value) for value in values.ravel().tolist()]).reshape(values.shape)


def _scalar_normals(generator, count):
    """count draws of the scalar path: one Box-Muller pair of double uniforms per two values
    (cosine first), the sine of an unfinished pair kept in the generator for the next call."""
    values = np.empty(count)
    start = 0
    if count and generator.next_normal is not None:
        values[0], generator.next_normal, start = generator.next_normal, None, 1
    pairs = (count - start + 1) // 2
    uniforms = _standard_uniform(generator, 2 * pairs, np.dtype(np.float64)).reshape(pairs, 2)
    radius = np.sqrt(-2.0 * _libm(math.log1p, -uniforms[:, 1]))
    angle = 2.0 * math.pi * uniforms[:, 0]
    drawn = np.stack([radius * _libm(math.cos, angle), radius * _libm(math.sin, angle)], 1)
    drawn = drawn.reshape(-1)
    values[start:] = drawn[:count - start]
    if (count - start) % 2:
        generator.next_normal = float(drawn[-1])
    return values


# ---- the float32 log and sincos of the vectorised (AVX2) normal kernel ----------------------
# Cephes polynomials as the vector kernel evaluates them, with its fused multiply-adds.

_F = np.float32
_LOG_POLY = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
             1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
             3.3333331174e-1)


def _fused(a, b, c):
    return (a.astype(np.float64) * np.float64(b) + c).astype(_F)


def _log_ps(x):
    bits = np.maximum(x, _F(1.17549435e-38)).view(np.int32)
    exponent = ((bits >> 23) - 0x7F).astype(_F) + _F(1)
    x = ((bits & ~0x7F800000) | _F(0.5).view(np.int32)).view(_F)
    small = x < _F(0.707106781186547524)  # below sqrt(1/2): one octave down
    exponent = exponent - small.astype(_F)
    x = (x - _F(1)) + np.where(small, x, _F(0))
    square = x * x
    poly = np.full_like(x, _LOG_POLY[0])
    for coefficient in _LOG_POLY[1:]:
        poly = _fused(poly, x, _F(coefficient))
    poly = _fused(poly * x, square, exponent * _F(-2.12194440e-4))
    poly = poly - square * _F(0.5)
    return _fused(exponent, _F(0.693359375), x + poly)


def _sincos_ps(x):
    sine_negative = x < 0
    x = np.abs(x)
    octant = ((x * _F(1.27323954473516)).astype(np.int32) + 1) & ~1
    y = octant.astype(_F)
    for step in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8):
        x = _fused(y, _F(step), x)
    sine_negative ^= (octant & 4) != 0
    cosine_negative = (~(octant - 2) & 4) != 0
    use_sine_poly = (octant & 2) == 0
    square = x * x
    cos_poly = _fused(np.full_like(x, 2.443315711809948e-5), square, _F(-1.388731625493765e-3))
    cos_poly = _fused(cos_poly, square, _F(4.166664568298827e-2)) * square
    cos_poly = _fused(cos_poly, square, -(square * _F(0.5))) + _F(1)
    sin_poly = _fused(np.full_like(x, -1.9515295891e-4), square, _F(8.3321608736e-3))
    sin_poly = _fused(sin_poly, square, _F(-1.6666654611e-1)) * square
    sin_poly = _fused(sin_poly, x, x)
    sine = np.where(use_sine_poly, sin_poly, cos_poly)
    cosine = np.where(use_sine_poly, cos_poly, sin_poly)
    return np.where(sine_negative, -sine, sine), np.where(cosine_negative, -cosine, cosine)


def bernoulli(generator, probabilities):
    """bernoulli's 0/1 (as bool) for an array of probabilities, flat in drawing order: a double
    uniform below p for float64 p (and a number p), else a float one below float(p)."""
    probabilities = np.asarray(probabilities)
    dtype = np.dtype(np.float64 if probabilities.dtype == np.float64 else np.float32)
    uniform = _standard_uniform(generator, probabilities.size, dtype)
    return uniform.reshape(probabilities.shape) < probabilities.astype(dtype, copy=False)


def exponential(generator, count, lambd):
    """exponential_'s samples in float64: -1 / lambd * log1p(-u) for a double uniform u."""
    scale = -1.0 / lambd
    return scale * _libm(math.log1p, -_standard_uniform(generator, count, np.dtype(np.float64)))


def log_normal(generator, count, mean, std):
    """log_normal_'s samples in float64: exp of scalar-path normals (cache included)."""
    values = _scalar_normals(generator, count)
    return _libm(math.exp, _fma64(values, float(std), float(mean)))


def cauchy(generator, count, median, sigma):
    """cauchy_'s samples in float64: median + sigma * tan(pi (u - 1/2)), fused."""
    uniform = _standard_uniform(generator, count, np.dtype(np.float64))
    return _fma64(_libm(math.tan, math.pi * (uniform - 0.5)), float(sigma), float(median))


def geometric(generator, count, p):
    """geometric_'s samples in float64: ceil(log(u) / log1p(-p)) for a double uniform u."""
    uniform = _standard_uniform(generator, count, np.dtype(np.float64))
    logs = _libm(lambda u: math.log(u) if u > 0 else -math.inf, uniform)
    return np.ceil(logs / math.log1p(-p))


# ---- Poisson ---------------------------------------------------------------------------------

class _Doubles:
    """The generator's double uniforms, drawn ahead in chunks for a sampler that takes a
    varying number per element; finish() leaves the engine just past those used."""

    def __init__(self, generator):
        self._generator, self._state = generator, generator.engine.state
        self._buffer, self._position, self._used = [], 0, 0

    def next(self):
        if self._position == len(self._buffer):
            self._used += len(self._buffer)
            size = min(4096, 2 * len(self._buffer) + 16)
            self._buffer = _standard_uniform(self._generator, size, np.dtype(np.float64)).tolist()
            self._position = 0
        self._position += 1
        return self._buffer[self._position - 1]

    def finish(self):
        self._generator.engine.state = self._state
        random32(self._generator, 2 * (self._used + self._position))


def poisson(generator, rates):
    """torch.poisson's samples (int64) for rates (flat, in drawing order): Knuth's product of
    uniforms below 10, Hoermann's transformed rejection from 10 on, as torch's CPU kernel."""
    uniforms = _Doubles(generator)
    samples = np.empty(len(rates), np.int64)
    try:
        for index, rate in enumerate(rates.tolist()):
            if not rate >= 0:
                raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
            samples[index] = (_poisson_by_rejection(rate, uniforms) if rate >= 10
                              else _poisson_by_product(rate, uniforms))
    finally:
        uniforms.finish()
    return samples


def _poisson_by_product(rate, uniforms):
    if rate == 0:
        return 0
    limit, product, count = math.exp(-rate), 1.0, 0
    while True:
        product *= uniforms.next()
        if not product > limit:
            return count
        count += 1


def _poisson_by_rejection(rate, uniforms):
    root, log_rate = math.sqrt(rate), math.log(rate)
    b = 0.931 + 2.53 * root
    a = -0.059 + 0.02483 * b
    log_inverse_alpha = math.log(1.1239 + 1.1328 / (b - 3.4))
    vr = 0.9277 - 3.6224 / (b - 2)
    while True:
        u = uniforms.next() - 0.5
        v = uniforms.next()
        us = 0.5 - abs(u)
        # the kernel's int64 k is tested as the double it came from (its compiler folds the
        # round trip) and only converted when returned
        k = _floor((2 * a / us + b) * u + rate + 0.43 if us else -math.inf)
        if us >= 0.07 and v <= vr:
            return to_int64(k)
        if k < 0 or (us < 0.013 and v > us):
            continue
        # (math.lgamma is not the C library's: the two may differ in the last bit, which
        # could flip this test only for a value within an ulp of the bound)
        if (_log(v) + log_inverse_alpha - math.log(a / (us * us) + b)
                <= -rate + k * log_rate - _lgamma(k + 1.0)):
            return to_int64(k)


def _log(value):
    return math.log(value) if value > 0 else -math.inf


def _lgamma(value):
    return math.lgamma(value) if math.isfinite(value) else math.inf


def _floor(value):
    return float(math.floor(value)) if math.isfinite(value) else value


def to_int64(value):
    """A double converted to int64 as x86 converts: out of range or NaN gives the minimum
    (so an infinite rate samples -2**63, as torch's kernel)."""
    return int(value) if -2.0**63 <= value < 2.0**63 else -2**63


# ---- integers ------------------------------------------------------------------------------

def integers(generator, count, low, span, wide):
    """random_(from, to)'s values low + draw % span as Python ints in an int64 array (span
    2**64: the full range); 64-bit draws when wide, else 32-bit ones."""
    if span == 2**64:
        return random64(generator, count).view(np.int64)
    draws = random64(generator, count) if wide else random32(generator, count)
    return (draws % _U64(span)).astype(np.int64) + np.int64(low)


def permutation(generator, n):
    """randperm: swap position i with i + draw % (n - i), i = 0 .. n - 2 (on a list: NumPy's
    element access would cost several times more per swap)."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    targets = (random32(generator, n - 1) % np.arange(n, 1, -1, dtype=_U64)).astype(np.int64)
    targets += np.arange(n - 1)
    result = list(range(n))
    for i, j in enumerate(targets.tolist()):
        result[i], result[j] = result[j], result[i]
    return np.array(result, np.int64)
