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
               batch_size: int = 32, weight_decay: float = 1e-4, seed: int = 0) -> list[float]:
    """Mini-batch Adam on the MSE; x: [N, in_dim], y: [N]. Returns the mean training loss of
    each epoch. The batches' order comes from a generator seeded with `seed`."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
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


def predict(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """The model's scores -> [N]."""
    with torch.no_grad(), one_thread():
        return model(x).squeeze(-1)


def fit_ridge(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0) -> tuple[torch.Tensor, torch.Tensor,
                                                                            torch.Tensor, torch.Tensor]:
    """Ridge regression on standardised columns: w = (ZᵀZ + αI)⁻¹ Zᵀ(y − ȳ), Z = (x − μ)/σ.

    x: [N, k], y: [N] -> (w [k], bias, μ [k], σ [k]); predict with `ridge_predict`.
    """
    x, y = x.double(), y.double()
    mu, sigma = x.mean(0), x.std(0).clamp(min=1e-12)
    z = (x - mu) / sigma
    w = torch.linalg.solve(z.T @ z + alpha * torch.eye(x.shape[1], dtype=x.dtype), z.T @ (y - y.mean()))
    return w, y.mean(), mu, sigma


def ridge_predict(fit, x: torch.Tensor) -> torch.Tensor:
    """ŷ = ((x − μ)/σ) w + ȳ -> [N]."""
    w, bias, mu, sigma = fit
    return (((x.double() - mu) / sigma) @ w + bias).float()
