"""OptimizerInfos of torch's optimiser database that tapegrad does not pass, and
why (`python tests/torch_optim_db.py --write-xfails` writes it from a run: each
entry is the first failure reported)."""
XFAILS = {
    'LBFGS|float32': (
        "float32 rounding: the losses start bit-identical, but float32 dot products (NumPy's "
        "BLAS, torch's own kernel) differ in the last bits, and L-BFGS's stopping tests at "
        "tolerance_change=1e-9 then end a step one function evaluation apart (15 vs 14); "
        "float64 matches on every input, with and without the strong-Wolfe line search"),
}
