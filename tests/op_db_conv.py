"""op_db rows of convolution, pooling, normalisation and resampling (tapegrad/ops/conv.py,
pooling.py, resampling.py and normalization.py). Shapes stay small: every row's Jacobian is
checked element by element.
Running statistics are constants, cast to the input's dtype inside the row (torch refuses a
float64 running mean for a float32 input)."""
import warnings

import numpy as np

from op_db import DISTINCT, K, OpRow, S, STEP, bug, each

_rng = np.random.default_rng(20240615)

# Convolutions sum up to 27 products here, and BLAS and oneDNN add them in different orders:
# with values in [-1, 1] a float32 result that cancels to near 0 still agrees with torch's
# within the float32 comparison's atol (it would not from [-2, 2], where products reach 4).
UNIT = each(lambda rng, shape: rng.uniform(-1.0, 1.0, shape))


def F(lib):
    return lib.nn.functional


def _running(*shapes):
    """Running mean and (positive) running variance."""
    return {"running_mean": _rng.uniform(-1.0, 1.0, shapes[0]),
            "running_var": _rng.uniform(0.5, 2.0, shapes[1])}


def _conv(name):
    """F.<name>(x, w, b, **options), quiet about torch's warning for padding='same' with an
    even kernel (tests/test_conv.py checks that warning)."""
    def conv(lib, x, w, b, **options):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Using padding='same'", UserWarning)
            return getattr(F(lib), name)(x, w, b, **options)
    return conv


def _stats_like(x, running_mean, running_var):
    """The running statistics (constants, so fresh tensors in each run) in x's dtype."""
    if running_mean is None:
        return None, None
    return running_mean.to(x.dtype), running_var.to(x.dtype)


def _batch_norm(lib, x, *parameters, running_mean=None, running_var=None, **options):
    return F(lib).batch_norm(x, *_stats_like(x, running_mean, running_var), *parameters,
                             **options)


def _instance_norm(lib, x, *parameters, running_mean=None, running_var=None, **options):
    return F(lib).instance_norm(x, *_stats_like(x, running_mean, running_var), *parameters,
                                **options)


CONVOLUTION = (
    OpRow("conv2d", _conv("conv2d"), (
        S((2, 3, 5, 5), (4, 3, 3, 3), (4,)),
        S((2, 3, 6, 5), (4, 3, 3, 2), (4,), constants={"stride": 2, "padding": 1},
          label="stride-padding"),
        S((1, 2, 7, 6), (3, 2, 2, 3), (3,), constants={"stride": (2, 1), "padding": (2, 1),
                                                        "dilation": (2, 1)},
          label="pairs-dilation"),
        S((2, 4, 4, 4), (6, 2, 3, 3), (6,), constants={"groups": 2}, label="groups"),
        S((1, 3, 5, 4), (2, 3, 2, 3), (2,), constants={"padding": "same"}, label="same-even"),
        S((1, 2, 5, 5), (2, 2, 3, 3), (2,), constants={"padding": "same", "dilation": 2},
          label="same-dilation"),
        S((1, 2, 4, 4), (2, 2, 3, 3), (2,), constants={"padding": "valid"}, label="valid"),
        S((3, 5, 5), (2, 3, 3, 3), (2,), label="unbatched"),
        S((0, 3, 5, 5), (2, 3, 3, 3), (2,), label="empty-batch"),
        STEP((2, 2, 4, 4), (2, 2, 3, 3), (2,)),
        S((2, 3, 5, 5), (4, 3, 3, 3), (4,), requires_grad=(False, True, True),
          label="input-without-grad"),
        S((2, 3, 5, 5), (4, 3, 3, 3), (4,), requires_grad=(True, False, False),
          label="input-only"),
    ), domain=UNIT, ops=("conv2d",)),
    OpRow("conv2d_no_bias", lambda lib, x, w: lib.conv2d(x, w, padding=1), (
        S((1, 2, 4, 4), (3, 2, 3, 3)),), domain=UNIT, ops=("conv2d",)),
    OpRow("conv1d", _conv("conv1d"), (
        S((2, 3, 7), (4, 3, 3), (4,)),
        S((2, 2, 9), (2, 2, 3), (2,), constants={"stride": 3, "padding": 1, "dilation": 2},
          label="stride-dilation"),
        S((1, 4, 6), (4, 2, 2), (4,), constants={"groups": 2, "padding": "same"},
          label="groups-same"),
        S((3, 6), (2, 3, 3), (2,), label="unbatched"),
    ), domain=UNIT, ops=("conv1d",)),
    OpRow("conv_transpose2d", _conv("conv_transpose2d"), (
        S((2, 3, 3, 3), (3, 2, 3, 3), (2,)),
        S((1, 2, 3, 2), (2, 3, 3, 2), (3,), constants={"stride": 2, "padding": 1,
                                                        "output_padding": 1},
          label="stride-output-padding"),
        S((1, 4, 2, 3), (4, 1, 2, 2), (2,), constants={"stride": (2, 1), "groups": 2,
                                                        "dilation": (1, 2)},
          label="groups-dilation"),
        S((1, 2, 3, 3), (2, 2, 2, 2), (2,), constants={"dilation": 3, "output_padding": 2},
          label="output-padding-past-stride"),
        S((2, 3, 3), (2, 2, 2, 2), (2,), label="unbatched"),
        S((0, 2, 3, 3), (2, 2, 2, 2), (2,), label="empty-batch"),
    ), domain=UNIT, ops=("conv_transpose2d",)),
    OpRow("conv_transpose1d", lambda lib, x, w: lib.conv_transpose1d(x, w, stride=2), (
        S((2, 3, 4), (3, 2, 3)), S((3, 4), (3, 2, 2), label="unbatched")),
          domain=UNIT, ops=("conv_transpose1d",)),
)

POOLING = (
    OpRow("max_pool2d", lambda lib, x, **options: F(lib).max_pool2d(x, **options), (
        S((2, 3, 4, 6), constants={"kernel_size": 2}),
        S((1, 2, 5, 5), constants={"kernel_size": 3, "stride": 1, "padding": 1},
          label="overlapping"),
        S((1, 2, 7, 6), constants={"kernel_size": (3, 2), "stride": 2, "padding": 1,
                                   "dilation": (2, 1), "ceil_mode": True},
          label="ceil-dilation"),
        S((2, 5, 5), constants={"kernel_size": 2, "stride": 2, "ceil_mode": True},
          label="unbatched-ceil"),
        S((0, 2, 4, 4), constants={"kernel_size": 2}, label="empty-batch"),
        STEP((2, 2, 4, 4), constants={"kernel_size": 2}),
        S((1, 2, 4, 5), constants={"kernel_size": 2, "stride": 1, "return_indices": True},
          label="indices"),
    ), domain=DISTINCT, smooth=False, ops=("max_pool2d",)),
    OpRow("max_pool1d", lambda lib, x, **options: lib.max_pool1d(x, **options), (
        S((2, 3, 7), constants={"kernel_size": 3, "stride": 2, "padding": 1}),
        S((3, 6), constants={"kernel_size": 2, "ceil_mode": True, "stride": 2},
          label="unbatched"),
    ), domain=DISTINCT, smooth=False, ops=("max_pool1d",)),
    OpRow("max_pool1d_indices", lambda lib, x: F(lib).max_pool1d(x, 2, return_indices=True),
          (S((2, 2, 6)),), domain=DISTINCT, smooth=False, ops=("max_pool1d",)),
    OpRow("avg_pool2d", lambda lib, x, **options: F(lib).avg_pool2d(x, **options), (
        S((2, 3, 4, 6), constants={"kernel_size": 2}),
        S((1, 2, 7, 6), constants={"kernel_size": (3, 2), "stride": 2, "padding": 1,
                                   "ceil_mode": True},
          label="ceil-padding"),
        S((1, 2, 7, 6), constants={"kernel_size": 3, "stride": 2, "padding": 1,
                                   "ceil_mode": True, "count_include_pad": False},
          label="ceil-padding-excluded"),
        S((1, 2, 4, 5), constants={"kernel_size": 2, "stride": 1, "divisor_override": 3},
          label="divisor"),
        S((2, 5, 4), constants={"kernel_size": 2}, label="unbatched"),
        S((0, 2, 4, 4), constants={"kernel_size": 2}, label="empty-batch"),
        STEP((2, 2, 4, 4), constants={"kernel_size": 2}),
    ), ops=("avg_pool2d",)),
    OpRow("avg_pool1d", lambda lib, x, **options: lib.avg_pool1d(x, **options), (
        S((2, 3, 7), constants={"kernel_size": 3, "stride": 2, "padding": 1}),
        S((3, 5), constants={"kernel_size": 2, "ceil_mode": True, "count_include_pad": False},
          label="unbatched"),
    ), ops=("avg_pool1d",)),
    OpRow("adaptive_avg_pool2d", lambda lib, x, size: F(lib).adaptive_avg_pool2d(x, size), (
        S((2, 3, 7, 6), constants={"size": (3, 4)}),
        S((1, 2, 3, 4), constants={"size": 5}, label="larger"),
        S((1, 2, 5, 4), constants={"size": (None, 3)}, label="none"),
        S((2, 4, 5), constants={"size": 3}, label="unbatched"),
        S((2, 3, 4, 4), constants={"size": 1}, label="one-is-mean"),
        S((0, 2, 4, 4), constants={"size": 2}, label="empty-batch"),
    ), ops=("adaptive_avg_pool2d",)),
    OpRow("adaptive_avg_pool1d", lambda lib, x, size: lib.adaptive_avg_pool1d(x, size), (
        S((2, 3, 7), constants={"size": 3}), S((3, 5), constants={"size": 1}, label="one")),
          ops=("adaptive_avg_pool1d",)),
    OpRow("adaptive_max_pool2d", lambda lib, x, size, **options: F(lib).adaptive_max_pool2d(
        x, size, **options), (
        S((2, 3, 7, 6), constants={"size": (3, 4)}, label="overlapping"),
        S((1, 2, 6, 4), constants={"size": (3, 2)}, label="disjoint"),
        S((1, 2, 3, 4), constants={"size": 5}, label="larger"),
        S((1, 2, 5, 4), constants={"size": (None, 3)}, label="none"),
        S((2, 4, 5), constants={"size": 3}, label="unbatched"),
        S((2, 3, 4, 4), constants={"size": 1}, label="one"),
        S((0, 2, 4, 4), constants={"size": 2}, label="empty-batch"),
        STEP((2, 2, 4, 5), constants={"size": (3, 2)}),
        S((1, 2, 5, 4), constants={"size": (2, 3), "return_indices": True}, label="indices"),
        # ties and -inf: torch keeps the first maximum, and the window's first element
        K([[[[1.0, 3.0, 3.0], [3.0, 0.0, -1.0]]]], constants={"size": (1, 2)}, label="ties"),
        K([[[[-np.inf, -np.inf], [-np.inf, 2.0]]]], constants={"size": (2, 1),
                                                               "return_indices": True},
          label="minus-inf"),
    ), domain=DISTINCT, smooth=False, ops=("adaptive_max_pool2d",)),
    OpRow("adaptive_max_pool1d", lambda lib, x, size, **options: F(lib).adaptive_max_pool1d(
        x, size, **options), (
        S((2, 3, 7), constants={"size": 3}),
        S((3, 5), constants={"size": 4, "return_indices": True}, label="unbatched-indices"),
        S((0, 3, 5), constants={"size": 2}, label="empty-batch"),
    ), domain=DISTINCT, smooth=False, ops=("adaptive_max_pool1d",)),
    # |x| + 0.5 keeps x^p real and the power smooth; p = inf is max pooling of |x|
    OpRow("lp_pool2d", lambda lib, x, p, kernel, **options: F(lib).lp_pool2d(
        x.abs() + 0.5, p, kernel, **options), (
        S((2, 3, 4, 6), constants={"p": 2, "kernel": 2}, label="p2"),
        S((1, 2, 5, 5), constants={"p": 3.0, "kernel": (2, 3), "stride": 1}, label="p3-stride"),
        S((1, 2, 5, 4), constants={"p": 1.5, "kernel": 2, "ceil_mode": True}, label="ceil"),
        S((2, 4, 4), constants={"p": -1, "kernel": 2}, label="unbatched-negative-p"),
        S((0, 2, 4, 4), constants={"p": 2, "kernel": 2}, label="empty-batch"),
        STEP((2, 2, 4, 4), constants={"p": 2, "kernel": 2}),
    ), domain=DISTINCT, ops=("lp_pool2d",)),
    OpRow("lp_pool_infinite", lambda lib, x, p, **options: F(lib).lp_pool2d(x, p, 2, **options)
          + F(lib).lp_pool1d(x[0], p, 3, 1, **options).sum(), (
        S((2, 3, 4, 6), constants={"p": float("inf")}, label="inf"),
        S((2, 3, 4, 6), constants={"p": -float("inf"), "ceil_mode": True}, label="minus-inf"),
    ), domain=DISTINCT, smooth=False, ops=("lp_pool1d", "lp_pool2d")),
    OpRow("lp_pool1d", lambda lib, x, p, kernel, **options: F(lib).lp_pool1d(
        x.abs() + 0.5, p, kernel, **options), (
        S((2, 3, 7), constants={"p": 2, "kernel": 3}, label="p2"),
        S((3, 8), constants={"p": 3.0, "kernel": 2, "stride": 3, "ceil_mode": True},
          label="unbatched-ceil"),
    ), domain=DISTINCT, ops=("lp_pool1d",)),
)

RESAMPLING = (
    OpRow("interpolate", lambda lib, x, **options: F(lib).interpolate(x, **options), (
        S((2, 3, 4, 3), constants={"scale_factor": 2}, label="nearest-2x"),
        S((1, 2, 5, 4), constants={"scale_factor": 1.7}, label="nearest-1.7"),
        S((1, 2, 5, 4), constants={"size": (3, 7)}, label="nearest-size"),
        S((2, 3, 5), constants={"scale_factor": 0.6}, label="nearest-1d"),
        S((1, 2, 3, 3), constants={"scale_factor": (1.3, 2.1)}, label="nearest-shortcuts"),
        S((1, 2, 3), constants={"scale_factor": 1.3}, label="nearest-1d-same-size",
          bugs=bug("torch's 1-d nearest backward copies where out == in, its forward does "
                   "not (it samples 0, 0, 1): torch's gradient is not its forward's, "
                   "tapegrad's is", ("torch",))),
        S((1, 2, 5, 4), constants={"size": (7, 3), "mode": "nearest-exact"},
          label="nearest-exact"),
        S((2, 2, 5), constants={"size": 8, "mode": "nearest-exact"}, label="nearest-exact-1d"),
        S((1, 2, 4, 3), constants={"scale_factor": (1.5, 2.5), "mode": "bilinear"},
          label="bilinear"),
        S((1, 2, 4, 5), constants={"size": (6, 3), "mode": "bilinear", "align_corners": True},
          label="bilinear-align-corners"),
        S((1, 2, 5, 4), constants={"scale_factor": 1.7, "mode": "bilinear",
                                   "recompute_scale_factor": True}, label="bilinear-recompute"),
        S((2, 2, 5), constants={"size": 8, "mode": "linear"}, label="linear"),
        S((2, 2, 3), constants={"scale_factor": 1.3, "mode": "linear"},
          label="linear-same-size"),
        S((2, 2, 5), constants={"size": 3, "mode": "linear", "align_corners": True},
          label="linear-align-corners"),
        S((1, 2, 5, 4), constants={"size": (3, 3), "mode": "area"}, label="area"),
        S((0, 2, 3, 3), constants={"scale_factor": 2}, label="empty-batch"),
        STEP((2, 2, 3, 3), constants={"scale_factor": 2, "mode": "bilinear"}),
    ), ops=("interpolate",)),
    OpRow("unfold", lambda lib, x, **options: F(lib).unfold(x, **options), (
        S((2, 3, 4, 4), constants={"kernel_size": 2}),
        S((1, 2, 5, 6), constants={"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1,
                                   "stride": (2, 1)}, label="options"),
        S((2, 3, 3), constants={"kernel_size": 2}, label="unbatched"),
        S((0, 2, 3, 3), constants={"kernel_size": 2}, label="empty-batch"),
    ), ops=("unfold",)),
    OpRow("fold", lambda lib, x, **options: F(lib).fold(x, **options), (
        S((2, 12, 4), constants={"output_size": (3, 3), "kernel_size": 2}),
        S((1, 8, 15), constants={"output_size": (4, 5), "kernel_size": 2, "stride": (2, 1),
                                "padding": 1, "dilation": (1, 2)}, label="options"),
        S((8, 9), constants={"output_size": 4, "kernel_size": 2}, label="unbatched"),
    ), ops=("fold",)),
)

NORMALIZATION = (
    OpRow("layer_norm", lambda lib, x, w, b, shape: F(lib).layer_norm(x, shape, w, b), (
        S((2, 3, 4), (4,), (4,), constants={"shape": (4,)}),
        S((2, 3, 4), (3, 4), (3, 4), constants={"shape": (3, 4)}, label="two-dims"),
        S((3, 4), (3, 4), (3, 4), constants={"shape": [3, 4]}, label="all-dims"),
        S((0, 3), (3,), (3,), constants={"shape": (3,)}, label="empty-batch"),
        STEP((2, 3), (3,), (3,), constants={"shape": (3,)}),
    ), ops=("layer_norm",)),
    OpRow("layer_norm_plain", lambda lib, x: lib.layer_norm(x, (3,), eps=0.1), (
        S((2, 3)), S((4, 3), layouts=("t",), label="t")), ops=("layer_norm",)),
    OpRow("batch_norm", lambda lib, x, w, b, **options: _batch_norm(lib, x, w, b, **options), (
        S((4, 3, 2, 2), (3,), (3,), constants={"training": True}, label="training"),
        S((4, 3), (3,), (3,), constants={"training": True}, label="training-2d"),
        S((3, 2, 4), (2,), (2,), constants=dict(training=True, momentum=0.3, **_running(
            (2,), (2,))), label="training-running-stats"),
        S((3, 2, 4), (2,), (2,), constants=_running((2,), (2,)), label="eval"),
        S((0, 2, 3), (2,), (2,), constants={"training": True}, label="empty-batch"),
        STEP((4, 2, 3), (2,), (2,), constants={"training": True}),
    ), ops=("batch_norm",)),
    OpRow("batch_norm_plain", lambda lib, x: _batch_norm(lib, x, training=True, eps=0.01),
          (S((3, 2, 3)),), ops=("batch_norm",)),
    OpRow("group_norm", lambda lib, x, w, b, groups: F(lib).group_norm(x, groups, w, b), (
        S((2, 4, 3), (4,), (4,), constants={"groups": 2}),
        S((2, 6, 2, 2), (6,), (6,), constants={"groups": 3}, label="4d"),
        S((3, 4), (4,), (4,), constants={"groups": 2}, label="2d"),
        S((0, 4, 3), (4,), (4,), constants={"groups": 2}, label="empty-batch"),
    ), ops=("group_norm",)),
    OpRow("group_norm_plain", lambda lib, x: lib.group_norm(x, 1), (S((2, 3, 3)),),
          ops=("group_norm",)),
    OpRow("instance_norm", lambda lib, x, w, b, **options: _instance_norm(lib, x, w, b,
                                                                          **options), (
        S((2, 3, 4), (3,), (3,)),
        S((2, 2, 3, 2), (2,), (2,), constants=_running((2,), (2,)), label="running-stats"),
        S((2, 2, 3), (2,), (2,), constants=dict(use_input_stats=False, **_running(
            (2,), (2,))), label="eval"),
    ), ops=("instance_norm",)),
    OpRow("instance_norm_plain", lambda lib, x: _instance_norm(lib, x), (S((2, 2, 3)),),
          ops=("instance_norm",)),
)

ROWS = CONVOLUTION + POOLING + RESAMPLING + NORMALIZATION
