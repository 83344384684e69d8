"""op_db rows of 3-d convolution and pooling (tapegrad/ops/conv.py, pooling.py), max unpooling
(unpooling.py) and fractional max pooling (fractional_pooling.py), with F's *_with_indices
forms. Shapes stay small: every row's Jacobian is checked element by element.

Max unpooling's indices are constants: distinct flat positions in each output plane, so that
no two values land on one element (there the last one wins and the gradient is not the
forward's). Fractional pooling gets fixed `_random_samples`, cast to the input's dtype inside
the row (both libraries refuse samples of another dtype), so its windows are deterministic."""
import numpy as np

from op_db import DISTINCT, K, OpRow, S, STEP
from op_db_conv import F, UNIT, _conv

_rng = np.random.default_rng(20261201)


def _unpool_indices(shape, volume):
    """Indices for max unpooling of an input of `shape` into planes of `volume` elements:
    distinct positions in each plane, in random order."""
    planes, blocks = int(np.prod(shape[:-1])), shape[-1]
    rows = [_rng.permutation(volume)[:blocks] for _ in range(planes)]
    return np.array(rows, dtype=np.int64).reshape(shape)


def _unpool_sample(shape, nd, output_volume, label="", **constants):
    """A max_unpool sample: the input of `shape`, indices into output planes of
    output_volume elements."""
    flat = shape[:-nd] + (int(np.prod(shape[-nd:])),)
    indices = _unpool_indices(flat, output_volume).reshape(shape)
    return S(shape, constants={"indices": indices, **constants}, label=label)


def _samples(*shape):
    """Fixed fractional pooling samples in [0, 1), one per (batch, channel, dim)."""
    return {"samples": _rng.uniform(0.0, 1.0, shape)}


def _fractional(name):
    def pool(lib, x, samples, *args, **options):
        return getattr(F(lib), name)(x, *args, _random_samples=samples.to(x.dtype), **options)
    return pool


def _with_options(name):
    def call(lib, x, *args, **options):
        return getattr(F(lib), name)(x, *args, **options)
    return call


CONVOLUTION = (
    OpRow("conv3d", _conv("conv3d"), (
        S((2, 2, 3, 3, 3), (3, 2, 2, 2, 2), (3,)),
        S((1, 2, 4, 3, 3), (2, 2, 2, 2, 2), (2,), constants={"stride": 2, "padding": 1},
          label="stride-padding"),
        S((1, 1, 5, 4, 3), (2, 1, 2, 2, 1), (2,), constants={
            "stride": (1, 2, 1), "padding": (1, 0, 1), "dilation": (2, 1, 1)},
          label="triples-dilation"),
        S((1, 4, 3, 3, 2), (4, 2, 2, 2, 2), (4,), constants={"groups": 2}, label="groups"),
        S((1, 2, 3, 4, 3), (2, 2, 2, 3, 2), (2,), constants={"padding": "same"},
          label="same-even"),
        S((1, 1, 4, 3, 3), (2, 1, 2, 2, 2), (2,), constants={"padding": "same", "dilation": 2},
          label="same-dilation"),
        S((1, 2, 3, 3, 3), (2, 2, 2, 2, 2), (2,), constants={"padding": "valid"},
          label="valid"),
        S((2, 3, 3, 3), (2, 2, 2, 2, 2), (2,), label="unbatched"),
        S((0, 2, 3, 3, 3), (2, 2, 2, 2, 2), (2,), label="empty-batch"),
        STEP((2, 2, 3, 3, 2), (2, 2, 2, 2, 2), (2,)),
        S((1, 2, 3, 3, 3), (2, 2, 2, 2, 2), (2,), requires_grad=(False, True, True),
          label="input-without-grad"),
        S((1, 2, 3, 3, 3), (2, 2, 2, 2, 2), (2,), requires_grad=(True, False, False),
          label="input-only"),
    ), domain=UNIT, ops=("conv3d",)),
    OpRow("conv3d_no_bias", lambda lib, x, w: lib.conv3d(x, w, padding=1), (
        S((1, 2, 2, 3, 2), (2, 2, 2, 2, 2)),), domain=UNIT, ops=("conv3d",)),
    OpRow("conv_transpose3d", _conv("conv_transpose3d"), (
        S((1, 2, 2, 2, 2), (2, 2, 2, 2, 2), (2,)),
        S((1, 2, 2, 2, 2), (2, 1, 3, 2, 2), (1,), constants={
            "stride": 2, "padding": 1, "output_padding": 1}, label="stride-output-padding"),
        S((1, 4, 2, 2, 2), (4, 1, 2, 2, 2), (2,), constants={
            "stride": (2, 1, 1), "groups": 2, "dilation": (1, 2, 1)}, label="groups-dilation"),
        S((1, 2, 2, 2, 2), (2, 1, 2, 2, 2), (1,), constants={
            "dilation": 3, "output_padding": (2, 0, 1)}, label="output-padding-past-stride"),
        S((2, 2, 2, 2), (2, 2, 2, 2, 2), (2,), label="unbatched"),
        S((0, 2, 2, 2, 2), (2, 2, 2, 2, 2), (2,), label="empty-batch"),
        STEP((2, 2, 2, 2, 2), (2, 1, 2, 2, 2), (1,)),
    ), domain=UNIT, ops=("conv_transpose3d",)),
    OpRow("conv_transpose3d_no_bias", lambda lib, x, w: lib.conv_transpose3d(x, w, stride=2), (
        S((1, 2, 2, 2, 1), (2, 1, 2, 2, 2)),), domain=UNIT, ops=("conv_transpose3d",)),
)

POOLING = (
    OpRow("max_pool3d", _with_options("max_pool3d"), (
        S((1, 2, 4, 4, 4), constants={"kernel_size": 2}),
        S((1, 1, 4, 4, 3), constants={"kernel_size": 3, "stride": 1, "padding": 1},
          label="overlapping"),
        S((1, 1, 5, 5, 4), constants={"kernel_size": (2, 3, 2), "stride": 2, "padding": 1,
                                      "dilation": (2, 1, 1), "ceil_mode": True},
          label="ceil-dilation"),
        S((2, 3, 3, 3), constants={"kernel_size": 2, "stride": 2, "ceil_mode": True},
          label="unbatched-ceil"),
        S((0, 2, 2, 2, 2), constants={"kernel_size": 2}, label="empty-batch"),
        STEP((2, 1, 2, 4, 4), constants={"kernel_size": 2}),
        S((1, 2, 3, 3, 4), constants={"kernel_size": 2, "stride": 1, "return_indices": True},
          label="indices"),
        # ties and -inf: torch keeps the first maximum, and the window's first element
        K([[[[[1.0, 3.0], [3.0, 0.0]], [[3.0, -1.0], [2.0, 3.0]]]]],
          constants={"kernel_size": 2, "return_indices": True}, label="ties"),
        K([[[[[-np.inf, -np.inf], [-np.inf, -np.inf]], [[-np.inf, 2.0], [-np.inf, -np.inf]]]]],
          constants={"kernel_size": (1, 2, 2), "return_indices": True}, label="minus-inf"),
    ), domain=DISTINCT, smooth=False, ops=("max_pool3d",)),
    OpRow("max_pool3d_fn", lambda lib, x: lib.max_pool3d(x, 2, 1), (S((1, 2, 3, 3, 3)),),
          domain=DISTINCT, smooth=False, ops=("max_pool3d",)),
    OpRow("max_pool2d_with_indices", _with_options("max_pool2d_with_indices"), (
        S((1, 2, 4, 5), constants={"kernel_size": 2, "stride": 1}),
        S((2, 5, 5), constants={"kernel_size": 3, "stride": 2, "padding": 1,
                                "ceil_mode": True}, label="unbatched-ceil"),
    ), domain=DISTINCT, smooth=False, ops=("max_pool2d_with_indices",)),
    OpRow("max_pool3d_with_indices", _with_options("max_pool3d_with_indices"), (
        S((1, 2, 3, 4, 4), constants={"kernel_size": 2}),
        S((2, 3, 3, 3), constants={"kernel_size": 2, "stride": 1, "dilation": (1, 2, 1)},
          label="unbatched-dilation"),
    ), domain=DISTINCT, smooth=False, ops=("max_pool3d_with_indices",)),
    OpRow("avg_pool3d", _with_options("avg_pool3d"), (
        S((1, 2, 4, 4, 4), constants={"kernel_size": 2}),
        S((1, 1, 5, 4, 5), constants={"kernel_size": (3, 2, 3), "stride": 2, "padding": 1,
                                      "ceil_mode": True}, label="ceil-padding"),
        S((1, 1, 5, 4, 5), constants={"kernel_size": 3, "stride": 2, "padding": 1,
                                      "ceil_mode": True, "count_include_pad": False},
          label="ceil-padding-excluded"),
        S((1, 2, 3, 3, 4), constants={"kernel_size": 2, "stride": 1, "divisor_override": 3},
          label="divisor"),
        S((2, 3, 4, 3), constants={"kernel_size": 2}, label="unbatched"),
        S((0, 2, 2, 2, 2), constants={"kernel_size": 2}, label="empty-batch"),
        STEP((2, 1, 2, 4, 4), constants={"kernel_size": 2}),
    ), ops=("avg_pool3d",)),
    OpRow("adaptive_avg_pool3d", lambda lib, x, size: F(lib).adaptive_avg_pool3d(x, size), (
        S((1, 2, 5, 4, 3), constants={"size": (3, 2, 2)}),
        S((1, 1, 2, 3, 2), constants={"size": 4}, label="larger"),
        S((1, 2, 4, 3, 3), constants={"size": (None, 2, None)}, label="none"),
        S((2, 4, 3, 3), constants={"size": 2}, label="unbatched"),
        S((2, 2, 3, 3, 3), constants={"size": 1}, label="one-is-mean"),
        S((0, 2, 3, 3, 3), constants={"size": 2}, label="empty-batch"),
        STEP((2, 1, 3, 4, 3), constants={"size": (2, 3, 2)}),
    ), ops=("adaptive_avg_pool3d",)),
    OpRow("adaptive_max_pool3d", lambda lib, x, size, **options: F(lib).adaptive_max_pool3d(
        x, size, **options), (
        S((1, 2, 5, 4, 3), constants={"size": (3, 3, 2)}, label="overlapping"),
        S((1, 2, 4, 4, 2), constants={"size": (2, 2, 1)}, label="disjoint"),
        S((1, 1, 2, 3, 2), constants={"size": 3}, label="larger"),
        S((1, 2, 4, 3, 3), constants={"size": (None, 2, None)}, label="none"),
        S((2, 3, 3, 4), constants={"size": 2}, label="unbatched"),
        S((1, 2, 3, 3, 3), constants={"size": 1}, label="one"),
        S((0, 2, 3, 3, 3), constants={"size": 2}, label="empty-batch"),
        STEP((2, 1, 3, 4, 3), constants={"size": (2, 3, 2)}),
        S((1, 2, 4, 3, 3), constants={"size": (2, 2, 3), "return_indices": True},
          label="indices"),
        K([[[[[1.0, 3.0], [3.0, 0.0]], [[3.0, -1.0], [2.0, 3.0]]]]],
          constants={"size": (1, 1, 1), "return_indices": True}, label="ties"),
        K([[[[[-np.inf, -np.inf]], [[-np.inf, 2.0]]]]],
          constants={"size": (1, 1, 2), "return_indices": True}, label="minus-inf"),
    ), domain=DISTINCT, smooth=False, ops=("adaptive_max_pool3d",)),
    OpRow("adaptive_max_pool1d_with_indices",
          lambda lib, x, size: F(lib).adaptive_max_pool1d_with_indices(x, size), (
              S((2, 3, 7), constants={"size": 3}),
              S((3, 5), constants={"size": 4}, label="unbatched")),
          domain=DISTINCT, smooth=False, ops=("adaptive_max_pool1d_with_indices",)),
    OpRow("adaptive_max_pool2d_with_indices",
          lambda lib, x, size: F(lib).adaptive_max_pool2d_with_indices(x, size), (
              S((1, 2, 5, 4), constants={"size": (2, 3)}),
              S((2, 4, 5), constants={"size": 3}, label="unbatched")),
          domain=DISTINCT, smooth=False, ops=("adaptive_max_pool2d_with_indices",)),
    OpRow("adaptive_max_pool3d_with_indices",
          lambda lib, x, size: F(lib).adaptive_max_pool3d_with_indices(x, size), (
              S((1, 2, 4, 3, 3), constants={"size": (2, 2, 3)}),
              S((2, 3, 3, 4), constants={"size": 2}, label="unbatched")),
          domain=DISTINCT, smooth=False, ops=("adaptive_max_pool3d_with_indices",)),
    # |x| + 0.5 keeps x^p real and the power smooth; p = inf is max pooling of |x|
    OpRow("lp_pool3d", lambda lib, x, p, kernel, **options: F(lib).lp_pool3d(
        x.abs() + 0.5, p, kernel, **options), (
        S((1, 2, 4, 4, 4), constants={"p": 2, "kernel": 2}, label="p2"),
        S((1, 1, 3, 4, 4), constants={"p": 3.0, "kernel": (2, 3, 2), "stride": 1},
          label="p3-stride"),
        S((1, 1, 3, 5, 4), constants={"p": 1.5, "kernel": 2, "ceil_mode": True},
          label="ceil"),
        S((2, 2, 4, 4), constants={"p": -1, "kernel": 2}, label="unbatched-negative-p"),
        S((0, 2, 2, 2, 2), constants={"p": 2, "kernel": 2}, label="empty-batch"),
        STEP((2, 1, 2, 4, 4), constants={"p": 2, "kernel": 2}),
    ), domain=DISTINCT, ops=("lp_pool3d",)),
    OpRow("lp_pool3d_infinite", lambda lib, x, p, **options: F(lib).lp_pool3d(
        x, p, 2, **options), (
        S((1, 2, 4, 4, 4), constants={"p": float("inf")}, label="inf"),
        S((1, 2, 3, 4, 5), constants={"p": -float("inf"), "ceil_mode": True},
          label="minus-inf"),
    ), domain=DISTINCT, smooth=False, ops=("lp_pool3d",)),
)

UNPOOLING = (
    OpRow("max_unpool1d", _with_options("max_unpool1d"), (
        _unpool_sample((2, 3, 4), 1, 8, kernel_size=2),
        _unpool_sample((1, 2, 4), 1, 9, kernel_size=3, stride=2, padding=0, label="stride"),
        _unpool_sample((1, 2, 3), 1, 5, kernel_size=2, stride=2, padding=1,
                       output_size=(5,), label="padding-output-size"),
        _unpool_sample((3, 4), 1, 8, kernel_size=2, label="unbatched"),
    ), ops=("max_unpool1d",)),
    OpRow("max_unpool2d", _with_options("max_unpool2d"), (
        _unpool_sample((2, 2, 2, 3), 2, 24, kernel_size=2),
        _unpool_sample((1, 2, 2, 2), 2, 30, kernel_size=(3, 2), stride=(2, 3),
                       output_size=(5, 6), label="output-size"),
        _unpool_sample((1, 1, 3, 3), 2, 16, kernel_size=2, stride=2, padding=1,
                       output_size=[1, 1, 4, 4], label="padding-full-output-size"),
        _unpool_sample((3, 2, 2), 2, 16, kernel_size=2, label="unbatched"),
    ), ops=("max_unpool2d",)),
    OpRow("max_unpool3d", _with_options("max_unpool3d"), (
        _unpool_sample((1, 2, 2, 2, 2), 3, 64, kernel_size=2),
        _unpool_sample((1, 1, 2, 2, 3), 3, 90, kernel_size=(2, 3, 2), stride=(2, 3, 2),
                       output_size=(3, 5, 6), label="output-size"),
        _unpool_sample((2, 2, 1, 2), 3, 48, kernel_size=(2, 2, 3), label="unbatched"),
    ), ops=("max_unpool3d",)),
    # the round trip torch's layers are made for: unpooling at max pooling's indices
    OpRow("max_unpool_of_max_pool", lambda lib, x: F(lib).max_unpool2d(
        *F(lib).max_pool2d(x, 2, return_indices=True), 2) + F(lib).max_unpool3d(
        *F(lib).max_pool3d(x[:, None], (1, 2, 2), return_indices=True), (1, 2, 2))[:, 0], (
        S((2, 2, 4, 4)),), domain=DISTINCT, smooth=False,
        ops=("max_unpool2d", "max_unpool3d", "max_pool2d", "max_pool3d")),
)

FRACTIONAL = (
    OpRow("fractional_max_pool2d", _fractional("fractional_max_pool2d"), (
        S((2, 2, 5, 6), constants={"kernel_size": 2, "output_size": (3, 4), **_samples(2, 2, 2)}),
        S((1, 2, 5, 5), constants={"kernel_size": 3, "output_size": 3, **_samples(1, 2, 2)},
          label="overlapping"),
        S((1, 2, 6, 7), constants={"kernel_size": (2, 3), "output_ratio": (0.5, 0.5),
                                   **_samples(1, 2, 2)}, label="ratio"),
        S((2, 5, 5), constants={"kernel_size": 2, "output_size": 3, **_samples(1, 2, 2)},
          label="unbatched"),
        S((1, 2, 5, 6), constants={"kernel_size": 2, "output_size": (2, 3),
                                   "return_indices": True, **_samples(3, 2, 2)},
          label="indices-more-samples"),
        STEP((2, 1, 4, 5), constants={"kernel_size": 2, "output_size": 3, **_samples(2, 1, 2)}),
    ), domain=DISTINCT, smooth=False, ops=("fractional_max_pool2d",)),
    OpRow("fractional_max_pool3d", _fractional("fractional_max_pool3d"), (
        S((1, 2, 4, 4, 5), constants={"kernel_size": 2, "output_size": (2, 2, 3),
                                      **_samples(1, 2, 3)}),
        S((1, 1, 5, 5, 4), constants={"kernel_size": (3, 2, 2), "output_size": (2, 3, 2),
                                      **_samples(1, 1, 3)}, label="overlapping"),
        S((1, 1, 5, 5, 4), constants={"kernel_size": 2, "output_ratio": (0.6, 0.5, 0.5),
                                      **_samples(1, 1, 3)}, label="ratio"),
        S((2, 4, 4, 4), constants={"kernel_size": 2, "output_size": 2, **_samples(1, 2, 3)},
          label="unbatched"),
        S((2, 1, 4, 4, 4), constants={"kernel_size": 2, "output_size": 2,
                                      "return_indices": True, **_samples(2, 1, 3)},
          label="indices"),
    ), domain=DISTINCT, smooth=False, ops=("fractional_max_pool3d",)),
    OpRow("fractional_max_pool2d_with_indices",
          _fractional("fractional_max_pool2d_with_indices"), (
              S((1, 2, 5, 6), constants={"kernel_size": 2, "output_size": (3, 3),
                                         **_samples(1, 2, 2)}),),
          domain=DISTINCT, smooth=False, ops=("fractional_max_pool2d_with_indices",)),
    OpRow("fractional_max_pool3d_with_indices",
          _fractional("fractional_max_pool3d_with_indices"), (
              S((1, 2, 4, 4, 4), constants={"kernel_size": 2, "output_size": 2,
                                            **_samples(1, 2, 3)}),),
          domain=DISTINCT, smooth=False, ops=("fractional_max_pool3d_with_indices",)),
)

ROWS = CONVOLUTION + POOLING + UNPOOLING + FRACTIONAL
