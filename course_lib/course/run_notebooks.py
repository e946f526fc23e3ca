"""Run notebooks headless, top to bottom, on a fresh kernel; print each one's time.

    python -m course_lib.course.run_notebooks notebooks/[0-9]*.ipynb      # make run
    python -m course_lib.course.run_notebooks --readme notebooks/[0-9]*.ipynb notebooks/demo.ipynb
    python -m course_lib.course.run_notebooks --checks notebooks/student/01_lexical_metrics.ipynb
    python -m course_lib.course.run_notebooks --checks --exercise 4.2 notebooks/student/04_greedy_matching.ipynb
    python -m course_lib.course.run_notebooks --checks --exercise 4.2 --hint 2 notebooks/student/04_greedy_matching.ipynb

--checks prints the exercise check lines (✅ / ❌) and does not stop at a failing cell, so a
student sees every check of a notebook at once. Notebooks are not modified on disk.
--exercise N.M runs only what exercise N.M needs: the cells under its "### Exercise N.M" heading
(without their display lines), the chapter's first code cell (set-up, without the plot style),
and, going backwards, the statements of earlier cells that define or modify a name the kept code
reads (found with Python's ast) -- not the whole chapter, and no figure, print or table.
--hint 2 asks every check of the run for its code-level hint at once (COURSE_HINT=2 is inherited);
without it, the code-level hint shows after repeated failed runs (the checks remember failed
attempts in the user's cache folder: see course_lib.course.checks).
--write saves each notebook back with its new outputs (how the committed chapters are made; run it with
CUDA_VISIBLE_DEVICES= and COURSE_FIGURES set to a temporary folder, as `make test` runs them).
--readme also writes the times into README.md, between <!-- RUNTIMES:START --> and
<!-- RUNTIMES:END -->.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

# nbformat and nbclient are imported where a whole notebook runs: importing them takes seconds
# (nbformat's JSON-schema checker), which `make check EX=N.M` does not need.

def course_kernel() -> str:
    """The course's Jupyter kernel ("bertscore-course", which `make setup` registers), which every
    notebook asks for; a clear error when it is missing, never a silent run on another Python."""
    from jupyter_client.kernelspec import KernelSpecManager

    from course_lib.course.exercises import KERNELSPEC

    name = KERNELSPEC["name"]
    if name not in KernelSpecManager().find_kernel_specs():
        raise RuntimeError(f"the course's Jupyter kernel {name!r} is not installed: run `make setup` (it runs "
                           f"{sys.executable} -m course_lib.course.lab --install)")
    return name


def execute(path: Path, allow_errors: bool = False, timeout: int = 600):
    """Run the notebook at `path` top to bottom on a fresh kernel -> (the notebook with its outputs, seconds)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    os.environ["JPY_SESSION_NAME"] = str(path.resolve())  # the kernel inherits it: attempts per notebook copy
    client = NotebookClient(nb, timeout=timeout, startup_timeout=300, kernel_name=course_kernel(),
                            allow_errors=allow_errors,  # the kernel's log is quiet by its spec (course.lab)
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    return nb, time.perf_counter() - start


def execute_exercise(path: Path, exercise: str, timeout: int = 600) -> tuple[list[str], float]:
    """Run only what exercise N.M needs, in a fresh Python process (course_lib.course.exercise_run:
    IPython's shell, no Jupyter kernel to start), from the notebook's folder -> (its check lines,
    seconds)."""
    if not path.is_file():
        raise FileNotFoundError(f"No such file or directory: '{path}'")
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "course_lib.course.exercise_run", str(path.resolve()), exercise],
                         cwd=path.resolve().parent, capture_output=True, text=True, timeout=timeout)
    if run.returncode != 0:
        raise RuntimeError((run.stderr.strip() or run.stdout.strip() or f"exit status {run.returncode}"))
    return [line for line in run.stdout.splitlines() if line.strip()], time.perf_counter() - start


from course_lib.course.exercise_cells import cells_for_exercise, exercise_notebook  # noqa: E402,F401


def check_lines(nb) -> list[str]:
    from course_lib.course.exercise_run import check_lines as exercise_check_lines

    lines = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text", "") if out.get("output_type") == "stream" else ""
            lines += exercise_check_lines(text)
            if out.get("output_type") == "error":
                lines.append(f"⚠️  a cell raised {out.get('ename')}: {out.get('evalue')}")
    return lines


def exercises_of(path: Path) -> list[tuple[str, bool]]:
    """(exercise N.M, has a check cell) for each "### Exercise N.M" heading of the notebook, in order.
    Read from the course's own notebook of that name when there is one (a student's copy whose check
    cell was deleted or replaced still owes that check)."""
    import json
    import re

    from course_lib.paths import NOTEBOOKS

    own = NOTEBOOKS / path.name
    cells = json.loads((own if own.is_file() else path).read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells)
    found = []
    for ex in re.findall(r"^#+\s*Exercise\s+(\d+\.\d+)\b", text, re.M):
        if ex not in [e for e, _ in found]:
            found.append((ex, f"check_{ex.replace('.', '_')}(" in text))
    return found


def check_table(path: Path, results: dict[str, bool], only: str | None = None) -> tuple[str, bool]:
    """A table of the notebook's exercises and their results, as the checks recorded them (not as cells
    printed them); and whether every checked exercise passed."""
    rows, ok = ["| exercise | result |", "|---|---|"], True
    for ex, checked in exercises_of(path):
        if only and ex != only:
            continue
        if not checked:
            rows.append(f"| {ex} | written answer (no check) |")
            continue
        result = results.get(ex)
        rows.append(f"| {ex} | {'✅ passed' if result else '❌ not passed' if result is False else '❌ no check ran'} |")
        ok &= bool(result)
    return "\n".join(rows), ok


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def replace_block(path: Path, name: str, text: str) -> None:
    """Replace what lies between <!-- NAME:START --> and <!-- NAME:END --> in `path` with `text`."""
    start, end = f"<!-- {name}:START -->", f"<!-- {name}:END -->"
    content = path.read_text()
    if start not in content or end not in content:
        raise SystemExit(f"{path} has no {start} ... {end} block")
    head, rest = content.split(start, 1)
    path.write_text(f"{head}{start}\n{text}\n{end}{rest.split(end, 1)[1]}")


def write_readme(times: dict[str, float], readme: Path = Path("README.md")) -> None:
    """Replace the block between the RUNTIMES markers of `readme` with a table of `times`."""
    import torch

    rows = [f"| {name} | {seconds:.0f} |" for name, seconds in times.items()]
    numbered = sorted(name[:2] for name in times if name[:2].isdigit())
    chapters = sum(s for name, s in times.items() if name[:2].isdigit())
    span = f"{numbered[0]}–{numbered[-1]}" if numbered else "none"
    text = "\n".join([
        f"`make run` times ({datetime.date.today().isoformat()}; {cpu_name()}, {os.cpu_count()} cores, "
        f"torch {torch.__version__} with {torch.get_num_threads()} threads; each notebook on a fresh "
        "kernel, top to bottom, model files in the OS cache):",
        "",
        "| notebook | seconds |",
        "|---|---:|",
        *rows,
        f"| **chapters {span} together** | **{chapters:.0f}** ({chapters / 60:.1f} min) |",
    ])
    replace_block(readme, "RUNTIMES", text)
    print(f"written to {readme}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--checks", action="store_true", help="print exercise checks only")
    parser.add_argument("--readme", action="store_true", help="write the times into README.md")
    parser.add_argument("--write", action="store_true", help="save each notebook back with its outputs")
    parser.add_argument("--exercise", help="with --checks: run only what exercise N.M needs, e.g. 4.2")
    parser.add_argument("--hint", type=int, choices=(1, 2),
                        help="with --checks: the hint level (2: the code-level hint at once)")
    args = parser.parse_args(argv)
    if args.exercise and not args.checks:
        parser.error("--exercise goes with --checks")
    if args.hint and not args.checks:
        parser.error("--hint goes with --checks")
    if args.hint:
        from course_lib.course.checks import HINT_ENV

        os.environ[HINT_ENV] = str(args.hint)  # the kernel (or exercise_run) inherits it
    total, failed, times = 0.0, 0, {}
    for path in args.notebooks:
        if args.checks:  # each check records its result here; a printed "✅" records nothing
            import tempfile

            from course_lib.course.checks import RESULTS_ENV, recorded_results

            handle, results_file = tempfile.mkstemp(prefix="course-checks-", suffix=".jsonl")
            os.close(handle)
            os.environ[RESULTS_ENV] = results_file
        try:
            if args.exercise:
                lines, seconds = execute_exercise(path, args.exercise)
            else:
                nb, seconds = execute(path, allow_errors=args.checks)
                lines = check_lines(nb) if args.checks else []
        except Exception as err:  # a failing cell: report it and go on with the next notebook
            print(f"{path.name:45s} FAILED: {type(err).__name__}: {str(err).splitlines()[-1][:200]}")
            failed += 1
            if args.checks:
                os.unlink(results_file)
            continue
        if args.write and not args.checks and not args.exercise:
            import nbformat

            nbformat.write(nb, path)
        total += seconds
        times[path.name] = seconds
        print(f"{path.name:45s} {seconds:6.1f} s")
        if args.checks:
            print("\n".join(lines) if lines else "(no exercise checks in this notebook)")
            table, passed = check_table(path, recorded_results(results_file), args.exercise)
            os.unlink(results_file)
            print(table)
            failed += not passed
    if not args.checks:
        print(f"{'total':45s} {total:6.1f} s")
        if args.readme and not failed:
            write_readme(times)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
