"""OpInfos of torch's op database that do not yet pass in complex64/complex128
(tests/test_torch_op_db_complex.py): "name" or "name|dtype" -> why. Kept apart from the test
so the documentation's "Differences from PyTorch" page reads it without torch."""
_CONJ_IS_A_COPY = ("Note [Conjugate bit]: conj() is a copy here, so made under no_grad it does "
                   "not require grad as torch's lazy conjugate view does")
_COMPLEX_LINALG = "complex linear algebra (ops/linalg.py, factorization.py) is not written yet"
XFAILS = {
    "conj": _CONJ_IS_A_COPY,
    "mH": "mH conjugates, but through conj(), a copy: its method variant under no_grad does not "
          "require grad as torch's lazy conjugate view does (Note [Conjugate bit])",
    "chalf": "NumPy has no complex32: Tensor.chalf() raises NotImplementedError",
    **dict.fromkeys("pca_lowrank|complex64 svd_lowrank|complex64".split(),
                    _COMPLEX_LINALG),
    "as_strided_scatter": "the gradient of as_strided_scatter's input differs for complex "
                          "(ops/strided.py)",
    "istft": ("torch gives no gradient to the sample's window (window[:8], a view made under "
              "no_grad of a window that requires grad: autograd.grad returns None for it and for "
              "its base), compared as zeros; for a window that is its own leaf torch's gradient "
              "equals tapegrad's"),
}
