"""OptimizerInfos of torch's optimiser database that tapegrad does not pass, and
why (`python tests/torch_optim_db.py --write-xfails` writes it from a run: each
entry is the first failure reported)."""
XFAILS = {
    'ASGD': "missing: tapegrad.optim.ASGD is missing [input 0 'default': {}]",
    'Adafactor': "missing: tapegrad.optim.Adafactor is missing [input 0 'default': {}]",
    'Adam': "mismatch: torch raises ValueError matching 'lr as a Tensor is not supported for capturable=False and foreach=True'; tapegrad TypeError: 'NoneType' object is not iterable [error input 'lr as a Tensor is not supported for capturable=False and foreach=True']",
    'AdamW': "mismatch: torch raises ValueError matching 'lr as a Tensor is not supported for capturable=False and foreach=True'; tapegrad TypeError: 'NoneType' object is not iterable [error input 'lr as a Tensor is not supported for capturable=False and foreach=True']",
    'LBFGS': "missing: tapegrad.optim.LBFGS is missing [input 0 'default': {}]",
    'Muon': "missing: tapegrad.optim.Muon is missing [input 0 'default': {}]",
    'Rprop': "missing: tapegrad.optim.Rprop is missing [input 0 'default': {}]",
    'SparseAdam': 'missing: it needs sparse gradients: tapegrad has no sparse layout',
}
