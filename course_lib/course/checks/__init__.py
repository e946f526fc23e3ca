"""Checkers for the chapters' exercises: one module per chapter (ch01, ch02, ...).

Chapters 01-03 are exercises as data, run by one runner (`checks.exercise`; built by `checks.assemble`, graded
by nbgrader outside the kernel by `checks.autograde`); what follows describes the older checkers of the other
chapters, which share this package's `report`, `forbid` and attempts file (`state`) with the runner.

A checker takes the student's answer (a function, a number, a string), runs it on cases whose
correct result is known from course_lib or fixed data (never from the student's own outputs, never a
hard-coded score), prints one line -- a pass, or a hint -- and returns True or False. Tests call the
same checkers on planted wrong answers.

Hints come in two tiers. A failure first names the mistake (the failing case), then the concept. The code-level
hint (the expression to write) comes after the same mistake is repeated (`CODE_HINT_AFTER` failures
with the same first-level hint, numbers aside: three different honest slips never show the code), or at once when the check is called with `hint=2` or the environment variable
COURSE_HINT is 2 (`make check ... HINT=2`). Failed attempts are remembered between kernels and
processes (`make check` starts a fresh process each run) in a small JSON file in the user's cache
folder (course_lib.paths.user_cache_dir(), overridable with COURSE_CACHE), never in the course
folder, counted per notebook copy (`notebook_copy()`: two students' files never share a count); a
pass forgets the exercise's failures. Exercise 7.8 (predict, then run) keeps the first prediction this notebook copy
gave (`first_answer`, in first_answers.json beside the attempts file, learning mode only: grading keeps nothing) and
its pass reports how that one fared; the check itself judges the prediction as given, once the run is right, so a
wrong one is corrected after reading why; `reset_attempts` forgets it.

Two modes, one set of checks. Learning (the default): a check prints ✅ or ❌ with a hint and returns
True or False. Grading (`grading()`: $COURSE_GRADING set, as the nbgrader_config.py that `make
nbgrader` writes sets it for nbgrader's runs): a failing check raises AssertionError with its
first-level hint (never the code), and no attempts file is read or written; the chapters' value
exercises then run on data drawn with the grading seed ($COURSE_GRADING_SEED, set for each assignment by
`checks.autograde.DrawCases` from the course folder's secret), which no release or notebook holds
(each chapter's `_hidden_data()` or data function: 1.5, 1.7, 2.4, 2.5, 3.1, 3.4, 4.3-4.5, 5.2-5.4, 6.3,
7.8, 8.1, 8.4-8.6; 6.3 about another threshold (and other baselines), 7.8 about five other WMT16 pairs, 8.1 for
a frame of other language pairs and margins). The function exercises run on the checker's own cases (7.4 on
hidden WMT16 pairs; 5.3, 6.1, 6.2, 7.3 (Python calls to translate into flags), 7.5, 7.7, 8.2, 9.4, 9.5, 10.2
and 10.3 on cases drawn with the grading seed too). 6.4 is a design task, checked on the student's own answer.

Where an exercise asks the student to write something course_lib already has, the checker runs the
student's function with that course_lib function made unavailable (`forbid`): calling it fails
with a hint instead of passing.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import math
import os
import sys

from .state import (GRADING_ENV, GRADING_SEED_ENV, NOTEBOOK_ENV, RESULTS_ENV, _FAILURES,  # noqa: F401
                    _count_failure, _forget, _load_attempts, _record, _save_attempts, attempts_file,
                    failed_attempts, first_answer, first_answers_file, grading, repeated_mistake, grading_seed,
                    hidden_rng, hidden_rows, notebook_copy, recorded_results, reset_attempts)

CODE_HINT_AFTER = 2  # failed attempts of an exercise after which the code-level hint shows by itself
HINT_ENV = "COURSE_HINT"  # a hint level for every check of the run (make check ... HINT=2)


class ForbiddenCall(Exception):
    """The student's function called the course_lib function the exercise asks them to write."""


def hint_level(level: int = 1) -> int:
    """The hint level asked for: `level` (a check's `hint=`), raised by $COURSE_HINT when set."""
    try:
        asked = int(os.environ.get(HINT_ENV, "") or 1)
    except ValueError:
        asked = 1
    try:
        return max(int(level), asked)
    except (TypeError, ValueError):
        return asked


class CheckFailed(AssertionError):
    """A failing check in grading mode: its message is the first-level hint, never the code."""


def report(exercise: str, ok: bool, hint: str = "", note: str = "") -> bool:
    """Print a pass line or a hint line; return `ok`. In grading mode a failure raises CheckFailed.
    With $COURSE_CHECK_RESULTS set (make check), the result is also appended to that file as a JSON
    line: make check reads results from there, never from printed text."""
    _record(exercise, ok)
    if not ok and grading():
        raise CheckFailed(f"Exercise {exercise}: not passed. {hint}")
    if ok:
        print(f"✅ Exercise {exercise}: passed." + (f" {note}" if note else ""))
    else:
        print(f"❌ Exercise {exercise}: not yet. Hint: {hint}")
    return ok


def _sentence(text: str) -> str:
    """`text` starting as a sentence does: a capital first letter, unless it starts with code (idf=True)."""
    word = text.split(" ", 1)[0]
    if word[:1].islower() and word.isalpha():
        return text[0].upper() + text[1:]
    return text


def _mistake(text: str) -> str:
    """Which mistake a hint names: its text with the numbers taken out (a student who repeats one slip
    on new numbers repeats the mistake), hashed short for the attempts file."""
    import hashlib
    import re

    return hashlib.sha1(re.sub(r"-?(\d+(\.\d+)?|\binf\b|\bnan\b)", "#", text).encode()).hexdigest()[:10]


def _hint_text(exercise: str, hint: str, code: str, level: int, attempted: bool) -> str:
    """The hint, with the code after `CODE_HINT_AFTER` repeats of this very mistake (or when asked)."""
    if grading():  # the first-level hint only: no code, no attempts counted
        return hint
    failures = _count_failure(exercise, _mistake(hint)) if attempted else repeated_mistake(exercise)
    if code and (hint_level(level) >= 2 or failures > CODE_HINT_AFTER):
        return f"{hint} Code: {code}"
    if code:
        return (f"{hint} (More help: call the check again with hint=2, or from a terminal add HINT=2 to "
                "make check.)")
    return hint


def run(exercise: str, test, hint: str, code: str = "", level: int = 1, note: list | None = None) -> bool:
    """Run `test()` (which asserts); a failure of any kind becomes a hint, never a traceback.

    `hint` names the concept; an assertion's message, the mistake or the failing case, comes before it; `code` (the code-level
    hint) is added when `level` (or $COURSE_HINT) >= 2 or after CODE_HINT_AFTER failed attempts of
    this exercise with the same mistake (the same hint, numbers aside), remembered across processes (see the module's docstring). An untouched stub
    (NotImplementedError) is not counted as an attempt. `note`, a list `test` may fill, is added to the pass line.
    """
    try:
        test()
    except NotImplementedError:
        return report(exercise, False, "replace `raise NotImplementedError()` with your code. "
                      + _sentence(_hint_text(exercise, hint, code, level, attempted=False)))
    except ForbiddenCall as err:
        return report(exercise, False, _hint_text(exercise, f"{err} {_sentence(hint)}", code, level, attempted=True))
    except AssertionError as err:  # the mistake the check named first, then the idea
        mistake = str(err).strip().rstrip(".")
        said = f"{mistake}. The idea: {hint}" if mistake else hint
        return report(exercise, False, _hint_text(exercise, said, code, level, attempted=True))
    except Exception as err:  # a student's code may fail in any way
        return report(exercise, False, _hint_text(exercise, f"your code raised {type(err).__name__}: {err}. "
                                                  + _sentence(hint), code, level, attempted=True))
    _forget(exercise)
    return report(exercise, True, note=" ".join(note or []))


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


def forbid(answer, *names: str, allow=None, refused: str = ""):
    """`answer` wrapped so that, while it runs, the functions `names` (dotted names of functions, or of
    modules: all their public functions; course_lib's or another package's, such as bert_score's) raise
    ForbiddenCall -- wherever they are reachable: their module, any module of course_lib or of their own
    package that imports them, and the globals of the student's function (a name imported in the notebook).

    `allow(*args, **kwargs)`, when given, lets through the calls it returns True for; `refused` is then the
    message for a call it stops (what of the function the exercise asks for).
    """
    targets = _targets(names)

    def guard(original, dotted):
        @functools.wraps(original)
        def replacement(*args, **kwargs):
            if allow is not None and allow(*args, **kwargs):
                return original(*args, **kwargs)
            if allow is not None and refused:
                raise ForbiddenCall(refused)
            raise ForbiddenCall(f"your function calls {dotted}, which this exercise asks you to write "
                                "yourself (the check runs it without that function).")
        return replacement

    packages = {"course_lib"} | {dotted.split(".")[0] for _, dotted in targets.values()}  # bert_score too

    @functools.wraps(answer)
    def call(*args, **kwargs):
        namespaces = [vars(m) for name, m in list(sys.modules.items())
                      if m is not None and name.split(".")[0] in packages]
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
