"""Smoke test of the digits example (python -m tapegrad.examples.digits): a short real run."""
import sys

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")
pytest.importorskip("matplotlib")
pytest.importorskip("threadpoolctl")

from tapegrad.examples import digits  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_digits_mlp_one_epoch_learns_and_plots(tmp_path, capsys):
    plot = tmp_path / "training.png"
    histories = digits.main(["--model", "mlp", "--epochs", "1", "--plot", str(plot)])
    # one epoch of the one-cycle schedule already lands far above chance (10%)
    assert histories["mlp"]["accuracy"][0] > 0.6
    assert plot.read_bytes().startswith(PNG_SIGNATURE)
    out = capsys.readouterr().out
    assert "mlp epoch  1/1: train loss" in out
    assert "mlp: final test accuracy" in out
    assert f"plot written to {plot.resolve()}" in out


def test_digits_rejects_zero_epochs(capsys):
    with pytest.raises(SystemExit):
        digits.main(["--epochs", "0"])
    assert "--epochs must be at least 1" in capsys.readouterr().err


def test_digits_missing_extra_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)      # makes `import tqdm` fail
    with pytest.raises(ImportError, match=r'needs tqdm.*pip install -e "\.\[examples\]"'):
        digits.import_extras()


def test_digits_save_writes_the_trained_state_dict(tmp_path):
    pytest.importorskip("safetensors")
    import tapegrad
    path = tmp_path / "digits.safetensors"
    histories = digits.main(["--model", "mlp", "--epochs", "1", "--plot",
                             str(tmp_path / "p.png"), "--save", str(path)])
    model = digits.make_mlp()
    result = model.load_state_dict(tapegrad.load(path)["mlp"])
    assert (result.missing_keys, result.unexpected_keys) == ([], [])
    # the saved weights are the trained ones: they score exactly what training reported
    test_images, test_labels = digits.load_data(seed=0)["test"]
    assert digits.accuracy(model, test_images, test_labels) == histories["mlp"]["accuracy"][-1]
