"""Every layer class of tapegrad.nn: each module file here lists its public classes in __all__."""
import importlib
import pkgutil

__all__ = []
for _info in pkgutil.iter_modules(__path__):
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    globals().update({name: getattr(_module, name) for name in _module.__all__})
    __all__ += _module.__all__
