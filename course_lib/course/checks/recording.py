"""The student's kernel in nbgrader's run: it reads the cases `checks.autograde.DrawCases` drew (never the secret)
and writes what the answers give on them, for `checks.autograde.Verdicts` to judge after the run."""
from __future__ import annotations

import os
from pathlib import Path

CASES_ENV = "COURSE_GRADING_CASES"    # the file of drawn cases the kernel reads
RECORD_ENV = "COURSE_GRADING_RECORD"  # the folder the kernel writes each exercise's outputs to


def _grading_file():
    path = os.environ.get(CASES_ENV, "")
    if not path or not Path(path).exists():
        raise RuntimeError("grading mode without the grading cases: run this notebook with nbgrader autograde "
                           "in the course folder `make nbgrader` wrote")
    import torch

    return torch.load(path, weights_only=False)


def restore_seed() -> None:
    """An older checker's test cell: set $COURSE_GRADING_SEED to this run's seed (DrawCases left it beside the cases)."""
    os.environ["COURSE_GRADING_SEED"] = str(_grading_file()["seed"])


def hidden(name: str):
    """The chapter's data `name` in grading mode: what `DrawCases` drew for this run."""
    return _grading_file()["data"][name]


def grading_cases(exercise: str) -> dict:
    """The cases drawn for `exercise` in this run."""
    return _grading_file()["cases"][exercise]


def save(exercise: str, outputs: dict) -> None:
    """Write what the answers gave, for `Verdicts`; print that it is recorded (no verdict here)."""
    import torch

    target = Path(os.environ[RECORD_ENV]) / f"{exercise}.pt"
    try:
        torch.save(outputs, target)
    except Exception as err:  # an answer that cannot be saved (a generator, an open file...)
        torch.save({"__unsaved__": f"the answer could not be recorded ({type(err).__name__})"}, target)
    print(f"Exercise {exercise}: answer recorded; it is graded after the run.")
