"""Thread-local grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode."""
import functools
import threading


class _State(threading.local):
    grad_mode = True  # what is_grad_enabled() reports
    inference = False  # inside inference_mode: nothing records, whatever the grad mode
    recording = True  # ops record graph nodes: grad mode on and not in inference mode
    raw = False  # a derivative formula runs on arrays (ops/_define.py, Note [Formulas on arrays])


_state = _State()


def _set(grad_mode, inference):
    _state.grad_mode, _state.inference = grad_mode, inference
    _state.recording = grad_mode and not inference


def is_grad_enabled():
    return _state.grad_mode


def is_recording():
    """Whether ops record the graph now (is_grad_enabled() can be True in inference mode)."""
    return _state.recording


def is_inference_mode_enabled():
    return _state.inference


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
        self.prev = (_state.grad_mode, _state.inference)
        _set(self.enabled, _state.inference)

    def __exit__(self, *exc_info):
        _set(*self.prev)

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
        self.prev = (_state.grad_mode, _state.inference)
        self.enabled = bool(mode)
        _set(self.enabled, _state.inference)

    def __enter__(self):
        pass

    def _args(self):
        return (self.enabled,)

    def __call__(self, func):
        _set(*self.prev)
        return super().__call__(func)


class inference_mode(_GradModeContext):
    """no_grad that also marks every tensor made inside as an inference tensor, which
    autograd refuses to save later; inference_mode(False) changes nothing, as in torch."""

    def __new__(cls, mode=True):
        self = object.__new__(cls)
        self.mode = True if callable(mode) else bool(mode)
        return self(mode) if callable(mode) else self

    def __enter__(self):
        self.prev = (_state.grad_mode, _state.inference)
        if self.mode:
            _set(False, True)

    def _args(self):
        return (self.mode,)
