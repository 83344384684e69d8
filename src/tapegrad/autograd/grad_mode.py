"""Thread-local grad mode: no_grad, enable_grad, set_grad_enabled."""
import functools
import threading


class _State(threading.local):
    grad_enabled = True


_state = _State()


def is_grad_enabled():
    return _state.grad_enabled


class _GradModeContext:
    """Base for the mode classes: sets a mode on enter, restores the previous one on exit,
    and doubles as a decorator."""

    enabled = None

    def __new__(cls, *args):
        # `@no_grad` without parentheses decorates directly, as torch allows.
        self = super().__new__(cls)
        if len(args) == 1 and callable(args[0]) and cls is not set_grad_enabled:
            return self(args[0])
        return self

    def __enter__(self):
        self.prev = _state.grad_enabled
        _state.grad_enabled = self.enabled

    def __exit__(self, *exc_info):
        _state.grad_enabled = self.prev

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args()):
                return func(*args, **kwargs)
        return wrapper

    def _args(self):
        return ()


class no_grad(_GradModeContext):
    enabled = False


class enable_grad(_GradModeContext):
    enabled = True


class set_grad_enabled(_GradModeContext):
    """Sets the mode at construction, like torch, so it also works as a plain function call."""

    def __init__(self, mode):
        self.prev = _state.grad_enabled
        self.enabled = bool(mode)
        _state.grad_enabled = self.enabled

    def __enter__(self):
        pass

    def _args(self):
        return (self.enabled,)

    def __call__(self, func):
        _state.grad_enabled = self.prev
        return super().__call__(func)
