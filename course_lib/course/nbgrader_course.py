"""An nbgrader course folder generated from the solution notebooks: `make nbgrader OUT=DIR`.

    python -m course_lib.course.nbgrader_course DIR [--secret S]

writes DIR/nbgrader_config.py and DIR/source/<chapter>/<chapter>.ipynb for every chapter with
exercises, made from notebooks/NN_*.ipynb as they are now (the committed notebooks keep their shape):
- a code cell holding `### BEGIN SOLUTION` becomes an autograded answer cell (nbgrader's `solution`);
- a markdown answer `<!-- BEGIN SOLUTION -->...<!-- END SOLUTION -->` becomes a cell of its own,
  graded by hand (`solution` + `grade`, WRITTEN_POINTS), the text around it cells of their own;
- a cell calling `chNN.check_N_M(...)` becomes one locked, autograded test cell (CHECK_POINTS): for a chapter
  whose exercises are data (checks.exercise) it records the answers' outputs and the verdict is made after the
  run (checks.autograde); for an older checker it sets grading mode and the run's seed again and reloads the
  checker first, so nothing a notebook changed in it or in the environment counts;
- outputs are cleared, the notebook asks for the course's kernel, the line pointing to the
  solution notebooks is left out, and the first cell is the release's set-up cell for Colab or a hub
  without the course (student_release.SETUP_CELL, with --url: it does nothing where course_lib imports).
nbgrader's own generate_assignment, autograde and export run on it unmodified; nbgrader_config.py adds two
preprocessors around Autograde's Execute (checks.autograde) and sets COURSE_GRADING (grading mode: a failing
check raises, no hints, no attempts file). DIR/grading_secret (drawn by the first `make nbgrader`, or --secret)
gives each assignment its own seed for the hidden data; it stays in DIR, never in a notebook.
"""
from __future__ import annotations

import argparse
import copy
import re
import secrets
import sys
from pathlib import Path

from course_lib.course.exercises import SOLUTIONS_LINE, KERNELSPEC, drop_reveals, solution_notebooks
from course_lib.course.student_release import setup_cell

CHECK_POINTS = 2    # each autograded check
WRITTEN_POINTS = 1  # each written answer (graded by hand)
CELL_TIMEOUT = 600  # seconds one cell may run in nbgrader's autograde
_CHECK = re.compile(r"\b(ch\w+)\.check_(\d+)_(\d+)\(")
_HEADING = re.compile(r"^#+\s*Exercise\s+(\d+\.\d+)\b", re.M)
_MD_ANSWER = re.compile(r"<!-- BEGIN SOLUTION -->(.*?)<!-- END SOLUTION -->", re.S)

CONFIG = '''"""nbgrader's configuration for the BERTScore course (written by `make nbgrader`)."""
import os

# Grading mode for every kernel nbgrader starts: a failing check raises AssertionError (0 points),
# shows no code hint and keeps no attempts file. The hidden data are drawn from grading_secret (beside this
# file), a seed per assignment (checks.autograde.DrawCases), which no release, notebook or feedback holds.
# Keep this folder away from students.
os.environ["COURSE_GRADING"] = "1"

c = get_config()  # noqa: F821 - nbgrader defines it
c.CourseDirectory.course_id = "bertscore-course"
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
# The course's kernel (make setup registers it): a "python3" kernel without the course is a silent zero.
c.Execute.kernel_name = "{kernel}"
c.Execute.timeout = {timeout}           # seconds a cell may run (chapter 08 is the slowest)
c.Execute.startup_timeout = 300  # the first kernel start loads torch
c.Execute.interrupt_on_timeout = True
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
# Chapters whose exercises are data (course_lib.course.checks.exercise): the kernel records the answers'
# outputs on cases drawn from the secret below; the verdict is made here, after the run, where no answer cell
# reaches (course_lib.course.checks.autograde).
from course_lib.course.checks.autograde import DrawCases, Verdicts  # noqa: E402
from nbgrader.converters.autograde import Autograde  # noqa: E402

_steps = list(Autograde.class_traits()["autograde_preprocessors"].default())
_at = [getattr(p, "__name__", str(p)) for p in _steps].index("Execute")
c.Autograde.autograde_preprocessors = _steps[:_at] + [DrawCases] + _steps[_at:_at + 1] + [Verdicts] + _steps[_at + 1:]
c.DrawCases.secret_file = os.path.join(c.CourseDirectory.root, "grading_secret")
'''


def _nbgrader(cell, kind: str, grade_id: str, points: int = 0) -> None:
    meta = {"grade": kind in ("test", "written"), "grade_id": grade_id, "locked": kind in ("test", "readonly"),
            "schema_version": 3, "solution": kind in ("answer", "written"), "task": False}
    if meta["grade"]:
        meta["points"] = points
    cell.metadata["nbgrader"] = meta


def _data_driven(module: str, exercise: str) -> bool:
    """Whether `exercise` of checks.<module> is data (its verdict made outside the kernel)."""
    import importlib

    return exercise in getattr(importlib.import_module(f"course_lib.course.checks.{module}"), "EXERCISES", {})


def recording_source(source: str, exercise: str) -> str:
    """A check cell of an exercise that is data: in nbgrader's run it records the answers' outputs on the drawn
    cases, and the verdict is made after the run (checks.autograde.Verdicts)."""
    return (f"# Exercise {exercise}: autograded, {CHECK_POINTS} points. Your answer runs on other data than this\n"
            "# notebook shows; the check is made after the run.\n"
            f"{source.strip()}\n")


def test_source(source: str, module: str, exercise: str) -> str:
    """A check cell of an older checker as an nbgrader test cell: grading mode set again, the run's seed (which
    checks.autograde.DrawCases derived from the course's secret for this assignment) taken back from where it left
    it, the checker reloaded, then the check itself. No seed is written in the cell."""
    return (f"# Exercise {exercise}: autograded, {CHECK_POINTS} points. A fresh copy of the checker, so that\n"
            "# nothing the notebook changed in it counts; in grading mode a failing check raises.\n"
            "import importlib\n"
            "import os\n"
            "os.environ[\"COURSE_GRADING\"] = \"1\"\n"
            "import course_lib.course.checks.recording\n"
            "importlib.reload(course_lib.course.checks.recording).restore_seed()\n"
            "import course_lib.course.checks.state\n"
            "importlib.reload(course_lib.course.checks.state)\n"
            "importlib.reload(course_lib.course.checks)\n"
            f"{module} = importlib.reload(importlib.import_module(\"course_lib.course.checks.{module}\"))\n"
            f"{source.strip()}\n")


def source_notebook(nb, url: str = ""):
    """The nbgrader source version of a solution notebook (see the module's docstring); `url` is the course's
    archive for the set-up cell."""
    import nbformat

    nb = nbformat.from_dict(copy.deepcopy(dict(nb)))
    drop_reveals(nb)  # the library's version and the why: not in a student's release
    cells, exercise, used = [], "intro", set()

    def unique(grade_id: str) -> str:
        base, k = grade_id, 1
        while grade_id in used:
            k += 1
            grade_id = f"{base}_{k}"
        used.add(grade_id)
        return grade_id

    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("nbgrader", None)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            check = _CHECK.search(cell.source)
            if check:
                ex = f"{check.group(2)}.{check.group(3)}"
                cell.source = (recording_source(cell.source, ex) if _data_driven(check.group(1), ex)
                               else test_source(cell.source, check.group(1), ex))
                _nbgrader(cell, "test", unique(f"test_{ex.replace('.', '_')}"), CHECK_POINTS)
            elif "### BEGIN SOLUTION" in cell.source:
                _nbgrader(cell, "answer", unique(f"answer_{exercise.replace('.', '_')}"))
            cells.append(cell)
            continue
        text = SOLUTIONS_LINE.sub("", cell.source) if cell.cell_type == "markdown" else cell.source
        if cell.cell_type != "markdown" or "<!-- BEGIN SOLUTION -->" not in text:
            headings = _HEADING.findall(text) if cell.cell_type == "markdown" else []
            exercise = headings[-1] if headings else exercise
            cell.source = text
            cells.append(cell)
            continue
        pos = 0
        for match in _MD_ANSWER.finditer(text):
            before = text[pos:match.start()].strip()
            if before:
                cells.append(nbformat.v4.new_markdown_cell(before))
                headings = _HEADING.findall(before)
                exercise = headings[-1] if headings else exercise
            answer = nbformat.v4.new_markdown_cell(match.group(1).strip())
            _nbgrader(answer, "written", unique(f"written_{exercise.replace('.', '_')}"), WRITTEN_POINTS)
            cells.append(answer)
            pos = match.end()
        after = text[pos:].strip()
        if after:
            cells.append(nbformat.v4.new_markdown_cell(after))
            headings = _HEADING.findall(after)
            exercise = headings[-1] if headings else exercise
    cells.insert(0, nbformat.from_dict(setup_cell(url)))
    _nbgrader(cells[0], "readonly", "setup")  # locked: nbgrader restores it, so a grade never depends on its text
    for cell in cells:
        cell.pop("id", None)
    nb.cells = cells
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.nbformat, nb.nbformat_minor = 4, 4  # cell ids left out: nbgrader adds its own metadata
    return nb


def write_course(out: Path, secret: str | None = None, chapters=None, url: str = "") -> list[Path]:
    """Write the nbgrader course folder into `out`; the source notebooks written. `secret`: the grading secret
    (default: the folder's grading_secret file if there is one, else drawn afresh)."""
    import nbformat

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "nbgrader_config.py").write_text(CONFIG.format(kernel=KERNELSPEC["name"], timeout=CELL_TIMEOUT))
    secret_file = out / "grading_secret"  # kept: a second `make nbgrader` into the folder grades as the first did
    if secret is not None or not secret_file.exists():
        secret_file.write_text((secret or secrets.token_hex(32)) + "\n")
        secret_file.chmod(0o600)
    written = []
    for path in solution_notebooks():
        if chapters is not None and path.stem not in chapters and path.stem[:2] not in chapters:
            continue
        target = out / "source" / path.stem / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(source_notebook(nbformat.read(path, as_version=4), url), target)
        written.append(target)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the nbgrader course folder to write")
    parser.add_argument("--secret", help="the grading secret (default: the folder's grading_secret, else drawn afresh)")
    parser.add_argument("--chapters", nargs="*", help="only these chapters (e.g. 04 05)")
    parser.add_argument("--url", default="", help="where the course's archive will be (COURSE_URL), for Colab")
    args = parser.parse_args(argv)
    for path in write_course(args.out, args.secret, args.chapters, args.url):
        print(f"wrote {path}")
    print(f"wrote {args.out / 'nbgrader_config.py'}; next: cd {args.out} && nbgrader generate_assignment "
          "<chapter>, then collect submissions into submitted/<student>/<chapter>/, nbgrader autograde "
          "<chapter> --create, nbgrader export")
    return 0


if __name__ == "__main__":
    sys.exit(main())
