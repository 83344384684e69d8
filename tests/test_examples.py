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


def test_digits_one_progress_bar_for_the_run_and_none_in_a_log(tmp_path, capsys, monkeypatch):
    args = ["--model", "both", "--epochs", "1", "--plot", str(tmp_path / "p.png")]
    digits.main(args)                     # under capsys stdout is not a terminal: no bar at all
    captured = capsys.readouterr()
    assert "batch" not in captured.err and "%|" not in captured.out + captured.err
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    digits.main(args)
    bar = capsys.readouterr().err
    # 1,437 training images in batches of 64: 23 steps per epoch, 46 for the two models
    assert "46/46" in bar and "accuracy=" in bar and "/23" not in bar


def test_digits_save_to_pt_needs_no_safetensors(tmp_path, monkeypatch):
    import tapegrad
    monkeypatch.setitem(sys.modules, "safetensors", None)
    path = tmp_path / "digits.pt"
    digits.main(["--model", "mlp", "--epochs", "1", "--plot", str(tmp_path / "p.png"),
                 "--save", str(path)])
    assert path.read_bytes()[:2] == b"PK" and "mlp" in tapegrad.load(path)


def test_digits_save_safetensors_without_the_package_fails_before_training(tmp_path,
                                                                           monkeypatch):
    monkeypatch.setitem(sys.modules, "safetensors", None)
    monkeypatch.setattr(digits, "train", lambda *args: pytest.fail("trained first"))
    with pytest.raises(ImportError, match=r"pip install tapegrad\[io\]"):
        digits.main(["--epochs", "1", "--save", str(tmp_path / "m.safetensors")])
