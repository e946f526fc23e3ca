"""Student notebooks from solution notebooks (nbgrader's markers, no nbgrader needed).

In a solution notebook (notebooks/NN_*.ipynb):
- code between `### BEGIN SOLUTION` and `### END SOLUTION` becomes `raise NotImplementedError()`
  at the same indentation;
- a markdown answer between `<!-- BEGIN SOLUTION -->` and `<!-- END SOLUTION -->` becomes
  `*Your answer here.*`.
Outputs are cleared, and the notebook asks for the course's Jupyter kernel ("BERTScore course",
installed by `make setup`), not whatever "Python 3" means on the student's machine. Student notebooks
go to notebooks/student/ with the same file names.

    python -m course_lib.course.exercises          # (make student) regenerate all student notebooks
    python -m course_lib.course.exercises --kernel # (make kernel) every notebook asks for the course's kernel

Every notebook -- solution, student, demo -- asks for the course's kernel (KERNELSPEC), so Jupyter,
nbgrader and a hub run it with the course installed, never whatever "python3" is there.
`set_kernel` rewrites only the kernelspec (re-apply it after a merge); nothing else in the file moves.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat

from course_lib.paths import NOTEBOOKS
STUDENT = NOTEBOOKS / "student"
KERNELSPEC = {"display_name": "BERTScore course", "language": "python", "name": "bertscore-course"}
_CODE = re.compile(r"^([ \t]*)### BEGIN SOLUTION[^\n]*\n.*?^[ \t]*### END SOLUTION[^\n]*(\n|$)", re.M | re.S)
SOLUTIONS_LINE = re.compile(r"\s*Solutions?: `notebooks/[^`]*`\.?")  # a student notebook's pointer to the solutions
_MD = re.compile(r"<!-- BEGIN SOLUTION -->.*?<!-- END SOLUTION -->", re.S)


def strip_code(source: str) -> str:
    """Replace each solution block with a stub that keeps the block's indentation."""
    return _CODE.sub(lambda m: f"{m.group(1)}raise NotImplementedError(){m.group(2)}", source)


def strip_markdown(source: str) -> str:
    return _MD.sub("*Your answer here.*", source)


def student_version(nb):
    """A copy of a solution notebook with solutions removed and outputs cleared."""
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = strip_code(cell.source)
            cell.outputs = []
            cell.execution_count = None
        elif cell.cell_type == "markdown":
            cell.source = strip_markdown(cell.source)
        cell.metadata.pop("execution", None)  # timestamps of the solution run
    drop_reveals(nb)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.nbformat_minor = max(nb.get("nbformat_minor", 4), 4)
    return nb


_CHECK_CALL = re.compile(r"\bcheck_\w+\(")
REVEAL_NOTE = ("*What follows this exercise in the solution notebook (the library's version, why the answer is what "
               "it is) is not in your copy: read it there once your check passes.*")
_AFTER = re.compile(r"(\d+\.\s*)?After (exercise|the exercises)")
# a student's own cell: a stub or an answer to write, in a student copy or (nbgrader's source) still solved
_OWN = ("NotImplementedError()", "*Your answer here.*", "### BEGIN SOLUTION", "<!-- BEGIN SOLUTION -->")


def drop_reveals(nb) -> int:
    """Take out the cells after each exercise's check up to the next heading (the library's version and the why
    come after the exercise): a student copy holds no solution, folded or not, so *Run All* shows none. Each run
    of cells taken out leaves one line (REVEAL_NOTE). The student's own cells (a check, a stub, an answer to
    write) stay. Returns the number of cells taken out."""
    import nbformat

    kept, dropping, dropped = [], False, 0
    for cell in nb.cells:
        heading = re.search(r"^#+\s*(.*)", cell.source, re.M) if cell.cell_type == "markdown" else None
        if heading and not (dropping and _AFTER.match(heading.group(1))):
            dropping = False  # a new section or exercise; "After exercise N.M" (or "N. After the exercises")
        elif cell.cell_type == "code" and _CHECK_CALL.search(cell.source):
            dropping = "start"
        elif dropping and not any(own in cell.source for own in _OWN):
            if dropping == "start":
                note = nbformat.v4.new_markdown_cell(REVEAL_NOTE)
                note["id"] = f"reveal-note-{dropped}"  # the same every run: student copies are compared with git
                kept.append(note)
                dropping = True
            dropped += 1
            continue
        kept.append(cell)
    nb.cells = kept
    return dropped


def set_kernel(path: Path) -> bool:
    """Make the notebook at `path` ask for the course's kernel; True when the file changed. The JSON is
    written back as Jupyter writes it (indent 1, unicode kept), so only the kernelspec lines change."""
    text = path.read_text(encoding="utf-8")
    nb = json.loads(text)
    if nb.get("metadata", {}).get("kernelspec") == KERNELSPEC:
        return False
    nb.setdefault("metadata", {})["kernelspec"] = dict(KERNELSPEC)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


def all_notebooks() -> list[Path]:
    """Every notebook of the course: chapters, demo, student notebooks."""
    return sorted(NOTEBOOKS.glob("*.ipynb")) + sorted(STUDENT.glob("*.ipynb"))


def solution_notebooks() -> list[Path]:
    """Chapter notebooks that contain exercises."""
    return sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]*_*.ipynb")
                  if "### BEGIN SOLUTION" in p.read_text() or "<!-- BEGIN SOLUTION -->" in p.read_text())


def render(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    text = nbformat.writes(student_version(nb))
    return text if text.endswith("\n") else text + "\n"


def main(argv=None) -> int:
    if "--kernel" in (sys.argv[1:] if argv is None else argv):
        for path in all_notebooks():
            if set_kernel(path):
                print(f"{path.relative_to(NOTEBOOKS.parent)}: now asks for the {KERNELSPEC['name']} kernel")
        return 0
    STUDENT.mkdir(exist_ok=True)
    for path in solution_notebooks():
        (STUDENT / path.name).write_text(render(path))
        print(f"wrote notebooks/student/{path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
