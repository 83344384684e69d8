"""Activation checkpointing: keep a segment's inputs, not its saved tensors, and run the
segment's forward again during backward to get them back.

Two strategies, as in torch:
- use_reentrant=True: the segment runs under no_grad inside a custom Function whose backward
  re-runs it with grad on and backpropagates through the fresh graph (a nested backward).
- use_reentrant=False: the segment records its graph as usual, but saved_tensors_hooks store
  only a position for each saved tensor; the first unpack in backward re-runs the segment and
  hands back the tensors it saves, in the same order.
"""

from .. import nn, random
from .._tensor import Tensor
from ..autograd import enable_grad, engine, no_grad
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks
from .._warnings import warn

__all__ = ["checkpoint", "checkpoint_sequential"]

USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
    "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """function(*args, **kwargs), with its intermediate results recomputed in backward instead
    of kept. preserve_rng_state (default True) replays the random stream, so dropout masks
    match. context_fn, determinism_check, debug and early_stop are accepted and ignored."""
    if use_reentrant is None:
        warn(USE_REENTRANT_WARNING, UserWarning)
        use_reentrant = True
    preserve_rng_state = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_with_hooks(function, args, kwargs, preserve_rng_state)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a Sequential (or list of modules) in `segments` checkpointed chunks; the last chunk
    is not checkpointed, as its results are needed by backward at once."""
    if use_reentrant is None:
        warn(USE_REENTRANT_WARNING, UserWarning)
        use_reentrant = True
    if isinstance(functions, nn.Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(_run_chunk(functions[start:end + 1]), input,
                           use_reentrant=use_reentrant, **kwargs)
    return _run_chunk(functions[end + 1:])(input)


def _run_chunk(functions):
    def run(input):
        for function in functions:
            input = function(input)
        return input
    return run


class _ReplayedRandomness:
    """Restores the random states a forward started with, for its replay in backward: the
    cpu generator's and, as torch's, those of the cuda devices the inputs are on."""

    def __init__(self, preserve, args):
        self.devices = sorted({a.device.index or 0 for a in args if isinstance(a, Tensor)
                               and a.device.type == "cuda"})
        self.state = random.states_of(self.devices) if preserve else None

    def __enter__(self):
        if self.state is not None:
            self.current = random.states_of(self.devices)
            random.restore_states(self.devices, self.state)

    def __exit__(self, *exc_info):
        if self.state is not None:
            random.restore_states(self.devices, self.current)


class CheckpointFunction(Function):
    """The reentrant strategy; its node is CheckpointFunctionBackward, as in torch."""

    @staticmethod
    def forward(ctx, function, preserve_rng_state, *args):
        ctx.function = function
        ctx.randomness = _ReplayedRandomness(preserve_rng_state, args)
        ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.args = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_positions))
        with no_grad():
            return function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not engine.is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        args = list(ctx.args)
        for i, tensor in zip(ctx.tensor_positions, ctx.saved_tensors):
            args[i] = tensor.detach().requires_grad_(tensor.requires_grad)
        with ctx.randomness, enable_grad():
            outputs = ctx.function(*args)
        outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        engine.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, *(a.grad if isinstance(a, Tensor) else None for a in args))


def _checkpoint_with_hooks(function, args, kwargs, preserve_rng_state):
    segment = _RecomputedSegment(function, args, kwargs, preserve_rng_state)
    with saved_tensors_hooks(segment.pack, segment.unpack):
        return function(*args, **kwargs)


class _RecomputedSegment:
    """The non-reentrant strategy's bookkeeping for one checkpoint() call."""

    def __init__(self, function, args, kwargs, preserve_rng_state):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.randomness = _ReplayedRandomness(preserve_rng_state, args)
        self.count = 0  # tensors saved by the first forward
        self.recomputed = None

    def pack(self, tensor):
        self.count += 1
        return self.count - 1  # a position, in place of the tensor

    def unpack(self, position):
        if self.recomputed is None:
            self.recomputed = []
            detached = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor)
                        else a for a in self.args]
            with self.randomness, enable_grad(), saved_tensors_hooks(self._keep, _unused):
                self.function(*detached, **self.kwargs)
            if len(self.recomputed) != self.count:
                raise RuntimeError(
                    "torch.utils.checkpoint: A different number of tensors was saved during "
                    f"the original forward and recomputation.\nNumber of tensors saved during "
                    f"forward: {self.count}\nNumber of tensors saved during recomputation: "
                    f"{len(self.recomputed)}")
        return self.recomputed[position]

    def _keep(self, tensor):
        self.recomputed.append(tensor.detach())  # the values; the replay's graph can go


def _unused(packed):
    raise AssertionError("the recomputation's own graph is never backpropagated")
