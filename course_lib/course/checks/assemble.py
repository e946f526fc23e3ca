"""What a chapter's module is made of: its data names (`chapter_data`, the published data or, in nbgrader's run,
the hidden data) and its `check_N_M` functions (`checker`, `checkers`), all running `exercise.check`."""
from __future__ import annotations

import inspect
from typing import Callable

from .exercise import Exercise, check
from .state import grading


def chapter_data(published: dict):
    """A chapter module's `__getattr__` for its data names: `published[name]` in learning mode, the data drawn
    with the grading secret in nbgrader's run (`recording.hidden`). Read when asked, never drawn at import."""
    def __getattr__(name):
        if name not in published:
            raise AttributeError(name)
        if grading():
            from .recording import hidden

            return hidden(name)
        return published[name]
    return __getattr__


def checkers(exercises: dict, published: dict) -> list:
    """The `check_N_M` functions of a chapter's `exercises`, in order, reading its data as `chapter_data` does."""
    value = chapter_data(published)
    return [checker(ex, lambda: {name: value(name) for name in published}) for ex in exercises.values()]


def checker(ex: Exercise, data: Callable[[], dict]):
    """`check_N_M(*answers, hint=1)` for a chapter's module; `data()` gives the chapter's published data."""
    names = [part.name for part in ex.answers]

    def check_exercise(*given, hint: int = 1) -> bool:
        given = tuple(given) + (None,) * (len(names) - len(given))
        return check(ex, given, data(), level=hint)

    check_exercise.__name__ = f"check_{ex.id.replace('.', '_')}"
    check_exercise.__doc__ = f"Exercise {ex.id}: check({', '.join(names)}, hint=1)."
    check_exercise.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None) for n in names]
        + [inspect.Parameter("hint", inspect.Parameter.KEYWORD_ONLY, default=1)])
    check_exercise.exercise = ex
    return check_exercise
