"""An exercise as data, and the one runner that checks it in both modes.

An `Exercise` lists the answers a student gives (the check's arguments, in order), each judged as a `Function` (run
on cases drawn from a seed when the check runs, never at import, and compared with a `reference`), a `Value`
computed from a data name of the chapter (other data in grading mode), a `Choice` among words, or a `Judge` (a
design task). Its planted `Slip`s run on the same cases: the slip whose outputs match the student's is named.
`collect` runs the answers (in the student's kernel); `judge` compares (anywhere). Learning mode: `check` does
both and prints ✅ or ❌. Grading mode: the kernel only records the outputs (`checks.recording`) and nbgrader's
preprocessor (`checks.autograde`) judges them in the instructor's process, where no answer cell can reach.
A student sees: "not attempted yet" for an untouched stub (NotImplementedError, or None), nothing else; after a
failed attempt the named slip's hint (else the failing case), then the idea; the same slip a third time (or
hint=2, COURSE_HINT=2) adds the solution, read from the solution notebook (`checks.solutions`; a student release
has none); after a pass, `after` (where the library's version is).
"""
from __future__ import annotations

import copy
import hashlib
import math
import random
import re
from dataclasses import dataclass, field
from typing import Callable

from . import ForbiddenCall, forbid, hint_level, report
from .compare import Mismatch, same_value
from .state import _count_failure, _forget, grading

CODE_HINT_AT = 3  # the same slip this many times brings the solution


@dataclass
class Slip:
    """A planted mistake: `answer` makes it (same arguments as the reference), `hint` names it."""
    name: str
    answer: Callable
    hint: str


@dataclass
class Function:
    """A function the student writes. `cases(rng)` -> argument tuples; `reference(*args)` -> the right output;
    `compare(got, want, args)` raises Mismatch; `forbid`: dotted names the student's function may not call;
    `wrap(fn)`: the function watched as it runs (after `forbid`), raising ForbiddenCall for a way ruled out."""
    name: str
    cases: Callable[[random.Random], list]
    reference: Callable
    compare: Callable
    slips: list = field(default_factory=list)
    forbid: tuple = ()
    wrap: Callable | None = None


@dataclass
class Value:
    """A value the student computes from the chapter's data `data` (published in learning mode, drawn with the
    secret in grading); `reference(data)` -> the right value; `compare(got, want, data)` raises Mismatch."""
    name: str
    data: str
    reference: Callable
    compare: Callable
    slips: list = field(default_factory=list)


@dataclass
class Choice:
    """A word: `right`, `wrong` {word: what it misses}, `aliases` {spelling: word}."""
    name: str
    right: str
    wrong: dict
    aliases: dict = field(default_factory=dict)


@dataclass
class Judge:
    """A design task: `judge(answer, data, *earlier)` raises Mismatch naming what is wrong (`data`: the chapter's
    `data`; `earlier`: the answers named in `uses`, given before this one)."""
    name: str
    data: str
    judge: Callable
    uses: tuple = ()


@dataclass
class Exercise:
    """One exercise: `answers` in the check's argument order; `idea` in one sentence; `after`: shown after a pass."""
    id: str
    chapter: str  # the solution notebook's prefix: "03", "07a"
    idea: str
    answers: list
    after: str = ""
    points: int = 2


# ------------------------------------------------------------------ running the student's answers

def _run(fn, args):
    """fn(*args) on a copy of the arguments: ("ok", output), ("stub", None), ("error", message)."""
    try:
        return "ok", fn(*copy.deepcopy(args))
    except NotImplementedError:
        return "stub", None
    except ForbiddenCall as err:
        return "forbidden", str(err)
    except Exception as err:  # a student's code may fail in any way
        return "error", f"your code raised {type(err).__name__}: {err}"


def collect(ex: Exercise, given: tuple, cases: dict) -> dict:
    """What the student's answers give on `cases` ({answer name: [args, ...] or data}): {name: outputs}.
    Runs in the student's kernel; holds no verdict."""
    outputs = {}
    for part, answer in zip(ex.answers, given):
        if isinstance(part, Function):
            if answer is None or not callable(answer):  # None: not attempted
                outputs[part.name] = [("stub", None) if answer is None else
                                      ("error", f"{part.name} must be a function, not {type(answer).__name__}")]
            else:
                fn = forbid(answer, *part.forbid) if part.forbid else answer
                fn = part.wrap(fn) if part.wrap is not None else fn
                outputs[part.name] = [_run(fn, args) for args in cases[part.name]]
        else:
            outputs[part.name] = copy.deepcopy(answer)
    return outputs


# ------------------------------------------------------------------ judging

@dataclass
class Verdict:
    ok: bool
    message: str = ""        # what is wrong (a slip's hint, or the failing case)
    mistake: str = ""        # which mistake: a slip's name, or a fingerprint of the outputs
    attempted: bool = True


def _fingerprint(value) -> str:
    """A short key for an unknown mistake: the same wrong outputs give the same key."""
    try:
        import torch

        if isinstance(value, torch.Tensor):
            value = [round(x, 4) if math.isfinite(x) else str(x) for x in value.double().flatten().tolist()[:64]]
    except ImportError:  # pragma: no cover
        pass
    return "outputs:" + hashlib.sha1(repr(value).encode()).hexdigest()[:10]


def _matches(compare, got, want, args) -> bool:
    try:
        compare(got, want, args)
        return True
    except Exception:  # Mismatch, or a slip's output the comparison cannot read
        return False


def _same_error(message: str, slip_run) -> bool:
    """The slip's run raised the exception the student's raised ("your code raised ZeroDivisionError: ...")."""
    kind, said = slip_run
    return kind == "error" and said.split(":", 1)[0] == message.split(":", 1)[0]


def _judge_function(part: Function, outputs: list, cases: list) -> Verdict | None:
    if all(kind == "stub" for kind, _ in outputs):
        return Verdict(False, attempted=False)
    for args, (kind, got) in zip(cases, outputs):
        if kind == "stub":
            return Verdict(False, f"{part.name} still raises NotImplementedError on some inputs", "stub")
        if kind == "forbidden":
            return Verdict(False, got, "forbidden")
        if kind == "error":
            for slip in part.slips:  # an exception is an output too: a slip that raises the same one is named
                if _same_error(got, _run(slip.answer, args)):
                    return Verdict(False, slip.hint, slip.name)
            return Verdict(False, got, "error:" + re.sub(r"\d+", "#", got)[:80])
        want = part.reference(*copy.deepcopy(args))
        try:
            part.compare(got, want, args)
            continue
        except Mismatch as err:
            found = str(err)
        for slip in part.slips:
            if _matches(part.compare, got, slip.answer(*copy.deepcopy(args)), args):
                return Verdict(False, slip.hint, slip.name)
        return Verdict(False, found, _fingerprint(got))
    return None


def judge(ex: Exercise, outputs: dict, cases: dict) -> Verdict:
    """The verdict on what `collect` gave: the first answer that is wrong names its mistake."""
    for k, part in enumerate(ex.answers):
        try:
            verdict = _judge_part(part, k == 0, outputs, cases)
        except Exception as err:  # an answer the comparison cannot read: a hint, never a traceback (nor a crash)
            verdict = Verdict(False, f"{part.name} could not be checked ({type(err).__name__}: {err})",
                              "unreadable:" + part.name)
        if verdict is not None:
            return verdict
    return Verdict(True)


def _judge_part(part, first: bool, outputs: dict, cases: dict) -> Verdict | None:
    got = outputs.get(part.name, None)
    if isinstance(part, Function):
        return _judge_function(part, got or [("stub", None)], cases[part.name])
    if got is None:  # the first answer unset: not attempted; a later one: the ones before it are right
        return Verdict(False, f"now set {part.name}", "unset:" + part.name, attempted=not first)
    if isinstance(part, Choice):
        return _judge_choice(part, got)
    if isinstance(part, Value):
        return _judge_value(part, got, cases[part.name])
    try:
        part.judge(got, cases[part.name], *[outputs.get(name) for name in part.uses])
        return None
    except Mismatch as err:
        return Verdict(False, str(err), "judge:" + re.sub(r"[-+]?\d+(\.\d+)?", "#", str(err))[:60])


def _judge_value(part: Value, got, data) -> Verdict | None:
    want = part.reference(data)
    try:
        part.compare(got, want, data)
        return None
    except Mismatch as err:
        found = str(err)
    for slip in part.slips:  # a value slip is the value it gives
        if same_value(got, slip.answer(data)):
            return Verdict(False, slip.hint, slip.name)
    return Verdict(False, found, _fingerprint(got))


def _judge_choice(part: Choice, got) -> Verdict | None:
    words = [part.right, *part.wrong]
    said = str(got).strip().lower()
    said = part.aliases.get(said, said)
    if said == part.right:
        return None
    if said in part.wrong:
        return Verdict(False, f"{part.name}: not {said!r}: {part.wrong[said]}", f"choice:{said}")
    return Verdict(False, f"answer {part.name} with " + ", ".join(f'"{w}"' for w in words) + f", not {got!r}",
                   "choice:other")


# ------------------------------------------------------------------ cases, in both modes

def learning_rng(ex: Exercise) -> random.Random:
    """The cases of learning mode: the same every run (a student's second try meets the same cases)."""
    return random.Random(f"learning:{ex.id}")


def draw_cases(ex: Exercise, rng: random.Random, data: dict) -> dict:
    """{answer name: argument tuples (Function) or the data it is computed from}. `data`: the chapter's data
    by name (published, or drawn with the grading secret)."""
    cases = {}
    for part in ex.answers:
        if isinstance(part, Function):
            cases[part.name] = list(part.cases(rng))
        elif isinstance(part, (Value, Judge)):
            cases[part.name] = data[part.data]
    return cases


# ------------------------------------------------------------------ the student's check

def _say(ex: Exercise, verdict: Verdict, level: int) -> str:
    from .solutions import solution_text

    if not verdict.attempted:
        return ("not attempted yet: replace `raise NotImplementedError()` (or None) with your answer, run that "
                "cell, then this one.")
    if verdict.mistake.startswith("unset:"):  # progress, not a mistake: never counted towards the solution
        return f"{verdict.message}: the answers before it are right."
    said = f"{verdict.message.rstrip('.')}. The idea: {ex.idea}"
    repeats = _count_failure(ex.id, verdict.mistake)
    if hint_level(level) >= 2 or repeats >= CODE_HINT_AT:
        return f"{said}\nA solution:\n{solution_text(ex)}"
    return said + " (The same mistake three times, or hint=2, shows a solution.)"


def check(ex: Exercise, given: tuple, data: dict, level: int = 1) -> bool:
    """Learning mode: collect, judge and print the verdict; grading mode: record the outputs only."""
    if grading():  # the kernel records what the answers give; the verdict is made after the run (checks.autograde)
        from .recording import grading_cases, save

        return save(ex.id, collect(ex, given, grading_cases(ex.id)))
    cases = draw_cases(ex, learning_rng(ex), data)
    verdict = judge(ex, collect(ex, given, cases), cases)
    if verdict.ok:
        _forget(ex.id)
        return report(ex.id, True, note=ex.after)
    return report(ex.id, False, _say(ex, verdict, level))
