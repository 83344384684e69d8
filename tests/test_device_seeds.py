"""The seed tutorials on the cuda device (the test double of tests/device_double.py, or CuPy
with TAPEGRAD_DEVICE_TESTS=cupy): with cuda as the default device every cell runs and prints
what torch printed on the cpu, but for the device (and the line breaks its text moves). A
device draws random numbers from its own generator, so once a document has drawn some, its
cells are compared with their numbers masked: the same tensors, shapes, nodes and flags."""
import re

import pytest

import device_double
import tapegrad
from test_device_double import ON_CUPY
from test_seeds import EXPECTED_ERRORS, SEEDS, SNIPPETS, _builtins_importing, _golden, _run_cell

_DEVICE = re.compile(r", device='cuda:0'|device='cuda:0', ")
_NUMBER = re.compile(r"\s*-?\d+(\.\d*)?(e[+-]?\d+)?")  # with its padding, which the sign moves


def _comparable(text, random):
    text = " ".join(_DEVICE.sub("", text).split())
    return _NUMBER.sub(" N", text) if random else text


@pytest.fixture(scope="module")
def device_runs():
    """{snippet: (output, error)}, every document run once on the device."""
    if not ON_CUPY:
        device_double.install(count=2)
    elif not tapegrad.cuda.is_available():
        pytest.skip("TAPEGRAD_DEVICE_TESTS=cupy, but CuPy finds no CUDA device")
    tapegrad.set_default_device("cuda")
    try:
        runs = {}
        for doc in sorted({name.split("_")[0] for name in SNIPPETS}):
            namespace = {"__name__": "__main__", "__builtins__": _builtins_importing(tapegrad)}
            runs.update((path.stem, _run_cell(path, namespace, tapegrad))
                        for path in sorted(SEEDS.glob(f"{doc}_*.py")))
        yield runs
    finally:
        tapegrad.set_default_device(None)
        if not ON_CUPY:
            device_double.uninstall()


def _after_random_draws(name):
    """Whether this cell or an earlier one of its document draws random numbers."""
    doc = name.split("_")[0]
    return any("rand" in (SEEDS / f"{earlier}.py").read_text(encoding="utf-8")
               for earlier in SNIPPETS if earlier.startswith(doc + "_") and earlier <= name)


@pytest.mark.parametrize("name", SNIPPETS)
def test_seed_runs_on_the_device(device_runs, name):
    output, error = device_runs[name]
    assert (error is not None) == (name in EXPECTED_ERRORS), error
    random = _after_random_draws(name)
    assert _comparable(output, random) == _comparable(_golden(name).read_text("utf-8"), random)
