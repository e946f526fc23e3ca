"""Checkers for the chapters' exercises: one module per chapter (ch01, ch02, ...).

A checker takes the student's answer (a function, a number, a string), runs it on cases whose
correct result is known from course_lib or fixed data (never from the student's own outputs, never a
hard-coded score), prints one line -- a pass, or a hint -- and returns True or False. Tests call the
same checkers on planted wrong answers.

Hints come in two tiers. A failure first names the concept and the failing case. The code-level
hint (the expression to write) comes after repeated failures of the same exercise
(`CODE_HINT_AFTER`), or at once when the check is called with `hint=2`.

Where an exercise asks the student to write something course_lib already has, the checker runs the
student's function with that course_lib function made unavailable (`forbid`): calling it fails
with a hint instead of passing.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import math
import sys
from collections import Counter

CODE_HINT_AFTER = 2  # failed attempts of an exercise after which the code-level hint shows by itself
_FAILURES: Counter = Counter()


class ForbiddenCall(Exception):
    """The student's function called the course_lib function the exercise asks them to write."""


def reset_attempts() -> None:
    """Forget past failures (the code-level hint hides again until repeated failures)."""
    _FAILURES.clear()


def report(exercise: str, ok: bool, hint: str = "") -> bool:
    """Print a pass line or a hint line; return `ok`."""
    if ok:
        print(f"✅ Exercise {exercise}: passed.")
    else:
        print(f"❌ Exercise {exercise}: not yet. Hint: {hint}")
    return ok


def _hint_text(exercise: str, hint: str, code: str, level: int, attempted: bool) -> str:
    if attempted:
        _FAILURES[exercise] += 1
    if code and (level >= 2 or _FAILURES[exercise] > CODE_HINT_AFTER):
        return f"{hint} Code: {code}"
    if code:
        return f"{hint} (More help: call the check again with hint=2.)"
    return hint


def run(exercise: str, test, hint: str, code: str = "", level: int = 1) -> bool:
    """Run `test()` (which asserts); a failure of any kind becomes a hint, never a traceback.

    `hint` names the concept; an assertion's message adds the failing case; `code` (the code-level
    hint) is added when `level` >= 2 or after CODE_HINT_AFTER failed attempts of this exercise.
    An untouched stub (NotImplementedError) is not counted as an attempt.
    """
    try:
        test()
    except NotImplementedError:
        return report(exercise, False, "replace `raise NotImplementedError()` with your code. "
                      + _hint_text(exercise, hint, code, level, attempted=False))
    except ForbiddenCall as err:
        return report(exercise, False, f"{err} " + _hint_text(exercise, hint, code, level, attempted=True))
    except AssertionError as err:
        detail = f" ({err})" if str(err) else ""
        return report(exercise, False, _hint_text(exercise, hint + detail, code, level, attempted=True))
    except Exception as err:  # a student's code may fail in any way
        return report(exercise, False, f"your code raised {type(err).__name__}: {err}. "
                      + _hint_text(exercise, hint, code, level, attempted=True))
    _FAILURES.pop(exercise, None)
    return report(exercise, True)


def close(a, b, tol: float = 1e-6) -> bool:
    """Numbers equal within `tol` (absolute)."""
    try:
        return math.isclose(float(a), float(b), abs_tol=tol, rel_tol=0)
    except (TypeError, ValueError):
        return False


# ------------------------------------------------------------------ "write it yourself"

def _targets(names) -> dict[int, tuple[object, str]]:
    """id -> (function, dotted name) for dotted names of functions or of whole modules."""
    found = {}
    for name in names:
        module_name, _, attr = name.rpartition(".")
        try:
            obj = importlib.import_module(name)
        except ImportError:
            obj = getattr(importlib.import_module(module_name), attr)
        if inspect.ismodule(obj):
            for key, value in vars(obj).items():
                if inspect.isfunction(value) and value.__module__ == obj.__name__ and not key.startswith("_"):
                    found[id(value)] = (value, f"{obj.__name__}.{key}")
        else:
            found[id(obj)] = (obj, name)
    return found


def _unwrap(fn):
    while True:
        inner = getattr(fn, "func", None) or getattr(fn, "__wrapped__", None) or getattr(fn, "__func__", None)
        if inner is None or inner is fn:
            return fn
        fn = inner


def forbid(answer, *names: str, allow=None):
    """`answer` wrapped so that, while it runs, the course_lib functions `names` (dotted names of
    functions, or of modules: all their public functions) raise ForbiddenCall -- wherever they are
    reachable: their module, any course_lib module that re-exports them, and the globals of the
    student's function (a name imported in the notebook).

    `allow(*args, **kwargs)`, when given, lets through the calls it returns True for.
    """
    targets = _targets(names)

    def guard(original, dotted):
        @functools.wraps(original)
        def replacement(*args, **kwargs):
            if allow is not None and allow(*args, **kwargs):
                return original(*args, **kwargs)
            raise ForbiddenCall(f"your function calls {dotted}, which this exercise asks you to write "
                                "yourself (the check runs it without that function).")
        return replacement

    @functools.wraps(answer)
    def call(*args, **kwargs):
        namespaces = [vars(m) for name, m in list(sys.modules.items())
                      if m is not None and (name == "course_lib" or name.startswith("course_lib."))]
        answer_globals = getattr(_unwrap(answer), "__globals__", None)
        if answer_globals is not None:
            namespaces.append(answer_globals)
        saved = []
        for original, dotted in targets.values():
            replacement = guard(original, dotted)
            for namespace in namespaces:
                for key, value in list(namespace.items()):
                    if value is original:
                        saved.append((namespace, key, value))
                        namespace[key] = replacement
        try:
            inner = _unwrap(answer)
            if id(inner) in targets:  # the library function itself was handed in
                original, dotted = targets[id(inner)]
                return guard(original, dotted)(*args, **kwargs)
            return answer(*args, **kwargs)
        finally:
            for namespace, key, value in reversed(saved):
                namespace[key] = value

    return call
