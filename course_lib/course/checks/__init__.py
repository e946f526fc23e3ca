"""Checkers for the chapters' exercises: one module per chapter (ch01, ch02, ...).

A checker takes the student's answer (a function, a number, a string), runs it on cases whose
correct result is known from course_lib (never a hard-coded score), prints one line -- a pass,
or a hint -- and returns True or False. Tests call the same checkers on planted wrong answers.
"""
from __future__ import annotations

import math


def report(exercise: str, ok: bool, hint: str = "") -> bool:
    """Print a pass line or a hint line; return `ok`."""
    if ok:
        print(f"✅ Exercise {exercise}: passed.")
    else:
        print(f"❌ Exercise {exercise}: not yet. Hint: {hint}")
    return ok


def run(exercise: str, test, hint: str) -> bool:
    """Run `test()` (which asserts); a failure of any kind becomes a hint, never a traceback."""
    try:
        test()
    except NotImplementedError:
        return report(exercise, False, "replace `raise NotImplementedError()` with your code. " + hint)
    except AssertionError as err:
        detail = f" ({err})" if str(err) else ""
        return report(exercise, False, hint + detail)
    except Exception as err:  # a student's code may fail in any way
        return report(exercise, False, f"your code raised {type(err).__name__}: {err}. {hint}")
    return report(exercise, True)


def close(a, b, tol: float = 1e-6) -> bool:
    """Numbers equal within `tol` (absolute)."""
    try:
        return math.isclose(float(a), float(b), abs_tol=tol, rel_tol=0)
    except (TypeError, ValueError):
        return False
