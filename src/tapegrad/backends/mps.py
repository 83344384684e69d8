"""torch.backends.mps off a Mac: not built, not available."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


def is_macos13_or_newer(minor: int = 0) -> bool:
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")
