"""ModuleInfos of torch's module database that tapegrad does not pass, and why
(`python tests/torch_module_db.py --write-xfails` writes it from a run: each entry
is the first failure reported)."""
XFAILS = {
}
