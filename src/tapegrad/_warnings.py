"""Warnings that point at the user's line, as torch's do, however deep in tapegrad they start.

A fixed stacklevel counts frames, so any wrapper or helper between the user and the warning
moves it. Here the warning is attributed to the first frame outside the tapegrad package
(Python 3.12's skip_file_prefixes, done by hand so that 3.10 has it too).
"""
import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message, category=UserWarning):
    """warnings.warn(message, category) attributed to the user's frame."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None:  # called from tapegrad alone (at import): as Python says it
        warnings.warn_explicit(message, category, "sys", 1, "sys", {})
        return
    module_globals = frame.f_globals
    registry = module_globals.setdefault("__warningregistry__", {})
    # no module_globals: for `python -c` code it sends linecache to __main__'s loader, which
    # raises ImportError; the source line is found by file name alone
    warnings.warn_explicit(message, category, frame.f_code.co_filename, frame.f_lineno,
                           module_globals.get("__name__", "<string>"), registry)
