"""The estimator: a small feed-forward network from features to one quality number, trained
with mean squared error against human scores; and the simplest learned metric, ridge regression.

    ŷ = W₂ tanh(W₁ x + b₁) + b₂            loss = mean_i (ŷ_i − y_i)²

COMET (Rei et al., 2020) uses the same shape with wider layers, on top of XLM-R (fine-tuned);
here the encoder is frozen and only this head learns.
"""
from __future__ import annotations

import contextlib

import torch
from torch import nn


def regressor(in_dim: int, hidden: int = 16, seed: int = 0) -> nn.Sequential:
    """in_dim -> hidden -> 1, tanh between; initial weights drawn from `seed`."""
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(in_dim, hidden), nn.Tanh(), nn.Linear(hidden, 1))


@contextlib.contextmanager
def one_thread():
    """Run the block on one CPU thread (sums in a fixed order: the same seed gives the same bits)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def train_loop(model: nn.Module, x: torch.Tensor, y: torch.Tensor, epochs: int = 30, lr: float = 1e-3,
               batch_size: int = 32, weight_decay: float = 1e-4, seed: int = 0, optimizer=None) -> list[float]:
    """Mini-batch Adam on the MSE; x: [N, in_dim], y: [N]. Returns the mean training loss of
    each epoch. The batches' order comes from a generator seeded with `seed`. `optimizer`: an Adam
    to go on with (its moments kept), else a new one with lr and weight_decay."""
    optimizer = optimizer or torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    order = torch.Generator().manual_seed(seed)
    losses = []
    with one_thread():
        for _ in range(epochs):
            total = 0.0
            for idx in torch.randperm(len(x), generator=order).split(batch_size):
                loss = ((model(x[idx]).squeeze(-1) - y[idx]) ** 2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item() * len(idx)
            losses.append(total / len(x))
    return losses


def train_early_stopping(model: nn.Module, x: torch.Tensor, y: torch.Tensor, x_val: torch.Tensor,
                         y_val: torch.Tensor, max_epochs: int = 30, patience: int = 3, **settings) -> list[float]:
    """`train_loop` one epoch at a time on (x, y); after each epoch, the MSE on a validation set
    (x_val, y_val) the head does not train on. Stops after `patience` epochs without a new lowest
    validation MSE and puts back the weights of the best epoch. Returns the validation MSE of each
    epoch run (the best is min of it). settings: lr, batch_size, weight_decay, seed."""
    seed = settings.pop("seed", 0)
    optimizer = torch.optim.Adam(model.parameters(), lr=settings.pop("lr", 1e-3),
                                 weight_decay=settings.pop("weight_decay", 1e-4))
    best, best_state, val_losses = float("inf"), None, []
    for epoch in range(max_epochs):
        train_loop(model, x, y, epochs=1, seed=seed + epoch, optimizer=optimizer, **settings)
        val_losses.append(float(((predict(model, x_val) - y_val) ** 2).mean()))
        if val_losses[-1] < best:
            best, best_state = val_losses[-1], {k: v.clone() for k, v in model.state_dict().items()}
        elif epoch - val_losses.index(best) >= patience:
            break
    model.load_state_dict(best_state)
    return val_losses


def predict(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """The model's scores -> [N]."""
    with torch.no_grad(), one_thread():
        return model(x).squeeze(-1)


def fit_ridge(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0) -> tuple[torch.Tensor, torch.Tensor,
                                                                            torch.Tensor, torch.Tensor]:
    """Ridge regression on standardised columns: w = (ZᵀZ + αI)⁻¹ Zᵀ(y − ȳ), Z = (x − μ)/σ.

    x: [N, k], y: [N] -> (w [k], bias, μ [k], σ [k]); predict with `ridge_predict`. On one thread:
    the arrays are small, and threads only wait for each other (many times slower on a busy CPU).
    """
    with one_thread():
        x, y = x.double(), y.double()
        mu, sigma = x.mean(0), x.std(0).clamp(min=1e-12)
        z = (x - mu) / sigma
        w = torch.linalg.solve(z.T @ z + alpha * torch.eye(x.shape[1], dtype=x.dtype), z.T @ (y - y.mean()))
        return w, y.mean(), mu, sigma


def ridge_predict(fit, x: torch.Tensor) -> torch.Tensor:
    """ŷ = ((x − μ)/σ) w + ȳ -> [N]."""
    w, bias, mu, sigma = fit
    with one_thread():
        return (((x.double() - mu) / sigma) @ w + bias).float()
