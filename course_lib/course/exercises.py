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
    fold_reveals(nb)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.nbformat_minor = max(nb.get("nbformat_minor", 4), 4)
    return nb


_CHECK_CALL = re.compile(r"\bcheck_\w+\(")
FOLDED = {"source_hidden": True, "outputs_hidden": True}  # JupyterLab's collapsed input and output
FOLD_NOTE = (" In your copy, what follows an exercise's check (the library's version, the answer's why) is folded: "
             "click the bar with the three dots to unfold it once your check passes.")


_AFTER = re.compile(r"(\d+\.\s*)?After (exercise|the exercises)")


def fold_reveals(nb) -> int:
    """Fold (JupyterLab's `jupyter.source_hidden`/`outputs_hidden`) the cells after each exercise's check up to
    the next heading: the library's version and the why come after the exercise, and a student scrolling
    down to the check should not read them by accident. The student's own cells (a check, a stub, an answer
    to write) stay open; the exercises' how-to box says so. Returns the number of folded cells."""
    folding, folded = False, 0
    for cell in nb.cells:
        heading = re.search(r"^#+\s*(.*)", cell.source, re.M) if cell.cell_type == "markdown" else None
        if heading and not (folding and _AFTER.match(heading.group(1))):
            folding = False  # a new section or exercise; "After exercise N.M" (or "N. After the exercises")
            continue         # right after a check goes on with the reveal
        if cell.cell_type == "code" and _CHECK_CALL.search(cell.source):
            folding = True
            continue
        if folding and "NotImplementedError()" not in cell.source and "*Your answer here.*" not in cell.source:
            cell.metadata["jupyter"] = dict(FOLDED)
            folded += 1
    for cell in nb.cells if folded else []:
        if cell.cell_type == "markdown" and "**How to do the exercises.**" in cell.source and FOLD_NOTE not in cell.source:
            cell.source = re.sub(r"(How to do the exercises\.\*\*.*?)(\s*\n\n|\s*\Z)",
                                 lambda m: m.group(1) + FOLD_NOTE + m.group(2), cell.source, count=1, flags=re.S)
    return folded


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
