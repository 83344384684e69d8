"""Benchmark workloads: tapegrad vs torch vs NumPy autograds vs a NumPy floor.

Each workload is written once as ``make(lib)`` for any module with the torch
API (tapegrad or torch); most also have ``floor()``, a hand-written NumPy
forward and backward of the same computation, and ``peer()``, the same loss in
NumPy's vocabulary for the NumPy-style autograds (MyGrad, HIPS autograd; see
PEERS). make and floor return ``(step, grads)``:

* ``step()`` runs one forward+backward and returns the loss (this is what is
  timed);
* ``grads()`` returns the gradients of the last ``step()`` (a list of tensors
  or arrays, in the same order for all versions), used to check that every
  version computes the same thing.

All data comes from NumPy with fixed seeds and is shared by all versions. The
size arguments (batch, seq, ...) default to the benchmarked sizes; ``tiny`` in
WORKLOADS gives small ones for a quick correctness check (tests, --tiny).
"""

import importlib
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np


def _lib_grads(params):
    return lambda: [p.grad for p in params]


def _uniform_params(shapes, bound, seed):
    """float32 arrays uniform in [-bound, bound), one per shape."""
    rng = np.random.default_rng(seed)
    return [rng.uniform(-bound, bound, shape).astype(np.float32) for shape in shapes]


def _load_params(lib, model, values):
    """Set the model's parameters (in parameters() order) to the arrays; return them."""
    params = list(model.parameters())
    with lib.no_grad():
        for p, value in zip(params, values, strict=True):
            p.copy_(lib.tensor(value))
    return params


def _square_mean_step(lib, model, params, x):
    """(step, grads) of the loss mean(out ** 2) of model(x), out its first output."""
    def step():
        for p in params:
            p.grad = None
        out = model(x)
        out = out[0] if isinstance(out, tuple) else out
        loss = (out * out).mean()
        loss.backward()
        return loss

    return step, _lib_grads(params)


# ------------------------------------------------- peers: NumPy-style autograds
# A peer workload is loss(xp, params) written with NumPy's names (xp.tanh,
# xp.matmul, axis=, keepdims=) plus the float32 arrays of its parameters;
# each peer runs it with its own array module as xp.

def _mygrad_step(loss, params_np):
    import mygrad
    params = [mygrad.tensor(p) for p in params_np]

    def step():
        value = loss(mygrad, params)
        value.backward()                    # a new graph's backward replaces old grads
        return value

    return step, _lib_grads(params)


def _autograd_step(loss, params_np):
    import autograd
    import autograd.numpy as anp
    value_and_grad = autograd.value_and_grad(lambda params: loss(anp, params))
    last = {}

    def step():
        value, last["grads"] = value_and_grad(params_np)
        return value

    return step, lambda: last["grads"]


# import name -> make_step(loss, params_np) -> (step, grads)
PEERS = {"mygrad": _mygrad_step, "autograd": _autograd_step}


def _cross_entropy_xp(xp, logits, rows, labels):
    """_cross_entropy in NumPy's vocabulary."""
    z = logits - xp.max(logits, axis=1, keepdims=True)
    logp = z - xp.log(xp.sum(xp.exp(z), axis=1, keepdims=True))
    return -xp.mean(logp[rows, labels])


def _cross_entropy_floor(logits, rows, labels):
    """NumPy mean cross entropy and its gradient in closed form: (softmax - onehot) / batch."""
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    loss = -(z - np.log(s))[rows, labels].mean()
    grad = e / s
    grad[rows, labels] -= 1
    return loss, grad / len(logits)


def _cross_entropy(logits, rows, labels):
    """Mean cross entropy from basic ops (stable log-softmax, integer-array indexing)."""
    z = logits - logits.max(dim=1, keepdim=True)[0]
    logp = z - z.exp().sum(dim=1, keepdim=True).log()
    return -logp[rows, labels].mean()


# ---------------------------------------------------------------- scalar_mlp
# micrograd-style MLP of 0-d tensors: measures per-op overhead.
SIZES = [2, 8, 8, 1]
N_SAMPLES = 4


def _scalar_mlp_data():
    rng = np.random.default_rng(0)
    layers = [(rng.uniform(-1, 1, (n_out, n_in)).astype(np.float32),
               rng.uniform(-1, 1, n_out).astype(np.float32))
              for n_in, n_out in zip(SIZES, SIZES[1:])]
    x = rng.uniform(-1, 1, (N_SAMPLES, SIZES[0])).astype(np.float32)
    y = np.array([1.0, -1.0, -1.0, 1.0], dtype=np.float32)
    return layers, x, y


def scalar_mlp(lib):
    layers_np, x_np, y_np = _scalar_mlp_data()
    scalar = lambda v, grad=False: lib.tensor(float(v), requires_grad=grad)
    # layers[l][j] = ([w_j0, w_j1, ...], b_j): every weight its own 0-d tensor
    layers = [[([scalar(w, True) for w in row], scalar(b, True))
               for row, b in zip(W, B)] for W, B in layers_np]
    params = [p for layer in layers for ws, b in layer for p in (*ws, b)]
    xs = [[scalar(v) for v in row] for row in x_np]
    ys = [float(v) for v in y_np]

    def neuron(ws, b, inputs):
        act = b
        for w, a in zip(ws, inputs):
            act = act + w * a
        return act.tanh()

    def step():
        for p in params:
            p.grad = None
        errs = []
        for x, y in zip(xs, ys):
            a = x
            for layer in layers:
                a = [neuron(ws, b, a) for ws, b in layer]
            errs.append((a[0] - y) ** 2)
        loss = sum(errs[1:], errs[0])
        loss.backward()
        return loss

    return step, _lib_grads(params)


def scalar_mlp_floor():
    # The same scalar arithmetic, one NumPy float32 scalar op per tensor op,
    # with a hand-written backward (chain rule, no graph, no bookkeeping):
    # the cost an engine of 0-d NumPy values cannot go below.
    layers_np, x_np, y_np = _scalar_mlp_data()
    layers = [[(list(row), b) for row, b in zip(W, B)] for W, B in layers_np]
    xs, ys = [list(row) for row in x_np], list(y_np)
    last = {}

    def step():
        gw = [[[0.0] * len(ws) for ws, _ in layer] for layer in layers]
        gb = [[0.0] * len(layer) for layer in layers]
        loss = 0.0
        for x, y in zip(xs, ys):
            acts = [x]                      # forward, keeping activations
            for layer in layers:
                out = []
                for ws, b in layer:
                    act = b
                    for w, a in zip(ws, acts[-1]):
                        act = act + w * a
                    out.append(np.tanh(act))
                acts.append(out)
            err = acts[-1][0] - y
            loss = loss + err * err
            g = [2.0 * err]                 # backward, layer by layer
            for l in reversed(range(len(layers))):
                a_in, a_out = acts[l], acts[l + 1]
                g_in = [0.0] * len(a_in)
                for j, ((ws, _), t) in enumerate(zip(layers[l], a_out)):
                    d = g[j] * (1.0 - t * t)
                    gb[l][j] = gb[l][j] + d
                    for i, a in enumerate(a_in):
                        gw[l][j][i] = gw[l][j][i] + d * a
                        if l:               # no gradient needed for the inputs
                            g_in[i] = g_in[i] + d * ws[i]
                g = g_in
        last["grads"] = [p for gw_l, gb_l in zip(gw, gb)
                         for gws, gbj in zip(gw_l, gb_l) for p in (*gws, gbj)]
        return loss

    return step, lambda: last["grads"]


def scalar_mlp_peer():
    layers_np, x_np, y_np = _scalar_mlp_data()
    params = [p for W, B in layers_np for row, b in zip(W, B) for p in (*row, b)]
    # positions in params of each neuron's weights and bias, in scalar_mlp's order
    layout, i = [], 0
    for n_in, n_out in zip(SIZES, SIZES[1:]):
        layout.append([(range(i + j * (n_in + 1), i + j * (n_in + 1) + n_in),
                        i + j * (n_in + 1) + n_in) for j in range(n_out)])
        i += n_out * (n_in + 1)
    xs, ys = [list(row) for row in x_np], [float(v) for v in y_np]

    def loss(xp, params):
        errs = []
        for x, y in zip(xs, ys):
            a = x
            for layer in layout:
                out = []
                for ws, b in layer:
                    act = params[b]
                    for w, v in zip(ws, a):
                        act = act + params[w] * v
                    out.append(xp.tanh(act))
                a = out
            errs.append((a[0] - y) ** 2)
        return sum(errs[1:], errs[0])

    return loss, params


# --------------------------------------------------------- elementwise_chain
# ~200 elementwise ops on 16-element tensors: per-op overhead on small arrays.
N_OPS, WIDTH = 200, 16


def _chain_data():
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, WIDTH)
    a = rng.uniform(0.5, 1.0, WIDTH)
    b, c = rng.uniform(-0.5, 0.5, (2, WIDTH))
    return [v.astype(np.float32) for v in (x, a, b, c)]


def elementwise_chain(lib):
    params = [lib.tensor(v, requires_grad=True) for v in _chain_data()]
    x, a, b, c = params
    # cycle of 6 ops; values stay bounded (sin/tanh in [-1, 1], exp of those)
    ops = [lambda h: h * a, lambda h: h + b, lib.sin,
           lambda h: h - c, lambda h: h.tanh(), lib.exp]

    def step():
        for p in params:
            p.grad = None
        h = x
        for i in range(N_OPS):
            h = ops[i % len(ops)](h)
        loss = h.sum()
        loss.backward()
        return loss

    return step, _lib_grads(params)


def elementwise_chain_floor():
    # NumPy forward saving what the backward needs, then a manual backward.
    x, a, b, c = _chain_data()
    last = {}

    def step():
        h, saved = x, []
        for i in range(N_OPS):
            k = i % 6
            if k == 0:
                saved.append(h)
                h = h * a
            elif k == 1:
                h = h + b
            elif k == 2:
                saved.append(h)
                h = np.sin(h)
            elif k == 3:
                h = h - c
            elif k == 4:
                h = np.tanh(h)
                saved.append(h)
            else:
                h = np.exp(h)
                saved.append(h)
        loss = h.sum()
        g = np.ones_like(h)
        ga, gb, gc = np.zeros_like(a), np.zeros_like(b), np.zeros_like(c)
        for i in reversed(range(N_OPS)):
            k = i % 6
            if k == 0:
                ga += g * saved.pop()
                g = g * a
            elif k == 1:
                gb += g
            elif k == 2:
                g = g * np.cos(saved.pop())
            elif k == 3:
                gc -= g
            elif k == 4:
                t = saved.pop()
                g = g * (1 - t * t)
            else:
                g = g * saved.pop()
        last["grads"] = [g, ga, gb, gc]
        return loss

    return step, lambda: last["grads"]


def elementwise_chain_peer():
    def loss(xp, params):
        x, a, b, c = params
        ops = [lambda h: h * a, lambda h: h + b, xp.sin,
               lambda h: h - c, xp.tanh, xp.exp]
        h = x
        for i in range(N_OPS):
            h = ops[i % len(ops)](h)
        return xp.sum(h)

    return loss, _chain_data()


# ---------------------------------------------------------------- mlp_batch
# Dense 784 -> 128 -> 10 MLP, batch 64, float32, cross entropy from basic ops:
# dominated by the matmuls, so it measures how close to NumPy/BLAS we get.
BATCH, N_IN, N_HIDDEN, N_CLASSES = 64, 784, 128, 10


def _mlp_data(batch):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((batch, N_IN)).astype(np.float32)
    labels = rng.integers(0, N_CLASSES, batch).astype(np.int64)
    w1 = (rng.standard_normal((N_IN, N_HIDDEN)) / np.sqrt(N_IN)).astype(np.float32)
    b1 = np.zeros(N_HIDDEN, dtype=np.float32)
    w2 = (rng.standard_normal((N_HIDDEN, N_CLASSES)) / np.sqrt(N_HIDDEN)).astype(np.float32)
    b2 = np.zeros(N_CLASSES, dtype=np.float32)
    return x, labels, [w1, b1, w2, b2]


def mlp_batch(lib, batch=BATCH):
    x_np, labels_np, params_np = _mlp_data(batch)
    x, labels = lib.tensor(x_np), lib.tensor(labels_np)
    rows = lib.tensor(np.arange(batch))
    params = [lib.tensor(p, requires_grad=True) for p in params_np]
    w1, b1, w2, b2 = params

    def step():
        for p in params:
            p.grad = None
        h = (x @ w1 + b1).relu()
        logits = h @ w2 + b2
        loss = _cross_entropy(logits, rows, labels)
        loss.backward()
        return loss

    return step, _lib_grads(params)


def mlp_batch_floor(batch=BATCH):
    # Hand-written forward and backward; the backward uses the closed form
    # softmax - onehot (the gradient through the max is zero and skipped).
    x, labels, (w1, b1, w2, b2) = _mlp_data(batch)
    rows = np.arange(batch)
    last = {}

    def step():
        pre = x @ w1 + b1
        h = np.maximum(pre, 0)
        logits = h @ w2 + b2
        loss, g = _cross_entropy_floor(logits, rows, labels)
        gh = (g @ w2.T) * (pre > 0)
        last["grads"] = [x.T @ gh, gh.sum(axis=0), h.T @ g, g.sum(axis=0)]
        return loss

    return step, lambda: last["grads"]


def mlp_batch_peer(batch=BATCH):
    x, labels, params = _mlp_data(batch)
    rows = np.arange(batch)

    def loss(xp, params):
        w1, b1, w2, b2 = params
        h = xp.maximum(xp.matmul(x, w1) + b1, 0)
        return _cross_entropy_xp(xp, xp.matmul(h, w2) + b2, rows, labels)

    return loss, params


# ----------------------------------------------------------------- conv_net
# Two conv3x3+relu+maxpool2 layers (3 -> 16 -> 32 channels) on 32x32 images,
# batch 32, float32, a linear head and cross entropy from basic ops: measures
# convolution and pooling kernels (im2col, col2im, window argmax).
CONV_BATCH, CONV_SIZE, CONV_CLASSES = 32, 32, 10
CONV_CHANNELS = [3, 16, 32]


def _conv_data(batch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((batch, 3, CONV_SIZE, CONV_SIZE)).astype(np.float32)
    labels = rng.integers(0, CONV_CLASSES, batch).astype(np.int64)
    params = []
    for c_in, c_out in zip(CONV_CHANNELS, CONV_CHANNELS[1:]):
        params.append((rng.standard_normal((c_out, c_in, 3, 3))
                       / np.sqrt(9 * c_in)).astype(np.float32))
        params.append(np.zeros(c_out, dtype=np.float32))
    features = CONV_CHANNELS[-1] * (CONV_SIZE // 4) ** 2
    params.append((rng.standard_normal((CONV_CLASSES, features))
                   / np.sqrt(features)).astype(np.float32))
    params.append(np.zeros(CONV_CLASSES, dtype=np.float32))
    return x, labels, params


def conv_net(lib, batch=CONV_BATCH):
    x_np, labels_np, params_np = _conv_data(batch)
    F = lib.nn.functional
    x, labels = lib.tensor(x_np), lib.tensor(labels_np)
    rows = lib.tensor(np.arange(batch))
    params = [lib.tensor(p, requires_grad=True) for p in params_np]
    w1, b1, w2, b2, w3, b3 = params

    def step():
        for p in params:
            p.grad = None
        h = F.max_pool2d(F.conv2d(x, w1, b1, padding=1).relu(), 2)
        h = F.max_pool2d(F.conv2d(h, w2, b2, padding=1).relu(), 2)
        logits = h.reshape(batch, -1) @ w3.t() + b3
        loss = _cross_entropy(logits, rows, labels)
        loss.backward()
        return loss

    return step, _lib_grads(params)


def _conv_relu_pool_xp(xp, a, w, b):
    """conv3x3 (padding 1) + relu + 2x2 max pool for a peer: with its own conv and
    pooling ops where it has them (MyGrad), else im2col from nine shifted slices."""
    if xp.__name__ == "mygrad":
        from mygrad.nnet.layers import conv_nd, max_pool
        return max_pool(xp.maximum(conv_nd(a, w, stride=1, padding=1) + b[:, None, None], 0),
                        (2, 2), 2)
    n, c, h, wd = a.shape
    padded = xp.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)), "constant")
    cols = xp.stack([padded[:, :, i:i + h, j:j + wd] for i in range(3) for j in range(3)],
                    axis=2)
    out = xp.matmul(xp.reshape(w, (w.shape[0], c * 9)), xp.reshape(cols, (n, c * 9, h * wd)))
    out = xp.maximum(xp.reshape(out + b[:, None], (n, -1, h // 2, 2, wd // 2, 2)), 0)
    return xp.max(out, axis=(3, 5))


def conv_net_peer(batch=CONV_BATCH):
    x, labels, params = _conv_data(batch)
    rows = np.arange(batch)

    def loss(xp, params):
        w1, b1, w2, b2, w3, b3 = params
        h = _conv_relu_pool_xp(xp, _conv_relu_pool_xp(xp, x, w1, b1), w2, b2)
        logits = xp.matmul(xp.reshape(h, (batch, -1)), xp.transpose(w3)) + b3
        return _cross_entropy_xp(xp, logits, rows, labels)

    return loss, params


def _im2col3x3(x):
    """Columns (N, C*9, H*W) of the 3x3 windows of x padded by 1."""
    n, c, h, w = x.shape
    windows = np.lib.stride_tricks.sliding_window_view(
        np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), (3, 3), axis=(2, 3))
    return windows.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * 9, h * w)


def _col2im3x3(cols, c, h, w):
    """The adjoint of _im2col3x3: (N, C*9, H*W) columns summed into (N, C, H, W)."""
    n = cols.shape[0]
    cols = cols.reshape(n, c, 3, 3, h, w)
    out = np.zeros((n, c, h + 2, w + 2), cols.dtype)
    for i in range(3):
        for j in range(3):
            out[:, :, i:i + h, j:j + w] += cols[:, :, i, j]
    return out[:, :, 1:-1, 1:-1]


def _pool2x2(a):
    """2x2 max pooling: (result, position 0..3 of the maximum within each window),
    one strided comparison per window position."""
    views = [a[:, :, i::2, j::2] for i in range(2) for j in range(2)]
    best, arg = views[0].copy(), np.zeros(views[0].shape, np.int8)
    for k, view in enumerate(views[1:], 1):
        better = view > best
        arg *= ~better
        arg += better * np.int8(k)
        best = np.maximum(best, view)
    return best, arg


def _unpool2x2(g, arg):
    n, c, h, w = g.shape
    out = np.empty((n, c, 2 * h, 2 * w), g.dtype)
    for k in range(4):
        out[:, :, k // 2::2, k % 2::2] = g * (arg == k)
    return out


def _conv3x3_forward(a, w, b):
    """3x3 convolution with padding 1 as im2col + one matmul: (columns, output)."""
    cols = _im2col3x3(a)
    out = np.matmul(w.reshape(w.shape[0], -1), cols) + b[:, None]
    return cols, out.reshape(a.shape[0], w.shape[0], *a.shape[2:])


def _conv3x3_backward(g, cols, w):
    """Weight and bias gradients of _conv3x3_forward from the output gradient g."""
    g = g.reshape(g.shape[0], g.shape[1], -1)
    gw = np.matmul(g, cols.transpose(0, 2, 1)).sum(axis=0).reshape(w.shape)
    return gw, g.sum(axis=(0, 2))


def conv_net_floor(batch=CONV_BATCH):
    # im2col + one matmul per convolution, reshape-based 2x2 pooling, and the
    # closed-form softmax - onehot backward; col2im only for the second
    # layer's input gradient (the images need none).
    x, labels, (w1, b1, w2, b2, w3, b3) = _conv_data(batch)
    rows = np.arange(batch)
    last = {}

    def step():
        cols1, pre1 = _conv3x3_forward(x, w1, b1)
        h1, arg1 = _pool2x2(np.maximum(pre1, 0))
        cols2, pre2 = _conv3x3_forward(h1, w2, b2)
        h2, arg2 = _pool2x2(np.maximum(pre2, 0))
        flat = h2.reshape(batch, -1)
        logits = flat @ w3.T + b3
        loss, g = _cross_entropy_floor(logits, rows, labels)
        gw3, gb3 = g.T @ flat, g.sum(axis=0)
        g2 = _unpool2x2((g @ w3).reshape(h2.shape), arg2) * (pre2 > 0)
        gw2, gb2 = _conv3x3_backward(g2, cols2, w2)
        g2 = g2.reshape(batch, w2.shape[0], -1)
        gh1 = _col2im3x3(np.matmul(w2.reshape(w2.shape[0], -1).T, g2), *h1.shape[1:])
        g1 = _unpool2x2(gh1, arg1) * (pre1 > 0)
        gw1, gb1 = _conv3x3_backward(g1, cols1, w1)
        last["grads"] = [gw1, gb1, gw2, gb2, gw3, gb3]
        return loss

    return step, lambda: last["grads"]


# --------------------------------------------------------- digits_cnn_epoch
# One training epoch of the CNN of tapegrad.examples.digits (conv3x3 1 -> 16,
# relu, maxpool 2, conv3x3 16 -> 32, relu, linear 512 -> 64, relu, linear
# 64 -> 10) on 1,437 8x8 images (the example's training split) in batches of
# 64: TensorDataset + DataLoader, nn modules, CrossEntropyLoss, backward and
# Adam, so the whole training loop rather than one forward+backward. The images
# are random (the cost does not depend on their values, and the benchmark needs
# no scikit-learn) and unshuffled, so every version sees the same batches.
DIGITS_TRAIN, DIGITS_BATCH, DIGITS_LR = 1437, 64, 1e-3


def _digits_data(n_train):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((n_train, 1, 8, 8)).astype(np.float32)
    labels = rng.integers(0, 10, n_train).astype(np.int64)
    params = []
    for shape, fan_in in [((16, 1, 3, 3), 9), ((32, 16, 3, 3), 144), ((64, 512), 512),
                          ((10, 64), 64)]:
        bound = 1 / np.sqrt(fan_in)         # torch's default init bounds, weight and bias
        params.append(rng.uniform(-bound, bound, shape).astype(np.float32))
        params.append(rng.uniform(-bound, bound, shape[0]).astype(np.float32))
    return x, labels, params


def digits_cnn_epoch(lib, n_train=DIGITS_TRAIN):
    x_np, labels_np, params_np = _digits_data(n_train)
    nn, data = lib.nn, importlib.import_module(f"{lib.__name__}.utils.data")
    model = nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.Flatten(),
        nn.Linear(32 * 4 * 4, 64), nn.ReLU(),
        nn.Linear(64, 10))
    params = _load_params(lib, model, params_np)
    loader = data.DataLoader(data.TensorDataset(lib.tensor(x_np), lib.tensor(labels_np)),
                             batch_size=DIGITS_BATCH)
    optimizer = lib.optim.Adam(params, lr=DIGITS_LR)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        model.train()
        total = 0.0
        for images, labels in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            total += loss.item()
        return total / len(loader)

    return step, _lib_grads(params)


def _adam_floor(params, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    """torch.optim.Adam's default update in place on arrays: update(grads) takes one step."""
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    steps = []

    def update(grads):
        steps.append(1)
        t = len(steps)
        for p, g, (m, v) in zip(params, grads, moments):
            m += (1 - beta1) * (g - m)
            v *= beta2
            v += (1 - beta2) * g * g
            denom = np.sqrt(v) / np.sqrt(1 - beta2 ** t) + eps
            p -= lr / (1 - beta1 ** t) * m / denom

    return update


def _digits_cnn_floor_grads(x, labels, params):
    """Loss and parameter gradients of the digits CNN on one batch, by hand."""
    w1, b1, w2, b2, w3, b3, w4, b4 = params
    n = len(x)
    cols1, pre1 = _conv3x3_forward(x, w1, b1)
    h1, arg1 = _pool2x2(np.maximum(pre1, 0))
    cols2, pre2 = _conv3x3_forward(h1, w2, b2)
    flat = np.maximum(pre2, 0).reshape(n, -1)
    pre3 = flat @ w3.T + b3
    h3 = np.maximum(pre3, 0)
    loss, g = _cross_entropy_floor(h3 @ w4.T + b4, np.arange(n), labels)
    g3 = (g @ w4) * (pre3 > 0)
    g2 = (g3 @ w3).reshape(pre2.shape) * (pre2 > 0)
    gw2, gb2 = _conv3x3_backward(g2, cols2, w2)
    g2 = g2.reshape(n, w2.shape[0], -1)
    gh1 = _col2im3x3(np.matmul(w2.reshape(w2.shape[0], -1).T, g2), *h1.shape[1:])
    gw1, gb1 = _conv3x3_backward(_unpool2x2(gh1, arg1) * (pre1 > 0), cols1, w1)
    return loss, [gw1, gb1, gw2, gb2, g3.T @ flat, g3.sum(axis=0), g.T @ h3, g.sum(axis=0)]


def digits_cnn_epoch_floor(n_train=DIGITS_TRAIN):
    # The same epoch by hand: the conv_net floor's kernels, the closed-form
    # cross-entropy backward and Adam's update, on slices of the arrays (no
    # per-sample indexing and collation as a DataLoader does).
    x, labels, params = _digits_data(n_train)
    update = _adam_floor(params, DIGITS_LR)
    starts = range(0, n_train, DIGITS_BATCH)
    last = {}

    def step():
        total = 0.0
        for start in starts:
            batch = slice(start, start + DIGITS_BATCH)
            loss, grads = _digits_cnn_floor_grads(x[batch], labels[batch], params)
            update(grads)
            total += float(loss)
        last["grads"] = grads
        return total / len(starts)

    return step, lambda: last["grads"]


# --------------------------------------------------------- broadcast_reduce
# t = (x + y) * w with x a column, y a row and w a row vector: two broadcasts
# into a 1024 x 2048 float32 temporary (8 MB), then squared, summed over rows,
# averaged. Backward sums 8 MB gradients back to each input's shape: measures
# the memory traffic of broadcasting and of reducing gradients (unbroadcast).
BR_ROWS, BR_COLS = 1024, 2048


def _broadcast_data(rows):
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (rows, 1))
    y = rng.uniform(-1, 1, (1, BR_COLS))
    w = rng.uniform(-1, 1, BR_COLS)
    return [v.astype(np.float32) for v in (x, y, w)]


def broadcast_reduce(lib, rows=BR_ROWS):
    params = [lib.tensor(v, requires_grad=True) for v in _broadcast_data(rows)]
    x, y, w = params

    def step():
        for p in params:
            p.grad = None
        t = (x + y) * w
        loss = (t * t).sum(dim=1).mean()
        loss.backward()
        return loss

    return step, _lib_grads(params)


def broadcast_reduce_floor(rows=BR_ROWS):
    x, y, w = _broadcast_data(rows)
    last = {}

    def step():
        s = x + y
        t = s * w
        loss = (t * t).sum(axis=1).mean()
        gt = t * np.float32(2 / rows)
        gs = gt * w
        last["grads"] = [gs.sum(axis=1, keepdims=True), gs.sum(axis=0, keepdims=True),
                         (gt * s).sum(axis=0)]
        return loss

    return step, lambda: last["grads"]


def broadcast_reduce_peer(rows=BR_ROWS):
    def loss(xp, params):
        x, y, w = params
        t = (x + y) * w
        return xp.mean(xp.sum(t * t, axis=1))

    return loss, _broadcast_data(rows)


# --------------------------------------------------------------------- lstm
# nn.LSTM 32 -> 64, one layer, sequence 32, batch 16, float32, loss mean(out**2):
# torch runs it as one fused node per layer; an engine of small ops records
# about ten nodes per time step. Peers and floor write the cell by hand.
LSTM_IN, LSTM_HIDDEN, LSTM_SEQ, LSTM_BATCH = 32, 64, 32, 16
LSTM_SHAPES = [(4 * LSTM_HIDDEN, LSTM_IN), (4 * LSTM_HIDDEN, LSTM_HIDDEN),
               (4 * LSTM_HIDDEN,), (4 * LSTM_HIDDEN,)]    # nn.LSTM's parameter order


def _lstm_data(seq):
    x = np.random.default_rng(6).standard_normal((seq, LSTM_BATCH, LSTM_IN))
    return x.astype(np.float32), _uniform_params(LSTM_SHAPES, LSTM_HIDDEN ** -0.5, 7)


def lstm(lib, seq=LSTM_SEQ):
    x, params_np = _lstm_data(seq)
    model = lib.nn.LSTM(LSTM_IN, LSTM_HIDDEN)
    return _square_mean_step(lib, model, _load_params(lib, model, params_np),
                             lib.tensor(x))


def _sigmoid(xp, z):
    return 1 / (1 + xp.exp(-z))


def lstm_peer(seq=LSTM_SEQ):
    x, params = _lstm_data(seq)
    H = LSTM_HIDDEN

    def loss(xp, params):
        w_ih, w_hh, b_ih, b_hh = params
        xw = xp.matmul(x, xp.transpose(w_ih)) + (b_ih + b_hh)  # all steps at once
        h = c = np.zeros((LSTM_BATCH, H), np.float32)
        outs = []
        for t in range(seq):
            gates = xw[t] + xp.matmul(h, xp.transpose(w_hh))
            i, f, o = (_sigmoid(xp, gates[:, k * H:(k + 1) * H]) for k in (0, 1, 3))
            c = f * c + i * xp.tanh(gates[:, 2 * H:3 * H])
            h = o * xp.tanh(c)
            outs.append(h)
        out = xp.stack(outs)
        return xp.mean(out * out)

    return loss, params


def lstm_floor(seq=LSTM_SEQ):
    # Forward saving the gate activations, backward through time by hand; the
    # input projections of all steps (and their weight gradient) are one matmul.
    x, (w_ih, w_hh, b_ih, b_hh) = _lstm_data(seq)
    H = LSTM_HIDDEN
    last = {}

    def step():
        xw = x @ w_ih.T + (b_ih + b_hh)
        h = c = np.zeros((LSTM_BATCH, H), np.float32)
        acts, cs, hs, tcs = [], [c], [h], []
        for t in range(seq):
            z = xw[t] + h @ w_hh.T
            a = _sigmoid(np, z)             # gates i, f, o; g is a tanh
            a[:, 2 * H:3 * H] = np.tanh(z[:, 2 * H:3 * H])
            i, f, g, o = (a[:, k * H:(k + 1) * H] for k in range(4))
            c = f * c + i * g
            tc = np.tanh(c)
            h = o * tc
            for saved, value in zip((acts, cs, hs, tcs), (a, c, h, tc)):
                saved.append(value)
        out = np.stack(hs[1:])
        loss = (out * out).mean()
        g_out = out * np.float32(2 / out.size)
        g_gates = np.empty_like(xw)
        g_w_hh = np.zeros_like(w_hh)
        dh, dc = np.zeros_like(h), np.zeros_like(c)
        for t in reversed(range(seq)):
            a, tc = acts[t], tcs[t]
            i, f, g, o = (a[:, k * H:(k + 1) * H] for k in range(4))
            dh = dh + g_out[t]
            dc = dc + dh * o * (1 - tc * tc)
            da = g_gates[t]
            da[:, :H] = dc * g * i * (1 - i)
            da[:, H:2 * H] = dc * cs[t] * f * (1 - f)
            da[:, 2 * H:3 * H] = dc * i * (1 - g * g)
            da[:, 3 * H:] = dh * tc * o * (1 - o)
            dc = dc * f
            dh = da @ w_hh
            g_w_hh += da.T @ hs[t]
        flat = g_gates.reshape(-1, 4 * H)
        g_b = flat.sum(axis=0)
        last["grads"] = [flat.T @ x.reshape(-1, LSTM_IN), g_w_hh, g_b, g_b]
        return loss

    return step, lambda: last["grads"]


# -------------------------------------------------------- transformer_layer
# nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
# dropout=0, batch_first=True) on a batch of 16 sequences of 32, float32, loss
# mean(out**2): attention (in-projection, scaled dot product, softmax), the
# post-norm layer norms and the relu feed-forward block, forward and backward.
# Peers write the layer from basic ops; no floor (a hand-written backward of
# attention and layer norm would be a transformer implementation of its own).
TF_D, TF_HEADS, TF_FF, TF_SEQ, TF_BATCH = 64, 4, 128, 32, 16
TF_SHAPES = [(3 * TF_D, TF_D), (3 * TF_D,), (TF_D, TF_D), (TF_D,),    # self_attn
             (TF_FF, TF_D), (TF_FF,), (TF_D, TF_FF), (TF_D,),         # linear1, linear2
             (TF_D,), (TF_D,), (TF_D,), (TF_D,)]                      # norm1, norm2


def _transformer_data(seq):
    x = np.random.default_rng(9).standard_normal((TF_BATCH, seq, TF_D))
    return x.astype(np.float32), _uniform_params(TF_SHAPES, TF_D ** -0.5, 8)


def transformer_layer(lib, seq=TF_SEQ):
    x, params_np = _transformer_data(seq)
    model = lib.nn.TransformerEncoderLayer(TF_D, TF_HEADS, dim_feedforward=TF_FF,
                                           dropout=0.0, batch_first=True)
    return _square_mean_step(lib, model, _load_params(lib, model, params_np),
                             lib.tensor(x))


def _layer_norm_xp(xp, x, weight, bias, eps=1e-5):
    centred = x - xp.mean(x, axis=-1, keepdims=True)
    var = xp.mean(centred * centred, axis=-1, keepdims=True)
    return centred / xp.sqrt(var + eps) * weight + bias


def transformer_layer_peer(seq=TF_SEQ):
    x, params = _transformer_data(seq)
    batch, d_head = TF_BATCH, TF_D // TF_HEADS

    def linear(xp, a, weight, bias):
        return xp.matmul(a, xp.transpose(weight)) + bias

    def heads(xp, a):                       # (batch, seq, D) -> (batch, heads, seq, d_head)
        return xp.transpose(xp.reshape(a, (batch, seq, TF_HEADS, d_head)), (0, 2, 1, 3))

    def loss(xp, params):
        w_in, b_in, w_out, b_out, w1, b1, w2, b2, n1_w, n1_b, n2_w, n2_b = params
        qkv = linear(xp, x, w_in, b_in)
        q, k, v = (heads(xp, qkv[:, :, i * TF_D:(i + 1) * TF_D]) for i in range(3))
        scores = xp.matmul(q, xp.transpose(k, (0, 1, 3, 2))) / np.float32(d_head ** 0.5)
        e = xp.exp(scores - xp.max(scores, axis=-1, keepdims=True))
        attn = xp.matmul(e / xp.sum(e, axis=-1, keepdims=True), v)
        attn = xp.reshape(xp.transpose(attn, (0, 2, 1, 3)), (batch, seq, TF_D))
        h = _layer_norm_xp(xp, x + linear(xp, attn, w_out, b_out), n1_w, n1_b)
        ff = linear(xp, xp.maximum(linear(xp, h, w1, b1), 0), w2, b2)
        out = _layer_norm_xp(xp, h + ff, n2_w, n2_b)
        return xp.mean(out * out)

    return loss, params


@dataclass(frozen=True)
class Workload:
    make: Callable                       # make(lib, **size) -> (step, grads), torch API
    floor: Optional[Callable] = None     # floor(**size) -> (step, grads), NumPy by hand
    peer: Optional[Callable] = None      # peer(**size) -> (loss(xp, params), params)
    tiny: dict = field(default_factory=dict)    # small sizes for a correctness check


WORKLOADS = {
    "scalar_mlp": Workload(scalar_mlp, scalar_mlp_floor, scalar_mlp_peer),
    "elementwise_chain": Workload(elementwise_chain, elementwise_chain_floor,
                                  elementwise_chain_peer),
    "mlp_batch": Workload(mlp_batch, mlp_batch_floor, mlp_batch_peer, {"batch": 8}),
    "broadcast_reduce": Workload(broadcast_reduce, broadcast_reduce_floor,
                                 broadcast_reduce_peer, {"rows": 8}),
    "conv_net": Workload(conv_net, conv_net_floor, conv_net_peer, {"batch": 2}),
    "lstm": Workload(lstm, lstm_floor, lstm_peer, {"seq": 3}),
    "transformer_layer": Workload(transformer_layer, peer=transformer_layer_peer,
                                  tiny={"seq": 4}),
    "digits_cnn_epoch": Workload(digits_cnn_epoch, digits_cnn_epoch_floor,
                                 tiny={"n_train": 100}),
}
