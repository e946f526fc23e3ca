"""Baseline rescaling: make raw BERTScores readable.

Raw scores of a model live in a narrow band (unrelated sentences already score well above 0).
The paper takes b = the mean score of random, unrelated sentence pairs and maps

    x_rescaled = (x - b) / (1 - b)          separately for P, R and F,

so unrelated text lands near 0 and identical text stays at 1. It is a linear map: rankings
do not change, and scores below the baseline become negative.

Baseline files use bert-score's format: comma-separated, header `LAYER,P,R,F`, row k = layer k.
"""
from __future__ import annotations

import math
import os
from pathlib import Path

from course_lib.resources import BASELINES

import torch

BASELINE_DIR = BASELINES


def rescale(x: torch.Tensor, b: float | torch.Tensor) -> torch.Tensor:
    """(x - b) / (1 - b)."""
    return (x - b) / (1 - b)


def read_baseline(path, n_layers: int | None = None) -> torch.Tensor:
    """Read a baseline file -> tensor [n_layers + 1, 3] with columns P, R, F (row k = layer k).

    Refused with an error naming the file: no rows, a value that is not a finite number, a
    baseline b >= 1 (x -> (x - b) / (1 - b) would divide by 0 or flip the sign), and, when
    `n_layers` is given, a file whose rows are not layers 0..n_layers (another model's file).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"Baseline file not found: {path}")
    lines = [l.strip() for l in path.read_text().splitlines() if l.strip()]
    header = [h.strip() for h in lines[0].split(",")] if lines else []
    if header != ["LAYER", "P", "R", "F"]:
        raise ValueError(f"{path}: expected header LAYER,P,R,F, got {lines[0] if lines else 'an empty file'!r}")
    if len(lines) == 1:
        raise ValueError(f"{path}: no baseline rows under the header")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            row = [float(v) for v in line.split(",")]
        except ValueError:
            row = []
        if len(row) != 4 or not all(math.isfinite(v) for v in row):
            raise ValueError(f"{path}, line {number}: expected 4 finite numbers LAYER,P,R,F, got {line!r}")
        if max(row[1:]) >= 1:
            raise ValueError(f"{path}, line {number}: a baseline must be < 1 (rescaling divides by "
                             f"1 - b), got {line!r}")
        rows.append(row)
    if [r[0] for r in rows] != list(range(len(rows))):
        raise ValueError(f"{path}: rows must be layers 0, 1, 2, ... in order")
    if n_layers is not None and len(rows) != n_layers + 1:
        raise ValueError(f"{path} has baselines for layers 0..{len(rows) - 1}, but the model has layers "
                         f"0..{n_layers}: it is another model's file")
    return torch.tensor([r[1:] for r in rows], dtype=torch.float32)


def write_baseline(path, baselines) -> Path:
    """Write [n_layers + 1, 3] baselines (P, R, F per layer) in bert-score's format."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["LAYER,P,R,F"] + [f"{k},{p:.10f},{r:.10f},{f:.10f}" for k, (p, r, f) in enumerate(baselines)]
    path.write_text("\n".join(lines) + "\n")
    return path


def default_baseline_path(model_type) -> Path:
    """Where the course keeps its own baseline for a model: course_lib/resources/baselines/<name>.tsv
    (`ModelRef.baseline_name`)."""
    from course_lib.model import model_ref

    return BASELINE_DIR / model_ref(model_type).baseline_name


def baseline_file(baseline_path, model_type, lang=None) -> str:
    """The baseline file every entry point reads: `baseline_path`, else the course's file for the
    model, else (with `lang`) the file bert-score ships for lang and model_type; a clear error
    when there is none. `model_type`: a `ModelRef` or anything `model_ref` takes."""
    from course_lib.model import model_ref

    ref = model_ref(model_type)
    path = BASELINE_DIR / ref.baseline_name if baseline_path is None else baseline_path
    if baseline_path is None and not os.path.isfile(path) and lang is not None and ref.arg is not None:
        import bert_score

        path = os.path.join(os.path.dirname(bert_score.__file__), "rescale_baseline",
                            lang.lower(), f"{ref.arg}.tsv")
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"No baseline file for this model at {path}. Compute one with "
            "course_lib.engine.baseline.compute_baseline and write_baseline, or pass baseline_path=.")
    return str(path)


def layer_baseline(path, layer: int) -> torch.Tensor:
    """The (P, R, F) baseline [3] of one layer from a file."""
    table = read_baseline(path)
    if not 0 <= layer < len(table):
        raise ValueError(f"{path} has baselines for layers 0..{len(table) - 1}, not layer {layer}")
    return table[layer]
