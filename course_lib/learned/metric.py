"""The learned metrics end to end: train, save, load, score new texts.

    course_lib.learned.score(sources, hypotheses, references)  -> [N] predicted DA z-scores, by the
        shipped ridge metric (`ridge_metric`: BERTScore at every layer, chrF, length, re-weighed);
        head="with_source" / "no_source": COMET's pooled estimator instead (chapter 10)
    course_lib.learned.train(layer=6, use_source=True, seed=0)  -> a pooled Head (its recipe)

A head is the regressor's weights (safetensors) and its recipe (JSON): layer, source or not,
width, epochs, learning rate, batch size, weight decay, seed, and the language pairs it saw.
The package ships, trained on all six WMT16 to-English pairs (course_lib/resources/learned,
README there): `ridge.json` (the default) and the heads `with_source` and `no_source`.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from importlib.resources import files
from pathlib import Path

import torch
from torch import nn

from course_lib.call.inputs import check_aligned
from course_lib.learned import ridge_metric
from course_lib.learned.ridge_metric import PAIRS
from course_lib.call.setting import resolve_setting
from course_lib.learned.features import comet_features, pooled_with
from course_lib.model import model_ref
from course_lib.learned.regressor import predict, regressor, train_loop

HEADS = Path(str(files("course_lib.resources") / "learned"))


@dataclass(frozen=True)
class Recipe:
    """Everything that decides a head's weights (with the data and the machine)."""

    layer: int = 6
    use_source: bool = True
    hidden: int = 16
    epochs: int = 20
    lr: float = 1e-3
    batch_size: int = 32
    weight_decay: float = 1e-4
    seed: int = 0
    pairs: tuple[str, ...] = PAIRS


@dataclass
class Head:
    """A trained regressor and its recipe; `losses` is the training loss per epoch."""

    model: nn.Module
    recipe: Recipe
    losses: list[float] = field(default_factory=list)


def check_texts(optional=(), **named) -> int:
    """Aligned lists of non-empty texts, passed by name (errors name the argument; those in
    `optional` may be None) -> their common length: `inputs.check_aligned` with nonempty=True (the
    learned metric needs text to read)."""
    return check_aligned(optional, nonempty=True, **named)


def features_of(sources, hypotheses, references, layer: int, model_type=None) -> torch.Tensor:
    """Pooled vectors of the three lists (sources may be None) -> features [N, 4·dim or 6·dim];
    the setting (model, layer) resolved once."""
    setting = resolve_setting(model_type, layer)
    h, r = pooled_with(setting, hypotheses), pooled_with(setting, references)
    s = pooled_with(setting, sources) if sources is not None else None
    return comet_features(h, r, s)


def wmt16_data(layer: int, use_source: bool, pairs=PAIRS, df=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Features [N, D] and human z-scores [N] of WMT16 DA segments of `pairs`."""
    from course_lib.evaluation.datasets import wmt16

    df = wmt16() if df is None else df
    df = df[df.lp.isin(pairs)]
    x = features_of(df.src.tolist() if use_source else None, df.mt.tolist(), df.ref.tolist(), layer)
    return x, torch.tensor(df.human_z.to_numpy(), dtype=torch.float32)


def fit(x: torch.Tensor, y: torch.Tensor, recipe: Recipe) -> Head:
    """A new regressor trained on (x [N, D], y [N]) by `train_loop` with the recipe's settings."""
    model = regressor(x.shape[1], recipe.hidden, recipe.seed)
    losses = train_loop(model, x, y, epochs=recipe.epochs, lr=recipe.lr, batch_size=recipe.batch_size,
                        weight_decay=recipe.weight_decay, seed=recipe.seed)
    return Head(model, recipe, losses)


def held_out(recipe: Recipe | None = None, without_shared_references: bool = False) -> dict[str, torch.Tensor]:
    """Heads of `recipe` (default: the shipped one) on WMT16, rows in `datasets.wmt16()` order:

        "held out"  [N]  each row scored by a head trained without the row's language pair
                         (`evaluation.leave_one_pair_out`)
        "train r"   [6]  each fold's head's Pearson r on its own training rows (pairs in sorted order)

    without_shared_references: each fold also leaves out of training every row whose reference
    occurs in the held-out pair (`evaluation.pair_splits` with the references: the leak of the split
    that chapter 10 measures).

    Six heads to train (about half a minute on 2 cores), so the result is cached on disk
    (`cache.cached`, keyed by the model, the recipe and the texts), and the shipped recipe's results
    ship in data/wmt16_da/vectors/ (`python -m course_lib.learned.precompute held-out`): chapter 10
    and its exercise check read them; the course's test suite retrains a fold and compares
    (tests/test_learned_ridge.py in the course repository)."""
    from course_lib.evaluation.datasets import wmt16
    from course_lib.learned.cache import cached
    from course_lib.learned.evaluation import leave_one_pair_out, pair_splits

    recipe = recipe or Recipe()
    df = wmt16()

    def compute():
        x, y = wmt16_data(recipe.layer, recipe.use_source, df=df)
        train_r = []

        def fit_predict(train, test):
            model = fit(x[train], y[train], recipe).model
            train_r.append(float(torch.corrcoef(torch.stack([predict(model, x[train]), y[train]]))[0, 1]))
            return predict(model, x[test])

        refs = df.ref if without_shared_references else None
        held = torch.tensor(leave_one_pair_out(df.lp, fit_predict, splits=lambda lps: pair_splits(lps, refs)),
                            dtype=torch.float32)
        return {"held out": held, "train r": torch.tensor(train_r)}

    parts = (model_ref(None).disk_key, json.dumps(asdict(recipe), sort_keys=True), df.lp.tolist(), df.src.tolist(),
             df.mt.tolist(), df.ref.tolist(), df.human_z.tolist()) + (("without shared references",)
                                                                       if without_shared_references else ())
    return cached("heads-held-out", parts, compute)


def train(recipe: Recipe | None = None, **settings) -> Head:
    """Train a head on WMT16 DA: `train()` is the shipped `with_source` recipe;
    `train(use_source=False)` the `no_source` one; any Recipe field can be given."""
    recipe = Recipe(**{**asdict(recipe or Recipe()), **settings})
    x, y = wmt16_data(recipe.layer, recipe.use_source, recipe.pairs)
    return fit(x, y, recipe)


def save_head(head: Head, path: Path) -> None:
    """Write path.safetensors (weights) and path.json (recipe)."""
    from safetensors.torch import save_file

    path = Path(path)
    save_file({k: v.contiguous() for k, v in head.model.state_dict().items()}, str(path.with_suffix(".safetensors")))
    recipe = {**asdict(head.recipe), "pairs": list(head.recipe.pairs)}
    path.with_suffix(".json").write_text(json.dumps(recipe, indent=2) + "\n", encoding="utf-8")


def load_head(name_or_path: str | Path = "with_source") -> Head:
    """A saved head: "with_source" / "no_source" (shipped) or a path (without suffix)."""
    from safetensors.torch import load_file

    path = HEADS / name_or_path if isinstance(name_or_path, str) and "/" not in name_or_path else Path(name_or_path)
    fields = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    recipe = Recipe(**{**fields, "pairs": tuple(fields["pairs"])})
    state = load_file(str(path.with_suffix(".safetensors")))
    model = regressor(state["0.weight"].shape[1], recipe.hidden, recipe.seed)
    model.load_state_dict(state)
    return Head(model.eval(), recipe)


def score(sources, hypotheses, references, head: Head | str | None = None, model_type=None) -> torch.Tensor:
    """Predicted DA z-score of each hypothesis against its reference -> [N]. Higher = better; the
    numbers are on the scale of WMT16's z-scores (0 ≈ an average translation of 2016), not in [0, 1].

    head=None or "ridge": the shipped ridge metric (`ridge_metric`) on the embedded model; it reads
    hypotheses and references only (sources, if given, are checked, not read). head="with_source",
    "no_source", a path or a Head: COMET's pooled estimator (`score_head`).
    """
    check_texts(optional=("sources",), sources=sources, hypotheses=hypotheses, references=references)
    if head is None or (isinstance(head, str) and head == "ridge"):
        if model_type is not None:
            raise ValueError("the ridge metric's weights belong to the embedded model: leave model_type=None "
                             "(or pass head='with_source' / 'no_source' for a pooled head)")
        return ridge_metric.score(hypotheses, references, load_ridge())
    return score_head(sources, hypotheses, references, head, model_type)


def load_ridge(path: str | Path | None = None) -> ridge_metric.RidgeMetric:
    """The shipped ridge metric (course_lib/resources/learned/ridge.json), or one saved at `path`."""
    return ridge_metric.load(HEADS / "ridge.json" if path is None else Path(path))


def score_head(sources, hypotheses, references, head: Head | str | Path, model_type=None) -> torch.Tensor:
    """COMET's pooled estimator: the head's score of each hypothesis against its reference (and
    source, for a head trained with sources) -> [N]."""
    check_texts(optional=("sources",), sources=sources, hypotheses=hypotheses, references=references)
    head = load_head(head) if isinstance(head, (str, Path)) else head
    if head.recipe.use_source and sources is None:
        raise ValueError("this head was trained with sources: pass sources=[...] (or a no_source head)")
    x = features_of(sources if head.recipe.use_source else None, hypotheses, references, head.recipe.layer,
                    model_type)
    return predict(head.model, x)
