"""tapegrad.jit: torch.jit's decorators and helpers for programs that run eagerly (script and
trace give back what they are given), and torch.vmap/set_anomaly_enabled at the top level."""
import typing

import numpy as np
import pytest

import tapegrad
from compare import torch_or_skip


def _program(torch):
    """A torch program that scripts a helper, traces a module and forks a call."""
    @torch.jit.script
    def scaled(x: torch.Tensor, factor: float) -> torch.Tensor:
        return x * factor + 1

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.linear = torch.nn.Linear(3, 2)

        @torch.jit.ignore
        def debug(self):
            return "ignored"

        def forward(self, x):
            return scaled(self.linear(x), 2.0)

    x = torch.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=torch.float32)
    net = torch.jit.script(Net())
    frozen = torch.jit.freeze(net.eval())

    @torch.jit.export
    def halved(x):
        return x / 2

    traced = torch.jit.trace(halved, (x,))
    future = torch.jit.fork(traced, net(x))
    return (net(x).detach().numpy(), frozen(x).detach().numpy(),
            torch.jit.wait(future).detach().numpy(), Net().debug(),
            torch.jit.annotate(typing.List[int], [1]))


def test_scripted_and_traced_code_runs_as_torchs():
    torch = torch_or_skip()
    mine, theirs = _program(tapegrad), _program(torch)
    for a, b in zip(mine[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert mine[3:] == theirs[3:]


ISINSTANCE_CASES = [([1, 2], typing.List[int]), ([1, "a"], typing.List[int]),
                    ({"a": 1}, typing.Dict[str, int]), ({"a": "b"}, typing.Dict[str, int]),
                    ((1, "a"), typing.Tuple[int, str]), ((1,), typing.Tuple[int, str]),
                    (None, typing.Optional[int]), (3, typing.Union[str, int]), (3.0, int),
                    ([[1], [2]], typing.List[typing.List[int]])]


@pytest.mark.parametrize("value, kind", ISINSTANCE_CASES)
def test_jit_isinstance_checks_the_elements_as_torch(value, kind):
    torch = torch_or_skip()
    assert tapegrad.jit.isinstance(value, kind) == torch.jit.isinstance(value, kind)


def test_jit_isinstance_refuses_a_bare_container_and_save_refuses_honestly():
    with pytest.raises(RuntimeError, match=r"without a contained type.*list\[int\]"):
        tapegrad.jit.isinstance([], list)
    with pytest.raises(NotImplementedError, match="state_dict"):
        tapegrad.jit.save(tapegrad.nn.Linear(1, 1), "unused.pt")
    assert not isinstance(tapegrad.nn.Linear(1, 1), tapegrad.jit.ScriptModule)
    assert not tapegrad.jit.is_scripting() and not tapegrad.jit.is_tracing()  # always eager


def test_fusion_settings_report_the_previous_ones_as_torch():
    torch = torch_or_skip()
    for lib in (tapegrad, torch):
        default = lib.jit.set_fusion_strategy([("STATIC", 1)])
        assert default == [("STATIC", 2), ("DYNAMIC", 10)]
        assert lib.jit.set_fusion_strategy(default) == [("STATIC", 1)]
        assert lib.jit.onednn_fusion_enabled() is False


def test_top_level_vmap_and_anomaly_switch():
    assert tapegrad.vmap is tapegrad.func.vmap
    x = tapegrad.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(tapegrad.vmap(tapegrad.sum)(x).numpy(), [3.0, 12.0])
    try:
        tapegrad.set_anomaly_enabled(True, check_nan=False)
        assert tapegrad.is_anomaly_enabled() and not tapegrad.is_anomaly_check_nan_enabled()
    finally:
        tapegrad.set_anomaly_enabled(False)
    assert not tapegrad.is_anomaly_enabled() and tapegrad.is_anomaly_check_nan_enabled()
