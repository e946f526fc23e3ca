"""Run one exercise's cells in this process, without a Jupyter kernel: `make check EX=N.M`.

    python -m course_lib.course.exercise_run notebooks/student/04_greedy_matching.ipynb 4.2

Runs what course_lib.course.exercise_cells.exercise_notebook keeps (the set-up cell, the
exercise's own cells, the earlier statements they read) cell by cell in IPython's
InteractiveShell -- the shell a Jupyter kernel runs, so %magics work -- from the notebook's folder,
and prints the check lines (✅ / ❌) and, for a cell that raised, one ⚠️ line; a cell that raises
does not stop the run. run_notebooks starts it in a fresh process, so each check starts from
nothing, as on a fresh kernel, but without the seconds a kernel (and nbclient) takes to start.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

QUICK_SETUP_ENV = "COURSE_QUICK_SETUP"  # read by course_lib.teaching.notebook.setup


def check_lines(text: str) -> list[str]:
    """The lines a check prints: a pass (✅) or a hint (❌), with the lines of a hint that go on below it (a
    solution it shows, checks.exercise) up to the next check line."""
    lines, in_hint = [], False
    for line in text.splitlines():
        if line.startswith(("✅", "❌")):
            lines.append(line)
            in_hint = line.startswith("❌")
        elif in_hint:
            lines.append(line)
    return lines


def run_exercise(path: Path, exercise: str) -> list[str]:
    """Run exercise N.M of the notebook at `path` here; its check lines and ⚠️ lines, in order."""
    from course_lib.course.exercise_cells import exercise_notebook, read_notebook

    nb = exercise_notebook(read_notebook(path), exercise)
    os.environ.setdefault("JPY_SESSION_NAME", str(Path(path).resolve()))  # attempts per notebook copy
    os.environ[QUICK_SETUP_ENV] = "1"  # setup() skips the plot style and imports torch only when used
    os.environ.setdefault("MPLBACKEND", "Agg")  # nothing is drawn: never open a window
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    lines = []
    for cell in nb.cells:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            result = shell.run_cell(cell.source, store_history=False)
        lines += check_lines(out.getvalue())
        error = result.error_before_exec or result.error_in_exec
        if error is not None:
            lines.append(f"⚠️  a cell raised {type(error).__name__}: {error}")
    return lines


def main(argv=None) -> int:
    path, exercise = (argv or sys.argv[1:])[:2]
    print("\n".join(run_exercise(Path(path), exercise)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
