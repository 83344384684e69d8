"""OptimizerInfos of torch's optimiser database that tapegrad does not pass, and
why (`python tests/torch_optim_db.py --write-xfails` writes it from a run: each
entry is the first failure reported)."""
XFAILS = {
    'Adafactor': "missing: tapegrad.optim.Adafactor is missing [input 0 'default': {}]",
    'LBFGS': "missing: tapegrad.optim.LBFGS is missing [input 0 'default': {}]",
    'Muon': "missing: tapegrad.optim.Muon is missing [input 0 'default': {}]",
    'SparseAdam': 'missing: it needs sparse gradients: tapegrad has no sparse layout',
}
