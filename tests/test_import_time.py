"""`import tapegrad` stays cheap: optional libraries (ml_dtypes for bfloat16, scipy, matplotlib,
safetensors, graphviz) and tapegrad's lazily loaded modules are imported on first use only,
and what they provide is still reached as before. Each check runs in a fresh interpreter,
since this one has imported everything already."""
import importlib.util
import json
import subprocess
import sys

import pytest

OPTIONAL_LIBRARIES = ("ml_dtypes", "scipy", "matplotlib", "safetensors", "graphviz")
HAS_ML_DTYPES = importlib.util.find_spec("ml_dtypes") is not None


def _run(code):
    """What code prints (as JSON) in a fresh interpreter."""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1])


def test_import_loads_no_optional_library():
    loaded = _run("import sys, json, tapegrad; "
                  f"print(json.dumps([m for m in {OPTIONAL_LIBRARIES!r} if m in sys.modules]))")
    assert loaded == []


def test_import_time_is_bounded():
    """A generous bound (the machine may be loaded); issue 12 measures the real time."""
    times = [_run("import time; start = time.perf_counter(); import tapegrad; "
                  "print(time.perf_counter() - start)") for _ in range(3)]
    assert min(times) < 1.0, times


def test_lazy_modules_are_attributes_as_before():
    reached = _run(
        "import sys, json, tapegrad\n"
        "lazy = ('tapegrad.serialization', 'tapegrad.explain', 'tapegrad.viz')\n"
        "before = [m for m in lazy if m in sys.modules]\n"
        "from tapegrad import load\n"
        "found = [tapegrad.save is tapegrad.serialization.save, load is tapegrad.load,\n"
        "         tapegrad.explain.__name__, tapegrad.viz.__name__,\n"
        "         {'save', 'load', 'serialization', 'explain', 'viz'} <= set(dir(tapegrad)),\n"
        "         hasattr(tapegrad, 'no_such_name')]\n"
        "print(json.dumps([before, found]))")
    assert reached == [[], [True, True, "tapegrad.explain", "tapegrad.viz", True, False]]


def test_star_import_still_gives_the_lazy_names():
    given = _run("import json\nnames = {}\nexec('from tapegrad import *', names)\n"
                 "print(json.dumps([names['save'].__module__, names['viz'].__name__, "
                 "'tensor' in names, 'importlib' in names]))")
    assert given == ["tapegrad.serialization", "tapegrad.viz", True, False]


def test_no_such_attribute_says_so_as_a_module_does():
    import tapegrad
    with pytest.raises(AttributeError, match="^module 'tapegrad' has no attribute 'nope'$"):
        tapegrad.nope


@pytest.mark.skipif(not HAS_ML_DTYPES, reason="needs ml_dtypes for NumPy's bfloat16")
def test_bfloat16_loads_ml_dtypes_on_first_use():
    seen = _run(
        "import sys, json, tapegrad as torch\n"
        "before = 'ml_dtypes' in sys.modules\n"
        "exists = [repr(torch.bfloat16), isinstance(torch.bfloat16, torch.dtype),\n"
        "          torch.bfloat16.is_floating_point, torch.bfloat16.itemsize,\n"
        "          repr(torch.promote_types(torch.bfloat16, torch.float16))]\n"
        "still = 'ml_dtypes' in sys.modules\n"
        "x = torch.tensor([1.5, 1 / 3], dtype=torch.bfloat16)\n"
        "print(json.dumps([before, exists, still, repr(x), 'ml_dtypes' in sys.modules,\n"
        "                  type(torch.bfloat16) is torch.dtype, x.dtype is torch.bfloat16]))")
    assert seen == [False, ["torch.bfloat16", True, True, 2, "torch.float32"], False,
                    "tensor([1.5000, 0.3340], dtype=torch.bfloat16)", True, True, True]


@pytest.mark.skipif(not HAS_ML_DTYPES, reason="needs ml_dtypes for NumPy's bfloat16")
@pytest.mark.parametrize("first_use", [
    "torch.from_numpy(np.array([2.5], ml_dtypes.bfloat16))",  # made by the user's ml_dtypes
    "torch.tensor(np.array([2.5], ml_dtypes.bfloat16))",
    "torch.tensor([2.5]).type('torch.BFloat16Tensor')",  # a dtype found by its legacy name
])
def test_bfloat16_found_before_tapegrad_loaded_ml_dtypes(first_use):
    shown = _run("import json, numpy as np, ml_dtypes, tapegrad as torch\n"
                 f"print(json.dumps(repr({first_use})))")
    assert shown == "tensor([2.5000], dtype=torch.bfloat16)"


def test_legacy_type_names_need_no_ml_dtypes():
    loaded = _run("import sys, json, tapegrad as torch\n"
                  "x = torch.ones(2).type('torch.DoubleTensor').type(torch.LongTensor)\n"
                  "print(json.dumps([repr(x.dtype), 'ml_dtypes' in sys.modules]))")
    assert loaded == ["torch.int64", False]


def test_bfloat16_without_ml_dtypes_exists_and_says_what_is_missing():
    said = _run(
        "import sys, json\n"
        "sys.modules['ml_dtypes'] = None  # makes `import ml_dtypes` fail\n"
        "import tapegrad as torch\n"
        "said = []\n"
        "for make in (lambda: torch.ones(2, dtype=torch.bfloat16),\n"
        "             lambda: torch.ones(2).type('torch.BFloat16Tensor')):\n"
        "    try:\n"
        "        make()\n"
        "    except RuntimeError as error:\n"
        "        said.append(str(error))\n"
        "print(json.dumps([repr(torch.bfloat16), isinstance(torch.bfloat16, torch.dtype),\n"
        "                  torch.bfloat16.itemsize, said, repr(torch.ones(2).dtype)]))")
    needs = ("tapegrad.bfloat16 needs the ml_dtypes package (pip install ml_dtypes): NumPy has "
             "no bfloat16 type of its own")
    assert said == ["torch.bfloat16", True, 2, [needs, needs], "torch.float32"]
