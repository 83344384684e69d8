"""op_db rows of the random sampling ops: torch.bernoulli, normal, poisson, multinomial, the
nodes the in-place samplers record (Tensor.uniform_, normal_, bernoulli_, ...), and
F.gumbel_softmax, whose noise is drawn under a fixed seed (the same in both libraries).

Rows compare values with torch, so each draws from a distribution whose sample is certain
(probabilities 0 or 1, std 0, a point interval) or passes the sample through a function that
is constant on its support (an exponential sample clamped at 0 from above is 0). The nodes are
still torch's, and their gradients (zero) are compared with torch's."""
import numpy as np

from op_db import UNARY, OpRow, S, each

# Not a tapegrad bug: torch defines a sample's gradient with respect to its distribution's
# parameters as zero (normal(mean, 0) is mean, yet its gradient is 0), where finite
# differences see the identity.
ZERO_BY_DEFINITION = {"gradcheck": "not a bug: torch gives normal() a zero gradient with "
                                   "respect to mean; finite differences of normal(mean, 0) = "
                                   "mean see 1"}
# Not a tapegrad bug: torch.bernoulli(input, p) records a node named NotImplemented whose
# backward raises, in torch as in tapegrad; only the forward compares.
NOT_IMPLEMENTED = {check: "not a bug: torch.bernoulli(input, p) records NotImplemented, whose "
                   "backward raises (torch's too)" for check in (
                       "gradcheck", "gradgrad", "forward_ad", "torch")}


def _far_from_the_unit_interval(rng, shape):
    """Values in [-2, -1.5] or [1.5, 2]: clamped to [0, 1] they are probabilities 0 or 1."""
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(1.5, 2.0, shape) + 0.25


CERTAIN = each(_far_from_the_unit_interval)
FEW = UNARY[:4]  # (3, 4), 0-d, (5,), empty

_ONE_HOT = np.array([0.0, 1.0, 0.0])
_ONE_HOT_ROWS = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])


def _in_place(name, sample):
    """A row of one in-place sampler on a non-leaf (x * 1), constant in x."""
    return OpRow(f"{name}_on_non_leaf", lambda lib, x: sample(x * 1), FEW, smooth=False,
                 ops=("mul",))


# Not a tapegrad bug: hard gumbel_softmax is a straight-through estimator, the one-hot forward
# with the soft sample's gradient, which finite differences of the one-hot cannot see.
STRAIGHT_THROUGH = {"gradcheck": "not a bug: the straight-through gradient is the soft "
                                  "sample's, finite differences see the one-hot's (zero)"}


def _gumbel_softmax(lib, logits, **options):
    """gumbel_softmax under seed 0: a deterministic function of the logits."""
    state = lib.get_rng_state()
    lib.manual_seed(0)
    try:
        return lib.nn.functional.gumbel_softmax(logits, **options)
    finally:
        lib.set_rng_state(state)


ROWS = (
    OpRow("gumbel_softmax", _gumbel_softmax, (
        S((3, 5)), S((3, 5), constants={"tau": 0.5, "dim": 0}), S((4,)),
        S((2, 3, 4), constants={"dim": 1}), S((3, 5), layouts=("t",))),
        ops=("gumbel_softmax",)),
    OpRow("gumbel_softmax_hard", _gumbel_softmax,
          (S((3, 5), constants={"hard": True}), S((2, 4), constants={"hard": True, "dim": 0})),
          ops=("gumbel_softmax",), bugs=STRAIGHT_THROUGH),
    OpRow("bernoulli", lambda lib, p: lib.bernoulli(p.clamp(0, 1)), FEW, domain=CERTAIN,
          smooth=False, ops=("bernoulli",)),
    OpRow("bernoulli_method", lambda lib, p: p.clamp(0, 1).bernoulli(), FEW[:2],
          domain=CERTAIN, smooth=False, ops=("bernoulli",)),
    OpRow("bernoulli_p_number", lambda lib, x: lib.bernoulli(x, 1.0), FEW[:2],
          ops=("bernoulli",), bugs=NOT_IMPLEMENTED),
    OpRow("normal_tensor_float", lambda lib, mean: lib.normal(mean, 0.0), FEW[:3],
          ops=("normal",), bugs=ZERO_BY_DEFINITION),
    OpRow("normal_tensor_tensor", lambda lib, mean, std: lib.normal(mean, std * 0),
          (S((3, 4), (3, 4)), S((3, 4), (4,)), S((), (2, 3))), ops=("normal",),
          bugs=ZERO_BY_DEFINITION),
    OpRow("normal_float_tensor", lambda lib, std: lib.normal(1.5, std * 0), FEW,
          ops=("normal",)),
    OpRow("normal_size", lambda lib, x: x + lib.normal(1.5, 0.0, x.shape, dtype=x.dtype), FEW,
          ops=("normal",)),
    OpRow("poisson", lambda lib, rate: lib.poisson(rate * 0), FEW, ops=("poisson",)),
    # certain draws: probability 0 or 1 (the sample is not differentiable: detached inputs)
    OpRow("binomial", lambda lib, x: x + lib.binomial(
        (x.detach() * 0 + 3), (x.detach() > 0).to(x.dtype)), FEW, ops=("binomial",)),
    OpRow("multinomial", lambda lib, x, one_hot, rows: (
        x[lib.multinomial(one_hot, 4, True)] + x[one_hot.multinomial(1)]
        + x[lib.multinomial(rows, 1)].sum()), (S((3,), constants={
            "one_hot": _ONE_HOT, "rows": _ONE_HOT_ROWS}),), ops=("multinomial",)),
    _in_place("uniform_", lambda y: y.uniform_(0.5, 0.5)),
    _in_place("normal_", lambda y: y.normal_(0.5, 0.0)),
    _in_place("bernoulli_", lambda y: y.bernoulli_(1.0)),
    OpRow("bernoulli_tensor_on_non_leaf", lambda lib, x, p: (x * 1).bernoulli_(p.clamp(0, 1)),
          (S((3, 4), (3, 4)), S((3, 4), (4,))), domain=CERTAIN, smooth=False, ops=("mul",)),
    _in_place("random_from_to", lambda y: y.random_(3, 4)),
    _in_place("random_to", lambda y: y.random_(1)),
    _in_place("random_", lambda y: y.random_().clamp(max=0)),
    _in_place("geometric_", lambda y: y.geometric_(0.5).clamp(max=1)),
    _in_place("exponential_", lambda y: y.exponential_().clamp(max=0)),
    _in_place("log_normal_", lambda y: y.log_normal_().clamp(max=0)),
    _in_place("cauchy_", lambda y: y.cauchy_() * 0),
)
