"""Train a small CNN and an MLP on scikit-learn's 8x8 handwritten digits, with tapegrad only.

    pip install -e ".[examples]"
    python -m tapegrad.examples.digits                  # both models, 20 epochs each
    python -m tapegrad.examples.digits --model cnn --epochs 5 --plot cnn.png
    mpiexec -n 2 python -m tapegrad.examples.digits --distributed   # data-parallel, 2 ranks
    python -m tapegrad.examples.digits --device cuda    # on a GPU (the gpu extra: CuPy)

The model and training code is ordinary PyTorch code; only the import differs. scikit-learn
supplies the data (1,797 images bundled with it: nothing is downloaded), tqdm the progress
bar and matplotlib the plot. tapegrad itself needs none of them.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import tapegrad as torch
from tapegrad import nn, optim
from tapegrad import distributed as dist
from tapegrad.utils.data import DataLoader, DistributedSampler, TensorDataset

# import name -> distribution name, for the message when one is missing
EXTRAS = {"sklearn": "scikit-learn", "tqdm": "tqdm", "matplotlib": "matplotlib",
          "threadpoolctl": "threadpoolctl"}
INSTALL_HINT = 'pip install -e ".[examples]" (or pip install "tapegrad[examples]")'


def import_extras() -> None:
    """Import the optional packages this example uses, or fail naming the extra to install."""
    for module, distribution in EXTRAS.items():
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise ImportError(f"the digits example needs {distribution}, which tapegrad does "
                              f"not install by default: {INSTALL_HINT}") from error


def load_data(seed: int) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """The digits split 80/20 (stratified, seeded) and standardised by training-set statistics."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    digits = load_digits()
    images = digits.images.astype(np.float32)[:, None]      # (1797, 1, 8, 8), values 0..16
    train_x, test_x, train_y, test_y = train_test_split(
        images, digits.target, test_size=0.2, stratify=digits.target, random_state=seed)
    mean, std = train_x.mean(), train_x.std()
    return {"train": (torch.tensor((train_x - mean) / std), torch.tensor(train_y)),
            "test": (torch.tensor((test_x - mean) / std), torch.tensor(test_y))}


def make_cnn() -> nn.Sequential:
    """Two 3x3 convolutions with one 2x2 max-pool between them, then a two-layer classifier."""
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 16 x 4 x 4
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.Flatten(),
        nn.Linear(32 * 4 * 4, 64), nn.ReLU(),
        nn.Linear(64, 10))


def make_mlp() -> nn.Sequential:
    """Two hidden layers on the 64 flattened pixels, with a little dropout."""
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.1),
        nn.Linear(128, 64), nn.ReLU(),
        nn.Linear(64, 10))


MODELS = {"cnn": make_cnn, "mlp": make_mlp}


def train_epoch(model: nn.Module, loader: DataLoader, optimizer: optim.Optimizer,
                scheduler: optim.lr_scheduler.LRScheduler, loss_fn: nn.Module, progress: Any,
                device: str) -> float:
    """One pass over the training batches, one progress step each; returns the mean loss."""
    model.train()
    total, count = 0.0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        scheduler.step()
        total += loss.item() * len(labels)
        count += len(labels)
        # refresh=False: the bar redraws at tqdm's own pace, not once per batch
        progress.set_postfix(loss=f"{loss.item():.4f}", refresh=False)
        progress.update()
    return total / count


def accuracy(model: nn.Module, images: torch.Tensor, labels: torch.Tensor) -> float:
    """Fraction of images whose highest logit is at their label, with dropout off."""
    model.eval()
    with torch.no_grad():
        predicted = model(images).argmax(dim=1)
    return (predicted == labels).float().mean().item()


def train(name: str, data: dict[str, tuple[torch.Tensor, torch.Tensor]],
          args: argparse.Namespace, progress: Any) -> tuple[nn.Module, dict[str, Any]]:
    """Train one model from a seeded start; returns it and its per-epoch loss and accuracy."""
    torch.manual_seed(args.seed)
    model: nn.Module = MODELS[name]().to(args.device)
    test_images, test_labels = (tensor.to(args.device) for tensor in data["test"])
    dataset = TensorDataset(*data["train"])
    if args.distributed:  # each rank takes its share of every batch; DDP averages gradients
        sampler: DistributedSampler[int] = DistributedSampler(dataset, seed=args.seed)
        loader = DataLoader(dataset, batch_size=args.batch_size // dist.get_world_size(),
                            sampler=sampler)
        model = nn.parallel.DistributedDataParallel(model)
    else:
        loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True,
                            generator=torch.Generator().manual_seed(args.seed))
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    scheduler = optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, epochs=args.epochs,
                                              steps_per_epoch=len(loader))
    loss_fn = nn.CrossEntropyLoss()
    history: dict[str, Any] = {"loss": [], "accuracy": []}  # and "seconds", the wall time
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        description = f"{name} epoch {epoch:2d}/{args.epochs}"
        progress.set_description(description, refresh=False)
        if args.distributed:
            sampler.set_epoch(epoch)
        history["loss"].append(train_epoch(model, loader, optimizer, scheduler, loss_fn,
                                           progress, args.device))
        history["accuracy"].append(accuracy(model, test_images, test_labels))
        progress.set_postfix(loss=f"{history['loss'][-1]:.4f}",
                             accuracy=f"{history['accuracy'][-1]:.2%}", refresh=False)
        # tqdm.write prints above the bar, which stays at the bottom of the terminal
        if is_main(args):
            progress.write(f"{description}: train loss {history['loss'][-1]:.4f}, "
                           f"test accuracy {history['accuracy'][-1]:.2%}")
    history["seconds"] = time.perf_counter() - start
    return model, history


def is_main(args: argparse.Namespace) -> bool:
    """Whether this process reports: the only one, or rank 0 of a distributed run."""
    return not args.distributed or dist.get_rank() == 0


def plot(histories: dict[str, dict[str, Any]], path: Path) -> None:
    """Write training loss and test accuracy per epoch, one line per model, to a PNG file."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator
    # A bare Figure draws with Agg: no display needed and no pyplot global state touched.
    figure = Figure(figsize=(10, 4), layout="tight")
    loss_axes, accuracy_axes = figure.subplots(1, 2)
    for name, history in histories.items():
        epochs = range(1, len(history["loss"]) + 1)
        loss_axes.plot(epochs, history["loss"], marker=".", label=name)
        accuracy_axes.plot(epochs, [100 * a for a in history["accuracy"]], marker=".",
                           label=name)
    loss_axes.set(title="training loss", xlabel="epoch", ylabel="cross entropy", yscale="log")
    accuracy_axes.set(title="test accuracy", xlabel="epoch", ylabel="accuracy (%)")
    for axes in (loss_axes, accuracy_axes):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.grid(alpha=0.3)
        axes.legend()
    figure.savefig(path, dpi=100)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tapegrad.examples.digits",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--model", choices=("cnn", "mlp", "both"), default="both",
                        help="which model to train (default both, the CNN first)")
    parser.add_argument("--epochs", type=int, default=20, help="epochs per model (default 20)")
    parser.add_argument("--batch-size", type=int, default=64, help="default 64")
    parser.add_argument("--lr", type=float, default=3e-3,
                        help="peak learning rate of the one-cycle schedule (default 3e-3)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seeds the split, the initial weights and the shuffling")
    parser.add_argument("--plot", type=Path, default=Path("digits_training.png"),
                        help="where to write the PNG plot (default ./digits_training.png)")
    parser.add_argument("--save", type=Path,
                        help="also save {model name: state dict} to this file with tapegrad.save "
                             "(.safetensors: safetensors; .pt, .pth or other: torch's format)")
    parser.add_argument("--blas-threads", type=int, default=1,
                        help="BLAS threads for NumPy (default 1: these matrices are too small "
                             "to gain from more; 0 keeps NumPy's default)")
    parser.add_argument("--device", default=None,
                        help="where to train: cpu, or cuda on a GPU (the gpu extra); default "
                             "cuda when one is available, else cpu")
    parser.add_argument("--distributed", action="store_true",
                        help="train data-parallel on the ranks of `mpiexec -n N` (needs the "
                             "distributed extra); each takes 1/N of every batch")
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error("--epochs must be at least 1")
    if args.device is None:
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    return args


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Train the chosen models, print their accuracy and wall time, plot; returns histories."""
    args = parse_args(argv)
    start = time.perf_counter()
    import_extras()
    if args.save and args.save.suffix.lower() == ".safetensors":
        # fail before training, not after it, when the file format's package is missing
        torch.serialization._safetensors_numpy()
    from threadpoolctl import threadpool_limits
    from tqdm import tqdm
    if args.distributed:
        dist.init_process_group("mpi")
    with threadpool_limits(limits=args.blas_threads or None, user_api="blas"):
        data = load_data(args.seed)
        names = ("cnn", "mlp") if args.model == "both" else (args.model,)
        steps = len(names) * args.epochs * -(-len(data["train"][1]) // args.batch_size)
        # One bar for the whole run; none when stdout is a log file or a pipe.
        with tqdm(total=steps, unit="batch", disable=not sys.stdout.isatty() or not is_main(args)) as progress:
            trained = {name: train(name, data, args, progress) for name in names}
    histories = {name: history for name, (_, history) in trained.items()}
    if args.distributed:
        main_rank = is_main(args)
        dist.destroy_process_group()
        if not main_rank:
            return histories
    for name, history in histories.items():
        print(f"{name}: final test accuracy {history['accuracy'][-1]:.2%} after epoch "
              f"{args.epochs}, training took {history['seconds']:.1f} s")
    plot(histories, args.plot)
    print(f"plot written to {args.plot.resolve()}")
    if args.save:
        torch.save({name: model.state_dict() for name, (model, _) in trained.items()},
                   args.save)
        print(f"state dicts written to {args.save.resolve()}")
    print(f"total wall time {time.perf_counter() - start:.1f} s")
    return histories


if __name__ == "__main__":
    main()
