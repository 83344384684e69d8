"""L-BFGS: a quasi-Newton method that keeps the last `history_size` steps and gradient changes
to approximate the inverse Hessian, with an optional strong-Wolfe line search. All parameters
form one flat vector; the optimizer needs a closure that recomputes the loss."""
from collections.abc import Callable

import tapegrad

from .._tensor import Tensor
from .optimizer import Optimizer, ParamsT, check_lr

__all__ = ["LBFGS"]


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clipped
    to bounds (default: the interval); the bounds' midpoint when the cubic has none."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    discriminant = d1 ** 2 - g1 * g2
    if discriminant < 0:
        return (low + high) / 2.0
    d2 = discriminant.sqrt()
    if x1 <= x2:
        position = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        position = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(position, low), high)


def _strong_wolfe(evaluate, t, d, loss, grad, slope, c1=1e-4, c2=0.9,
                  tolerance_change=1e-9, max_ls=25):
    """A step t along d meeting the strong Wolfe conditions: (loss, grad, t, evaluations).
    First widen t until a bracket holds a minimum, then narrow the bracket (zoom)."""
    d_norm = d.abs().max()
    grad = grad.clone()
    new_loss, new_grad = evaluate(t)
    evaluations, iteration = 1, 0
    new_slope = new_grad.dot(d)
    t_prev, loss_prev, grad_prev, slope_prev = 0, loss, grad, slope
    done = False
    while iteration < max_ls:
        if new_loss > loss + c1 * t * slope or (iteration > 1 and new_loss >= loss_prev):
            bracket = [[t_prev, loss_prev, grad_prev, slope_prev],
                       [t, new_loss, new_grad.clone(), new_slope]]
            break
        if abs(new_slope) <= -c2 * slope:
            bracket, done = [[t, new_loss, new_grad, new_slope]], True
            break
        if new_slope >= 0:
            bracket = [[t_prev, loss_prev, grad_prev, slope_prev],
                       [t, new_loss, new_grad.clone(), new_slope]]
            break
        # extrapolate: between a little past t and ten times t
        t_next = _cubic_minimum(t_prev, loss_prev, slope_prev, t, new_loss, new_slope,
                                bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, loss_prev, grad_prev, slope_prev = t, new_loss, new_grad.clone(), new_slope
        t = t_next
        new_loss, new_grad = evaluate(t)
        evaluations += 1
        new_slope = new_grad.dot(d)
        iteration += 1
    if iteration == max_ls:
        bracket = [[0, loss, grad, None], [t, new_loss, new_grad, None]]

    # zoom: entry k of the bracket is [t, loss, grad, slope]
    stuck = False
    low, high = (0, 1) if bracket[0][1] <= bracket[-1][1] else (1, 0)
    while not done and iteration < max_ls:
        if abs(bracket[1][0] - bracket[0][0]) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(bracket[0][0], bracket[0][1], bracket[0][3],
                           bracket[1][0], bracket[1][1], bracket[1][3])
        # keep t at least a tenth of the bracket away from its ends
        left, right = min(bracket[0][0], bracket[1][0]), max(bracket[0][0], bracket[1][0])
        margin = 0.1 * (right - left)
        if min(right - t, t - left) < margin:
            if stuck or t >= right or t <= left:
                t = right - margin if abs(t - right) < abs(t - left) else left + margin
                stuck = False
            else:
                stuck = True
        else:
            stuck = False
        new_loss, new_grad = evaluate(t)
        evaluations += 1
        new_slope = new_grad.dot(d)
        iteration += 1
        if new_loss > loss + c1 * t * slope or new_loss >= bracket[low][1]:
            bracket[high] = [t, new_loss, new_grad.clone(), new_slope]
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
        else:
            if abs(new_slope) <= -c2 * slope:
                done = True
            elif new_slope * (bracket[high][0] - bracket[low][0]) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = [t, new_loss, new_grad.clone(), new_slope]
    t, new_loss, new_grad, _ = bracket[low]
    return new_loss, new_grad, t, evaluations


class LBFGS(Optimizer):
    """torch.optim.LBFGS: one parameter group; step(closure) runs up to max_iter iterations."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        return tapegrad.cat([tapegrad.zeros(p.numel(), dtype=p.dtype) if p.grad is None
                             else p.grad.reshape(-1) for p in self._params])

    def _add_to_params(self, step_size, direction):
        offset = 0
        for p in self._params:
            p.add_(direction[offset:offset + p.numel()].view_as(p), alpha=step_size)
            offset += p.numel()

    # The closure is required (the base class's is optional), as in torch.
    def step(self, closure: Callable[[], float]) -> float:  # type: ignore[override]
        """Minimise along quasi-Newton directions; returns the closure's first loss."""
        with tapegrad.no_grad():
            return self._step(tapegrad.enable_grad()(closure))

    def _step(self, closure):
        group = self.param_groups[0]
        lr = group["lr"]  # a tensor lr stays one, 0-d (torch's _to_scalar)
        lr = lr.squeeze() if isinstance(lr, tapegrad.Tensor) else lr
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        first_loss = closure()
        loss = float(first_loss)
        evaluations = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return first_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_flat_grad = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")
        iteration = 0
        while iteration < max_iter:
            iteration += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_stps, ro, h_diag = flat_grad.neg(), [], [], [], 1
            else:
                y, s = flat_grad.sub(prev_flat_grad), d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:  # keep the pair only where the curvature is positive
                    if len(old_dirs) == history_size:
                        del old_dirs[0], old_stps[0], ro[0]
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                # the two-loop recursion: d = -H grad
                alphas = state.setdefault("al", [None] * history_size)
                q = flat_grad.neg()
                for i in reversed(range(len(old_dirs))):
                    alphas[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-alphas[i])
                d = tapegrad.mul(q, h_diag)
                for i in range(len(old_dirs)):
                    beta = old_dirs[i].dot(d) * ro[i]
                    d.add_(old_stps[i], alpha=alphas[i] - beta)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            # the first step is scaled down to a unit l1 change
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            slope = flat_grad.dot(d)
            if slope > -tolerance_change:
                break

            step_evaluations = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                start = [p.clone() for p in self._params]

                def evaluate(step_size):
                    self._add_to_params(step_size, d)
                    value = float(closure())
                    grad = self._flat_grad()
                    for p, saved in zip(self._params, start):
                        p.copy_(saved)
                    return value, grad
                loss, flat_grad, t, step_evaluations = _strong_wolfe(
                    evaluate, t, d, loss, flat_grad, slope, max_ls=max_eval - evaluations)
                self._add_to_params(t, d)
                converged = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_to_params(t, d)
                converged = False
                if iteration != max_iter:
                    loss = float(closure())
                    flat_grad = self._flat_grad()
                    converged = flat_grad.abs().max() <= tolerance_grad
                    step_evaluations = 1
            evaluations += step_evaluations
            state["func_evals"] += step_evaluations
            if (iteration == max_iter or evaluations >= max_eval or converged
                    or d.mul(t).abs().max() <= tolerance_change
                    or abs(loss - prev_loss) < tolerance_change):
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return first_loss
