"""Autograding with nbgrader, the verdict made where no answer cell can reach it. (Not named `grading`: a
submodule of that name would hide the checks package's `grading()` once imported.)

nbgrader's `Autograde` runs a list of preprocessors (`Autograde.autograde_preprocessors`, its extension
point); `make nbgrader` writes an nbgrader_config.py that puts two of ours around nbgrader's `Execute`:

1. `DrawCases` (before the run, in the instructor's process): draws each exercise's cases and the chapter's
   data with a seed derived from the course folder's secret file and the assignment's name (HMAC-SHA256), and
   writes them to a temporary file the kernel reads;
2. the student's kernel runs the notebook; each check cell only records what the answers give on those cases
   (`checks.recording`): no verdict, no reference, nothing to patch;
3. `Verdicts` (after the run, in the instructor's process): judges the recorded outputs with the same `judge`
   as learning mode, and writes each check cell's output: "✅ passed" (full points) or an error with its
   one-line message (0 points; nbgrader scores a test cell with an error 0). A cell that reaches for the
   checker, importlib or sys.modules, or an answer cell that names a function its exercise forbids, scores 0
   with a line saying why. Outputs of other code cells are cleared: they were computed on the hidden data.

The secret never enters a notebook, a release, an autograded copy or a feedback file: the kernel sees cases,
not the seed, and only while it runs.
"""
from __future__ import annotations

import hashlib
import hmac
import importlib
import os
import random
import re
import shutil
import tempfile
from pathlib import Path

from .recording import CASES_ENV, RECORD_ENV

_CHECK = re.compile(r"\b(ch\w+)\.check_(\w+?)_(\d+)\(")
_TAMPER = re.compile(r"\bimportlib\.(?!metadata\b)|\bimport_module\b|\bsys\.modules\b|__import__|\bbuiltins\b|"
                     r"COURSE_GRADING|\bchecks\.(autograde|recording|exercise|assemble|state)\b")


# ------------------------------------------------------------------ in the instructor's process

def derived_seed(secret: str, assignment: str, exercise: str) -> int:
    """The seed of one exercise of one assignment: HMAC-SHA256 of the course's secret."""
    digest = hmac.new(secret.encode(), f"{assignment}:{exercise}".encode(), hashlib.sha256).hexdigest()
    return int(digest[:16], 16)


def _exercises(nb) -> list[tuple[object, str]]:
    """(module, exercise id) of each new-style check cell of `nb`, in order."""
    found = []
    for cell in nb.cells:
        match = _CHECK.search(cell.source) if cell.cell_type == "code" else None
        if match and cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            module = importlib.import_module(f"course_lib.course.checks.{match.group(1)}")
            ex_id = f"{match.group(2)}.{match.group(3)}"
            if ex_id in getattr(module, "EXERCISES", {}):
                found.append((module, ex_id))
    return found


from nbconvert.preprocessors import Preprocessor  # noqa: E402 - grading needs nbgrader, and so nbconvert
from traitlets import Bool, Unicode  # noqa: E402


class DrawCases(Preprocessor):
    """Before nbgrader's Execute: the cases and data of every exercise of the notebook, for its kernel."""
    enabled = Bool(True)  # nbgrader registers preprocessors without enabling them (its own default to True)
    secret_file = Unicode("", help="the course folder's secret (make nbgrader writes it)").tag(config=True)

    def preprocess(self, nb, resources):
        from .exercise import draw_cases

        import torch

        secret = Path(self.secret_file).read_text().strip()
        assignment = resources.get("nbgrader", {}).get("assignment", "")
        work = Path(tempfile.mkdtemp(prefix="course-grading-"))
        (work / "record").mkdir()
        cases, data = {}, {}
        for module, ex_id in _exercises(nb):
            chapter_data = module.hidden_data(random.Random(derived_seed(secret, assignment, "data")))
            data.update(chapter_data)
            ex = module.EXERCISES[ex_id]
            cases[ex_id] = draw_cases(ex, random.Random(derived_seed(secret, assignment, ex_id)), chapter_data)
        seed = derived_seed(secret, assignment, "older checkers") % 10 ** 9  # the chapters not yet data
        torch.save({"cases": cases, "data": data, "seed": seed}, work / "cases.pt")
        os.environ.update({"COURSE_GRADING": "1", "COURSE_GRADING_SEED": str(seed), CASES_ENV: str(work / "cases.pt"),
                           RECORD_ENV: str(work / "record")})
        resources["course_grading"] = {"work": str(work), "cases": cases, "data": data}
        return nb, resources


def _tampering(nb) -> str:
    """Why a cell a student can change (not locked: nbgrader restores locked cells) reaches for the grading
    machinery, or ""."""
    for cell in nb.cells:
        if cell.cell_type != "code" or cell.get("metadata", {}).get("nbgrader", {}).get("locked"):
            continue
        found = _TAMPER.search(cell.source) or re.search(r"\bch\d+\w*\.(check_\w+|_\w+|EXERCISES)\b", cell.source)
        if found:
            return (f"a cell reaches for the grading machinery ({found.group(0)!r}): every check scores 0 "
                    "(instructor: read the cell)")
    return ""


def _code_names(source: str) -> set[str]:
    """The names a cell's code uses (not its comments or strings: a docstring may say "perplexity")."""
    import io
    import tokenize

    try:
        return {t.string for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.NAME}
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return set(re.findall(r"\w+", source))


def _forbidden_use(nb, ex) -> str:
    """Why an answer cell of `ex` names a function the exercise forbids (for a module: any of its public
    functions), or ""."""
    from . import _targets
    from .exercise import Function

    dotted = [name for part in ex.answers if isinstance(part, Function) for name in part.forbid]
    names = {fn.__name__ for fn, _ in _targets(dotted).values()} if dotted else set()
    prefix = f"answer_{ex.id.replace('.', '_')}"
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        used = _code_names(cell.source) & names if cell.cell_type == "code" and grade_id.startswith(prefix) else set()
        if used:
            return f"the answer calls {sorted(used)[0]}, which this exercise asks you to write yourself"
    return ""


def _texts(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _texts(v)]
    return []


def scrub(message: str, data: dict) -> str:
    """`message` with every text of the hidden data replaced: feedback never shows the grading data."""
    for text in sorted({t for v in data.values() for t in _texts(v)}, key=len, reverse=True):
        message = message.replace(repr(text), "(a text of the grading data)").replace(text, "(a text of the grading data)")
    return message


def _error(message: str) -> dict:
    import nbformat

    return nbformat.v4.new_output("error", ename="NotPassed", evalue=message, traceback=[message])


class Verdicts(Preprocessor):
    """After nbgrader's Execute: each check cell's verdict, judged here from the recorded outputs."""
    enabled = Bool(True)

    def preprocess(self, nb, resources):
        import nbformat
        import torch

        from .exercise import judge

        state = resources.pop("course_grading", None)
        if state is None:
            return nb, resources
        work = Path(state["work"])
        tampered = _tampering(nb)
        try:
            for cell in nb.cells:
                match = _CHECK.search(cell.source) if cell.cell_type == "code" else None
                meta = cell.get("metadata", {}).get("nbgrader", {})
                if not meta.get("grade") or not match:
                    if cell.cell_type == "code":
                        cell.outputs = []  # computed on the hidden data: not for the feedback
                    continue
                module = importlib.import_module(f"course_lib.course.checks.{match.group(1)}")
                ex_id = f"{match.group(2)}.{match.group(3)}"
                ex = module.EXERCISES.get(ex_id) if hasattr(module, "EXERCISES") else None
                if ex is None:  # an older checker judged in the kernel; tampering scores 0 there too
                    if tampered:
                        cell.outputs = [_error(f"Exercise {ex_id}: not passed: {tampered}")]
                    continue
                recorded = work / "record" / f"{ex_id}.pt"
                why = tampered or _forbidden_use(nb, ex)
                if not why and not recorded.exists():
                    why = "the check did not record an answer (did a cell above it fail, or was it changed?)"
                if not why:
                    outputs = torch.load(recorded, weights_only=False)
                    verdict = judge(ex, outputs, state["cases"][ex_id]) if "__unsaved__" not in outputs else None
                    # (judge turns an answer it cannot read into a verdict: one student never stops the run)
                    why = outputs["__unsaved__"] if verdict is None else (
                        "" if verdict.ok else ("not attempted" if not verdict.attempted else verdict.message))
                cell.outputs = ([_error(scrub(f"Exercise {ex_id}: not passed: {why}", state["data"]))] if why else
                                [nbformat.v4.new_output("stream", name="stdout", text=f"✅ Exercise {ex_id}: passed.\n")])
        finally:
            shutil.rmtree(work, ignore_errors=True)
            for name in (CASES_ENV, RECORD_ENV, "COURSE_GRADING_SEED"):
                os.environ.pop(name, None)
        return nb, resources
