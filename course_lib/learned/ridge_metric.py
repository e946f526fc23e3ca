"""The learned metric the course ships: BERTScore's own scores, re-weighed by people.

One row per (hypothesis, reference), 24 columns (`features`):

    P0..P6, R0..R6, F0..F6   BERTScore at every hidden state of the embedded model (greedy token matching)
    chrF, length ratio       sacrebleu's sentence chrF; words in the hypothesis / words in the reference
    F4²                      the default layer's F, squared: human z-scores are not a straight line in F

and ridge regression on the standardised columns (`regressor.fit_ridge`, in float64):

    ẑ = Σ_k w_k (x_k − μ_k)/σ_k + b,    w = (ZᵀZ + αI)⁻¹ Zᵀ(z − z̄)

The strength α is chosen by leave-one-pair-out *inside* the training pairs (`choose_alpha`), never
by a pair the metric is evaluated on. The shipped weights (course_lib/resources/learned/ridge.json)
are `train()` on all six WMT16 to-English pairs, written by
`python -m course_lib.learned.precompute ridge` (`write_shipped`); chapter 10 builds and evaluates it step by step.
The source is not read: with an English encoder it cannot be trusted on an unseen source language.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from course_lib.learned.baseline import baseline_features
from course_lib.learned.regressor import fit_ridge, one_thread, ridge_predict
from course_lib.model import DEFAULT_LAYER

PAIRS = ("cs-en", "de-en", "fi-en", "ro-en", "ru-en", "tr-en")
ALPHAS = (0.1, 1.0, 10.0, 100.0, 1000.0)
SQUARED = f"F{DEFAULT_LAYER}"  # the column whose square is added


@dataclass(frozen=True)
class RidgeMetric:
    """A fitted ridge metric: column names, weights w, bias b, column means μ and sds σ, and α."""

    names: tuple[str, ...]
    w: tuple[float, ...]
    bias: float
    mu: tuple[float, ...]
    sigma: tuple[float, ...]
    alpha: float
    pairs: tuple[str, ...] = PAIRS


def with_square(x: torch.Tensor, names: list[str]) -> tuple[torch.Tensor, list[str]]:
    """Append the column `SQUARED`² to x [N, k] -> ([N, k + 1], names + ["F4²"])."""
    column = x[:, names.index(SQUARED)]
    return torch.cat([x, (column ** 2)[:, None]], dim=1), [*names, f"{SQUARED}²"]


def features(hypotheses: list[str], references: list[str]) -> tuple[torch.Tensor, list[str]]:
    """The metric's inputs (see the module's docstring) -> (x [N, 24], column names)."""
    return with_square(*baseline_features(hypotheses, references))


def choose_alpha(x: torch.Tensor, y: torch.Tensor, lps, alphas=ALPHAS) -> tuple[float, dict[float, float]]:
    """The α of `alphas` with the highest mean Pearson r over leave-one-pair-out folds of the rows
    given (x [N, k], y [N], lps [N]: each row's language pair) -> (α, {α: mean r})."""
    lps = np.asarray(lps)
    pairs = sorted(set(lps))
    if len(pairs) < 2:
        raise ValueError("choosing α by leave-one-pair-out needs rows of at least two language pairs")
    mean_r = {}
    with one_thread():  # small arrays: threads would only wait for each other
        for alpha in alphas:
            rs = []
            for pair in pairs:
                train, test = torch.from_numpy(lps != pair), torch.from_numpy(lps == pair)
                ẑ = ridge_predict(fit_ridge(x[train], y[train], alpha), x[test])
                rs.append(np.corrcoef(ẑ.double().numpy(), y[test].double().numpy())[0, 1])
            mean_r[alpha] = float(np.mean(rs))
    return max(mean_r, key=mean_r.get), mean_r


def fit(x: torch.Tensor, y: torch.Tensor, lps, names, alphas=ALPHAS) -> RidgeMetric:
    """α by `choose_alpha` on these rows, then ridge on all of them -> a RidgeMetric."""
    if x.shape[1] != len(names):
        raise ValueError(f"{x.shape[1]} columns but {len(names)} names")
    alpha, _ = choose_alpha(x, y, lps, alphas)
    w, bias, mu, sigma = fit_ridge(x, y, alpha)
    return RidgeMetric(tuple(names), tuple(w.tolist()), float(bias), tuple(mu.tolist()), tuple(sigma.tolist()), alpha, tuple(sorted(set(np.asarray(lps)))))


def predict(metric: RidgeMetric, x: torch.Tensor, names) -> torch.Tensor:
    """The metric's scores of rows x [N, k] whose columns are `names` -> [N] (float32).
    Columns in another order than the metric's are an error, not a silently wrong score."""
    if tuple(names) != metric.names:
        raise ValueError(f"the columns {list(names)} are not the metric's {list(metric.names)}")
    fitted = [torch.tensor(p, dtype=torch.float64) for p in (metric.w, metric.bias, metric.mu, metric.sigma)]
    return ridge_predict(fitted, x)


def train(pairs=PAIRS, alphas=ALPHAS) -> RidgeMetric:
    """Fit on the WMT16 DA segments of `pairs` (features read from data/wmt16_da/vectors/)."""
    from course_lib.evaluation.datasets import wmt16

    df = wmt16()
    df = df[df.lp.isin(pairs)]
    x, names = features(df.mt.tolist(), df.ref.tolist())
    return fit(x, torch.tensor(df.human_z.to_numpy()), df.lp.to_numpy(), names, alphas)


def save(metric: RidgeMetric, path: Path) -> None:
    """Write the metric as JSON (floats written exactly: json round-trips a float64)."""
    fields = {**asdict(metric), "model": "sentence-transformers/all-MiniLM-L6-v2 (embedded), layers 0-6"}
    Path(path).write_text(json.dumps(fields, indent=1) + "\n", encoding="utf-8")


def load(path: Path) -> RidgeMetric:
    """A metric written by `save`."""
    fields = json.loads(Path(path).read_text(encoding="utf-8"))
    fields.pop("model", None)
    return RidgeMetric(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})


def score(hypotheses: list[str], references: list[str], metric: RidgeMetric) -> torch.Tensor:
    """Predicted DA z-score of each hypothesis against its reference -> [N]."""
    x, names = features(list(hypotheses), list(references))
    return predict(metric, x, names)



def write_shipped() -> Path:
    """`train()` on all six pairs, saved where `metric.load_ridge` reads it -> the file."""
    from importlib.resources import files

    target = Path(str(files("course_lib.resources") / "learned" / "ridge.json"))
    save(train(), target)
    return target
