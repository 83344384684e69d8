"""What a user's type checker sees of tapegrad: the generated stubs are current, and mypy
types an ordinary program's tensors, ops and errors as it would torch's."""
import importlib
import importlib.util
import pkgutil
import sys
import types
import textwrap
from pathlib import Path

import pytest

import tapegrad

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def test_the_generated_stubs_are_current():
    spec = importlib.util.spec_from_file_location("stubs", TOOLS / "stubs.py")
    stubs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stubs)
    stale = [path.name for path, text in stubs.stubs().items()
             if not path.exists() or path.read_text() != text]
    assert not stale, f"{stale}: run python tools/stubs.py"


PROGRAM = """
import tapegrad as torch
import tapegrad.nn.functional as F
from tapegrad import nn

@torch.no_grad()
def f(x: torch.Tensor) -> None:
    reveal_type(x.add(1).sum(0).exp_())
    reveal_type(2 * x.T @ x)
    reveal_type(x.grad)
    reveal_type(x.size(0))
    reveal_type(torch.randn(2, 3, requires_grad=True))
    reveal_type(nn.Linear(3, 2).weight)
    reveal_type(torch.optim.SGD(nn.Linear(3, 2).parameters(), lr=0.1).step())
    reveal_type(torch.add(x, 2.0))
    reveal_type(F.relu(x))
    reveal_type(torch.linalg.inv(x))
    reveal_type(torch.sort(x).values)
    reveal_type(torch.split(x, 2))
    reveal_type(torch.pi)
    torch.max(x, x), torch.minimum(x, x), x.max(dim=0)  # no error: the two-tensor forms
    x.no_such_method()
    f(1)
    torch.no_such_function(x)
    torch.exp(x, 1, 2)

reveal_type(f)
"""
EXPECTED_TYPES = ["Tensor", "Tensor", "Tensor | None", "int", "Tensor",
                  "tapegrad.nn.parameter.Parameter", "None",
                  "Tensor", "Tensor", "Tensor", "Tensor", "tuple[Tensor, ...]", "float",
                  "def (x: Tensor)"]
EXPECTED_ERRORS = ['"Tensor" has no attribute "no_such_method"',
                   'Argument 1 to "f" has incompatible type "int"',
                   'Module has no attribute "no_such_function"',
                   'Too many arguments for "exp"']


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_mypy_types_a_users_program(tmp_path, monkeypatch, strict):
    """Under --strict too: a typed package's imported names are public only when listed in
    its __all__ (or imported `as` themselves), so tapegrad.randn must be listed."""
    api = pytest.importorskip("mypy.api", reason="mypy is in the dev extra")
    program = tmp_path / "program.py"
    program.write_text(textwrap.dedent(PROGRAM))
    (tmp_path / "mypy.ini").write_text("[mypy]\n")  # a user's settings, not the project's
    # the tapegrad under test, wherever it is imported from; its own errors are not ours here
    monkeypatch.setenv("MYPYPATH", str(Path(tapegrad.__file__).resolve().parent.parent))
    out, err, _ = api.run([str(program), "--follow-imports=silent", "--python-version",
                           f"{sys.version_info.major}.{sys.version_info.minor}",
                           "--cache-dir", str(tmp_path / "cache"),
                           "--config-file", str(tmp_path / "mypy.ini"), *["--strict"] * strict])
    lines = [line for line in out.splitlines() if line.startswith(str(program))]
    revealed = [line.split('Revealed type is "')[1].rstrip('"') for line in lines
                if "Revealed type" in line]
    revealed = [kind.replace("tapegrad._tensor.", "").replace("builtins.", "").split(" ->")[0]
                for kind in revealed]
    assert revealed == EXPECTED_TYPES, out + err
    errors = [line for line in lines if ": error:" in line]
    assert len(errors) == len(EXPECTED_ERRORS), out
    for line, expected in zip(errors, EXPECTED_ERRORS):
        assert expected in line, out


@pytest.mark.parametrize("namespace", ["tapegrad", "tapegrad.nn"])
def test_every_public_name_is_listed_in_all(namespace):
    module = importlib.import_module(namespace)
    public = {name for name in dir(module) if not name.startswith("_")
              and not isinstance(getattr(module, name), types.ModuleType)}
    internal = {"TYPE_CHECKING", "CPU_TYPES", "TORCH_FUNCTIONS"}
    assert public - internal <= set(module.__all__)
    assert len(module.__all__) == len(set(module.__all__))


def test_nn_modules_lists_every_layer_file():
    """nn/modules/__init__.py's literal __all__ is every module file's __all__, in order."""
    import tapegrad.nn.modules as modules
    files = [importlib.import_module(f"{modules.__name__}.{info.name}")
             for info in pkgutil.iter_modules(modules.__path__)]
    assert modules.__all__ == [name for file in files for name in file.__all__]
