"""SciPy, for the functions NumPy lacks (Bessel and gamma families, LU, LDL, triangular solves):
an optional extra, imported on first use, so that `import tapegrad` needs only NumPy."""
import importlib


def scipy(submodule, needed_by):
    """scipy.<submodule>, or an ImportError that names the extra to install."""
    try:
        return importlib.import_module(f"scipy.{submodule}")
    except ImportError:
        raise ImportError(f"{needed_by} needs SciPy, an optional dependency of tapegrad: "
                          "pip install 'tapegrad[scipy]'") from None
