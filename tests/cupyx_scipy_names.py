"""The public names of cupyx.scipy.linalg and cupyx.scipy.special in CuPy 14.2.0, read from its
sources: the test double's SciPy twin offers only these, so an op that needs a function
CuPy lacks fails on the double as it would on a GPU."""
LINALG = frozenset((
    'bandwidth', 'block_diag', 'circulant', 'companion', 'convolution_matrix', 'dft',
    'expm', 'fiedler', 'fiedler_companion', 'hadamard', 'hankel', 'helmert', 'hilbert',
    'khatri_rao', 'kron', 'leslie', 'lu', 'lu_factor', 'lu_solve', 'solve_triangular',
    'toeplitz'))
SPECIAL = frozenset((
    'bdtr', 'bdtrc', 'bdtri', 'beta', 'betainc', 'betaincinv', 'betaln', 'binom', 'boxcox',
    'boxcox1p', 'btdtr', 'btdtri', 'cbrt', 'chdtr', 'chdtrc', 'chdtri', 'cosdg', 'cosm1',
    'cotdg', 'digamma', 'ellipeinc', 'ellipj', 'ellipk', 'ellipkinc', 'ellipkm1', 'entr',
    'erf', 'erfc', 'erfcinv', 'erfcx', 'erfinv', 'exp1', 'exp10', 'exp2', 'expi', 'expit',
    'expm1', 'expn', 'exprel', 'fdtr', 'fdtrc', 'fdtri', 'gamma', 'gammainc', 'gammaincc',
    'gammainccinv', 'gammaincinv', 'gammaln', 'gammasgn', 'gdtr', 'gdtrc', 'huber', 'i0',
    'i0e', 'i1', 'i1e', 'inv_boxcox', 'inv_boxcox1p', 'j0', 'j1', 'k0', 'k0e', 'k1', 'k1e',
    'kl_div', 'lambertw', 'log1p', 'log_expit', 'log_ndtr', 'log_softmax', 'loggamma',
    'logit', 'logsumexp', 'lpmv', 'multigammaln', 'nbdtr', 'nbdtrc', 'nbdtri', 'ndtr',
    'ndtri', 'pdtr', 'pdtrc', 'pdtri', 'poch', 'polygamma', 'pseudo_huber', 'psi', 'radian',
    'rel_entr', 'rgamma', 'round', 'shichi', 'sici', 'sinc', 'sindg', 'softmax', 'sph_harm',
    'sph_harm_y', 'spherical_yn', 'tandg', 'wright_bessel', 'xlog1py', 'xlogy', 'y0', 'y1',
    'yn', 'zeta', 'zetac'))
