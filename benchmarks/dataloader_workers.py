"""DataLoader workers overlapping data loading with training, tapegrad and torch side by side.

One epoch of a small MLP over 384 samples whose __getitem__ does about a millisecond of NumPy
work (a decode-and-augment stand-in: a 64x64 image blurred, flipped and normalised), with
num_workers=0 and 2. With workers the samples are prepared in other processes while the main
process trains, so an epoch takes about as long as the slower of the two. Wall-clock medians
of 5 epochs each, interleaved; run from the repository root:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 \\
        python benchmarks/dataloader_workers.py
"""
import pathlib
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "src"))
import tapegrad  # noqa: E402

SAMPLES, BATCH, ROUNDS = 384, 32, 5


def make_epoch(lib, num_workers):
    class Images(lib.utils.data.Dataset):
        def __len__(self):
            return SAMPLES

        def __getitem__(self, index):
            image = np.random.default_rng(index).random((64, 64))
            for _ in range(6):  # a box blur, flips and a normalisation: ~1 ms of NumPy
                image = (image + np.roll(image, 1, 0) + np.roll(image, 1, 1)) / 3
                image = image[::-1, ::-1]
            image = (image - image.mean()) / image.std()
            return lib.tensor(image[::8, ::8].reshape(-1), dtype=lib.float32), index % 10

    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(64, 256), lib.nn.ReLU(), lib.nn.Linear(256, 10))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01)
    loader = lib.utils.data.DataLoader(Images(), batch_size=BATCH, shuffle=True,
                                       num_workers=num_workers,
                                       persistent_workers=num_workers > 0)

    def epoch():
        for inputs, labels in loader:
            optimizer.zero_grad()
            for _ in range(8):  # a few steps per batch, so training costs as much as loading
                loss = lib.nn.functional.cross_entropy(model(inputs), labels)
                loss.backward()
                optimizer.step()
    return epoch


def main():
    libs = [tapegrad]
    try:
        import torch
        torch.set_num_threads(1)
        libs.append(torch)
    except ImportError:
        print("torch not installed: tapegrad only")
    epochs = {(lib.__name__, workers): make_epoch(lib, workers) for lib in libs
              for workers in (0, 2)}
    times = {key: [] for key in epochs}
    for epoch in epochs.values():
        epoch()  # warm up: workers started, caches filled
    for _ in range(ROUNDS):
        for key, epoch in epochs.items():
            start = time.perf_counter()
            epoch()
            times[key].append(time.perf_counter() - start)
    print(f"{'library':10} {'workers':>7} {'epoch s (median, min-max)':>28} {'speed-up':>9}")
    for lib in libs:
        alone = statistics.median(times[lib.__name__, 0])
        for workers in (0, 2):
            samples = times[lib.__name__, workers]
            median = statistics.median(samples)
            print(f"{lib.__name__:10} {workers:7d} {median:12.3f} ({min(samples):.3f}-"
                  f"{max(samples):.3f}) {alone / median:9.2f}x")


if __name__ == "__main__":
    main()
