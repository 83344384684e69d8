"""Derived samples of torch's op database (test_torch_op_db_variants.py) where tapegrad
does not give torch's answer, and why. Keys: `OpInfo name|kind`, or `name|kind|dtype`
where only one dtype differs; each is a strict xfail."""

LANES = (
    "torch's gradient at NaN depends on the element's place: its vectorised loop gives one value,"
    ' the scalar tail another (0 or NaN for the first 16 of 20 or 24 of 25 elements, the slope '
    "after); tapegrad gives the scalar loop's everywhere")
LAPACK = (
    'a non-finite, overflowing or degenerate matrix: what LAPACK returns (NaN placement, the '
    "basis chosen for repeated singular or eigen vectors, rank cut-offs) differs between torch's "
    "MKL and NumPy's LAPACK; no answer is torch's for every such matrix")
SINGULAR = (
    "a singular matrix: torch's gradient is its LU solve's infinities and NaNs, tapegrad's the "
    'cofactors over a zero determinant; they differ in sign and in NaN placement')
SUMS = (
    'sums of +-huge numbers with ordinary ones cancel or overflow depending on the summation '
    "order (torch's vectorised and pairwise order, NumPy's pairwise one)")
NORMS = (
    "the variance of a row holding +-huge (or inf): torch's Welford update and tapegrad's two-"
    'pass formula overflow (inf, NaN) at different places')
WELFORD = (
    "torch's mean output comes from its Welford update, which turns a slice holding an infinity "
    "into NaN (inf - inf); tapegrad's mean is the plain mean (inf)")
SCATTER = (
    "as in test_torch_op_db's xfail: torch 2.13's as_strided_scatter_backward gives the input the"
    " written slice's gradient; on non-contiguous inputs torch stops at an internal assert")
FLOAT32_LIMIT = (
    "float32 at 3e38: torch's float32 kernels overflow in intermediate products and sums where "
    "tapegrad's (NumPy's float32 BLAS or a float64 intermediate) do not, or the reverse")

XFAILS = {
    'as_strided_scatter|huge': SCATTER,
    'as_strided_scatter|inf': SCATTER,
    'as_strided_scatter|nan': SCATTER,
    'as_strided_scatter|noncontiguous|float64': SCATTER,
    'as_strided_scatter|sliced|float64': SCATTER,
    'as_strided_scatter|ties': SCATTER,
    'as_strided_scatter|tiny': SCATTER,
    'as_strided_scatter|transposed|float64': SCATTER,
    'as_strided_scatter|zero': SCATTER,
    'bucketize|nan': (
        "boundaries holding a NaN are not sorted: torch's binary search takes NaN as smaller, "
        "NumPy's as larger than every number"),
    'cdist|inf': (
        "compute_mode use_mm_for_euclid_dist: torch's |x|^2 + |y|^2 - 2 x.y turns an infinity "
        "into NaN, tapegrad's differences keep it"),
    'cdist|nan': (
        "compute_mode use_mm_for_euclid_dist: torch's |x|^2 + |y|^2 - 2 x.y turns an infinity "
        "into NaN, tapegrad's differences keep it"),
    'cross|huge|float32': SUMS,
    'i0|inf': (
        "intentional (see i0's docstring): inf at +-inf, where torch gives NaN"),
    'igamma|huge|float32': FLOAT32_LIMIT,
    'igamma|tiny|float64': (
        "a subnormal a: torch's x^a e^-x / Gamma(a) prefactor underflows, so it gives P = 0; the "
        'value is 1 - O(a), which tapegrad gives'),
    'igammac|huge|float32': FLOAT32_LIMIT,
    'linalg.det|huge': SINGULAR,
    'linalg.det|inf': SINGULAR,
    'linalg.eigh|expanded|float64': LAPACK,
    'linalg.eigh|huge|float64': LAPACK,
    'linalg.eigvalsh|expanded|float64': LAPACK,
    'linalg.eigvalsh|huge|float64': LAPACK,
    'linalg.inv|nan': LAPACK,
    'linalg.pinv|inf': LAPACK,
    'linalg.pinv.singular|huge|float64': LAPACK,
    'linalg.pinv.singular|inf': LAPACK,
    'linalg.qr|expanded|float64': LAPACK,
    'linalg.qr|huge|float32': LAPACK,
    'linalg.qr|inf': LAPACK,
    'linalg.slogdet|expanded|float64': SINGULAR,
    'linalg.slogdet|nan': SINGULAR,
    'linalg.slogdet|zero|float64': SINGULAR,
    'linalg.solve|nan|float32': LAPACK,
    'linalg.svdvals|huge': LAPACK,
    'linalg.svdvals|inf': LAPACK,
    'logdet|expanded|float64': SINGULAR,
    'logdet|nan': SINGULAR,
    'logdet|zero|float64': SINGULAR,
    'native_batch_norm|huge|float64': NORMS,
    'native_group_norm|huge': NORMS,
    'native_group_norm|inf': NORMS,
    'native_layer_norm|huge': NORMS,
    'nn.functional.batch_norm|huge|float64': NORMS,
    'nn.functional.bilinear|huge': (
        'x1 W x2 with an infinity or +-huge: torch contracts in another order, so inf - inf (NaN)'
        ' or an overflow comes out at other places'),
    'nn.functional.bilinear|inf': (
        'x1 W x2 with an infinity or +-huge: torch contracts in another order, so inf - inf (NaN)'
        ' or an overflow comes out at other places'),
    'nn.functional.celu|nan|float64': LANES,
    'nn.functional.elu|nan|float64': LANES,
    'nn.functional.gelu|huge|float32': (
        "float32 erf-gelu at +-3e38 and +-inf: torch's vectorised float32 kernel gives inf/NaN or"
        ' rounds differently where tapegrad computes through float64'),
    'nn.functional.gelu|inf|float32': (
        "float32 erf-gelu at +-3e38 and +-inf: torch's vectorised float32 kernel gives inf/NaN or"
        ' rounds differently where tapegrad computes through float64'),
    'nn.functional.group_norm|huge': NORMS,
    'nn.functional.hardshrink|nan': LANES,
    'nn.functional.hardswish|nan': LANES,
    'nn.functional.hardtanh|nan': LANES,
    'nn.functional.instance_norm|huge|float32': NORMS,
    'nn.functional.instance_norm|inf': NORMS,
    'nn.functional.layer_norm|huge': NORMS,
    'nn.functional.linear|huge|float32': FLOAT32_LIMIT,
    'nn.functional.relu6|nan': LANES,
    'nn.functional.selu|nan|float64': LANES,
    'nn.functional.softshrink|nan': LANES,
    'norm.nuc|huge': LAPACK,
    'norm.nuc|inf': LAPACK,
    'pinverse|inf': LAPACK,
    'qr|expanded|float64': LAPACK,
    'qr|huge|float32': LAPACK,
    'qr|inf': LAPACK,
    'renorm|huge|float32': SUMS,
    'std_mean|huge': SUMS,
    'std_mean|inf|float64': WELFORD,
    'std_mean.unbiased|huge': SUMS,
    'sum_to_size|huge': SUMS,
    'var_mean|huge': SUMS,
    'var_mean|inf|float64': WELFORD,
    'var_mean.unbiased|huge': SUMS,
}
