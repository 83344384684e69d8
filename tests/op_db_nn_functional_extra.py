"""op_db rows of the less common nn.functional ops: pixel_shuffle, pixel_unshuffle and
channel_shuffle (tapegrad/ops/shuffle.py), pdist (ops/distance.py), rms_norm (ops/rms_norm.py),
grid_sample and affine_grid (ops/grid_sampling.py), embedding_bag (ops/embedding_bag.py) and
ctc_loss (ops/ctc_loss.py). Index arguments are constants (NumPy arrays become tensors)."""
import warnings

import numpy as np

from op_db import STEP, OpRow, S, bug

_rng = np.random.default_rng(20261201)


def _F(lib):
    return lib.nn.functional


def _grid_sample(lib, x, grid, **options):
    return _F(lib).grid_sample(x, grid.tanh() * 1.3, **options)  # past [-1, 1], never on a knot


def _affine_grid(lib, theta, size, align_corners):
    return _F(lib).affine_grid(theta, size, align_corners)


def _embedding_bag(lib, weight, *per_sample_weights, indices, offsets=None, **options):
    return _F(lib).embedding_bag(indices, weight, offsets,
                                 per_sample_weights=per_sample_weights[0]
                                 if per_sample_weights else None, **options)


def _ctc_loss(lib, logits, targets, input_lengths, target_lengths, **options):
    # torch's gradient is the one with respect to logits under a log_softmax (ops/ctc_loss.py)
    return _F(lib).ctc_loss(logits.log_softmax(-1), targets, input_lengths, target_lengths,
                            **options)


def _quiet(function):
    def quiet(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return function(*args, **kwargs)
    return quiet


_BAG_INDICES = np.array([1, 1, 3, 6, 1, 2, 2, 0, 5])
_BAG_OFFSETS = np.array([0, 0, 4, 6])
_CTC_TARGETS = np.array([[1, 2, 2], [3, 3, 0]])
_CTC_NO_SECOND = {**bug("torch's ctc_loss gradient has no derivative (NotImplemented), as here",
                        ("gradgrad",)),
                  **bug("ctc_loss has no forward-mode derivative, as torch's", ("forward_ad",))}

ROWS = (
    OpRow("pixel_shuffle", lambda lib, x, r: _F(lib).pixel_shuffle(x, r),
          (S((1, 8, 2, 3), constants={"r": 2}), S((2, 1, 9, 2, 1), constants={"r": 3}),
           STEP((4, 4, 2), constants={"r": 2})),
          ops=("pixel_shuffle",)),
    OpRow("pixel_unshuffle", lambda lib, x, r: _F(lib).pixel_unshuffle(x, r),
          (S((2, 3, 4, 6), constants={"r": 2}), S((2, 1, 1, 3, 6), constants={"r": 3}),
           STEP((2, 4, 2), constants={"r": 2})), ops=("pixel_unshuffle",)),
    OpRow("channel_shuffle", lambda lib, x, groups: _F(lib).channel_shuffle(x, groups),
          (S((2, 6, 3), constants={"groups": 2}), S((1, 6, 2, 2), constants={"groups": 3}),
           S((1, 8, 2, 1, 2), constants={"groups": 4}), STEP((2, 4, 3), constants={"groups": 2}),
           S((0, 4, 3), constants={"groups": 2})), ops=("channel_shuffle",)),
    OpRow("pdist", lambda lib, x, p=2.0: _F(lib).pdist(x, p),
          (S((5, 3)), S((4, 2), constants={"p": 1.5}), S((4, 2), constants={"p": 3.0}),
           S((1, 3)), S((4, 0)), STEP((3, 2))), ops=("pdist",)),
    OpRow("pdist-kinks", lambda lib, x, p: _F(lib).pdist(x, p),
          (S((4, 3), constants={"p": 1.0}), S((4, 3), constants={"p": float("inf")})),
          smooth=False, ops=("pdist",)),
    OpRow("rms_norm", lambda lib, x, w, shape, eps=None: _F(lib).rms_norm(x, shape, w, eps),
          (S((3, 4), (4,), constants={"shape": [4]}),
           S((2, 3, 4), (3, 4), constants={"shape": [3, 4], "eps": 0.5}),
           S((0, 3), (3,), constants={"shape": [3]}), STEP((3, 2), (2,), constants={"shape": [2]})),
          ops=("rms_norm",)),
    OpRow("grid_sample", _quiet(_grid_sample),
          tuple(S((2, 2, 4, 5), (2, 3, 2, 2), constants={"mode": mode, "padding_mode": padding,
                                                          "align_corners": align},
                  label=f"{mode}-{padding}-{align}")
                for mode in ("bilinear", "bicubic") for padding in ("zeros", "border",
                                                                     "reflection")
                for align in (False, True))
          + tuple(S((1, 2, 3, 4, 5), (1, 2, 3, 2, 3), constants={"padding_mode": padding},
                    label=f"3d-{padding}") for padding in ("zeros", "border", "reflection")),
          ops=("grid_sample", "grid_sampler", "grid_sampler_2d",
                             "grid_sampler_3d")),
    OpRow("grid_sample-nearest", _quiet(_grid_sample),
          (S((2, 2, 4, 5), (2, 3, 2, 2), constants={"mode": "nearest"}),
           S((1, 2, 3, 4, 5), (1, 2, 3, 2, 3), constants={"mode": "nearest",
                                                          "padding_mode": "reflection"})),
          smooth=False, ops=("grid_sample",)),
    OpRow("affine_grid", _quiet(_affine_grid),
          (S((2, 2, 3), constants={"size": [2, 1, 3, 4], "align_corners": False}),
           S((2, 3, 4), constants={"size": [2, 1, 2, 3, 2], "align_corners": True})),
          ops=("affine_grid", "affine_grid_generator")),
    OpRow("embedding_bag", _embedding_bag,
          (S((7, 3), constants={"indices": _BAG_INDICES, "offsets": _BAG_OFFSETS,
                                "mode": "sum"}, label="sum"),
           S((7, 3), constants={"indices": _BAG_INDICES, "offsets": _BAG_OFFSETS}, label="mean"),
           S((7, 3), constants={"indices": _BAG_INDICES, "offsets": _BAG_OFFSETS,
                                "mode": "mean", "padding_idx": 1}, label="mean-padding"),
           S((7, 3), (9,), constants={"indices": _BAG_INDICES, "offsets": _BAG_OFFSETS,
                                      "mode": "sum"}, label="per-sample-weights"),
           S((5, 4), constants={"indices": np.array([[0, 2, 2], [4, 1, 3]]), "mode": "sum"},
             label="2d")),
          ops=("embedding_bag",)),
    OpRow("embedding_bag-max", _embedding_bag,
          (S((7, 3), constants={"indices": _BAG_INDICES, "offsets": _BAG_OFFSETS,
                                "mode": "max"}, label="max"),),
          smooth=False, ops=("embedding_bag",)),
    OpRow("ctc_loss", _ctc_loss,
          (S((6, 2, 4), constants={"targets": _CTC_TARGETS, "input_lengths": [6, 5],
                                   "target_lengths": [3, 2]}, label="mean"),
           S((6, 2, 4), constants={"targets": _CTC_TARGETS, "input_lengths": [6, 1],
                                   "target_lengths": [3, 2], "reduction": "sum",
                                   "zero_infinity": True}, label="sum-zero-infinity"),
           S((6, 2, 4), constants={"targets": np.array([1, 2, 3]), "input_lengths": [6, 4],
                                   "target_lengths": [2, 1], "reduction": "none"},
             label="concatenated")),
          ops=("ctc_loss",), bugs=_CTC_NO_SECOND),
)
