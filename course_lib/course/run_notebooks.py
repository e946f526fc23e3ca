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
--hint 2 asks every check of the run for its code-level hint at once (the kernel gets COURSE_HINT=2);
without it, the code-level hint shows after repeated failed runs (the checks remember failed
attempts in the user's cache folder: see course_lib.course.checks).
--readme also writes the times into README.md, between <!-- RUNTIMES:START --> and
<!-- RUNTIMES:END -->.
"""
from __future__ import annotations

import argparse
import ast
import builtins
import datetime
import os
import platform
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


# The kernel's own log (e.g. "Kernel is running over TCP without encryption") is noise here.
KERNEL_ARGS = ["--IPKernelApp.log_level=CRITICAL"]
QUICK_SETUP_ENV = "COURSE_QUICK_SETUP"  # read by course_lib.teaching.notebook.setup


def execute(path: Path, allow_errors: bool = False, timeout: int = 600, exercise: str | None = None):
    nb = nbformat.read(path, as_version=4)
    if exercise is not None:
        nb = exercise_notebook(nb, exercise)
        os.environ[QUICK_SETUP_ENV] = "1"  # the kernel's setup() skips the plot style: nothing is drawn
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=allow_errors,
                            extra_arguments=KERNEL_ARGS, resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    return nb, time.perf_counter() - start


def _python(source: str) -> ast.Module | None:
    """The cell's code as a syntax tree (IPython magics turned into Python first), or None."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        source = TransformerManager().transform_cell(source)
    except ImportError:  # pragma: no cover - IPython comes with jupyter
        pass
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


# Methods that change the object they are called on: `rows.append(x)` modifies `rows`.
_MUTATING = {"append", "extend", "insert", "update", "pop", "remove", "clear", "add", "discard", "setdefault",
             "sort", "reverse", "popitem", "fillna", "drop", "rename", "set_index", "reset_index", "sort_values"}


def _has_magics(source: str) -> bool:
    """True when IPython would rewrite the cell (%magics, !shell lines)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover
        return False
    return TransformerManager().transform_cell(source) != (source if source.endswith("\n") else source + "\n")


def _names(tree) -> tuple[set[str], set[str]]:
    """(names the code defines or modifies, names it reads). Names local to a function, a lambda or a
    comprehension (its parameters, what it assigns) are neither."""
    defined, used = set(), set()

    def scope(node, params: set[str], body) -> None:
        inner_defined, inner_used = set(), set()
        for child in body:
            d, u = _names(child)
            inner_defined |= d
            inner_used |= u
        used.update(inner_used - params - inner_defined)

    def visit(node) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
            params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
            for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
                visit(default)
            if isinstance(node, ast.Lambda):
                scope(node, params, [node.body])
                return
            defined.add(node.name)
            for decorator in node.decorator_list:
                visit(decorator)
            scope(node, params, node.body)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            targets = set()
            for gen in node.generators:
                visit(gen.iter)
                targets |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            parts += [cond for gen in node.generators for cond in gen.ifs]
            scope(node, targets, parts)
            return
        if isinstance(node, ast.Name):
            (defined if isinstance(node.ctx, (ast.Store, ast.Del)) else used).add(node.id)
        elif isinstance(node, ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            base = node.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):  # df["x"] = ... modifies df
                defined.add(base.id)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in _MUTATING and isinstance(node.func.value, ast.Name)):
            defined.add(node.func.value.id)  # rows.append(...) modifies rows
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return defined, used - set(dir(builtins))


def _rebinds(node) -> set[str]:
    """Names a top-level statement binds afresh (def, class, import, `name = ...`): what an earlier
    statement defined under these names is not needed after it."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = set()
        for target in targets:
            elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            names |= {t.id for t in elements if isinstance(t, ast.Name)}
        return names
    return set()


def _reads_before(statements) -> set[str]:
    """The names a run of statements reads that it has not bound itself before reading them."""
    needed = set()
    for node in reversed(statements):
        needed -= _rebinds(node)
        needed |= _names(node)[1]
    return needed


def _keeps_state(node) -> bool:
    """A statement kept whatever it defines: it seeds a random generator."""
    return any(isinstance(n, ast.Call) and "seed" in (getattr(n.func, "attr", None) or getattr(n.func, "id", ""))
               for n in ast.walk(node))


def needed_statements(source: str, needed: set[str]) -> tuple[str, set[str]] | None:
    """The cell's top-level statements that define or modify a name in `needed` (and the statements
    those read, going backwards within the cell), as source, and the names they read; None when
    the cell cannot be sliced safely (IPython magics, a syntax error): then it runs whole."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    needed = set(needed)
    keep = []
    for node in reversed(tree.body):
        if _names(node)[0] & needed or _keeps_state(node):
            keep.append(node)
            needed -= _rebinds(node)
            needed |= _names(node)[1]
    lines = source.splitlines(keepends=True)
    text = "".join("".join(lines[n.lineno - 1:n.end_lineno]) for n in reversed(keep))
    return text, needed


def exercise_span(nb, exercise: str) -> list[int]:
    """Indices of the code cells under the heading "### Exercise <exercise>" (up to the next heading)."""
    heading = re.compile(rf"^#+\s*Exercise\s+{re.escape(exercise)}\b", re.M)
    start = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and heading.search(c.source)),
                 None)
    if start is None:
        raise SystemExit(f"no \"### Exercise {exercise}\" heading in this notebook")
    span = []
    for i in range(start + 1, len(nb.cells)):
        cell = nb.cells[i]
        if cell.cell_type == "markdown" and re.search(r"^#", cell.source, re.M):
            break
        if cell.cell_type == "code":
            span.append(i)
    return span


def _calls_a_check(node) -> bool:
    return any(isinstance(n, ast.Call) and (getattr(n.func, "attr", None) or getattr(n.func, "id", "")).startswith("check")
               for n in ast.walk(node))


def without_displays(source: str) -> str:
    """The cell without its top-level expression statements (print(...), a table to display),
    unless they call a check: what the check needs, not what the student reads."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: keep the cell as it is
        return source
    drop = [n for n in tree.body if isinstance(n, ast.Expr) and not _calls_a_check(n)]
    kept_lines = {line for n in tree.body if n not in drop for line in range(n.lineno, n.end_lineno + 1)}
    lines = source.splitlines(keepends=True)
    for node in reversed(drop):
        span = range(node.lineno, node.end_lineno + 1)
        if not kept_lines.intersection(span):  # not sharing a line with a kept statement
            del lines[node.lineno - 1:node.end_lineno]
    return "".join(lines)


def exercise_notebook(nb, exercise: str):
    """A copy of `nb` with only what exercise N.M needs: the set-up cell, the exercise's own cells
    without their display lines, and, going backwards, the statements of earlier cells that define
    a name something kept reads (a figure, a print, a table to look at are left out)."""
    nb = nbformat.from_dict(nb)
    own = exercise_span(nb, exercise)
    if not own:
        nb.cells = []
        return nb
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    sources = {i: nb.cells[i].source for i in code}
    for i in own:
        sources[i] = without_displays(sources[i])
    own_statements = []
    for i in own:
        tree = _python(sources[i])
        own_statements += tree.body if tree else []
    needed = _reads_before(own_statements)
    chosen = set(own) | set(code[:1])
    for i in reversed([i for i in code if i < min(own)]):
        if i == code[0]:
            tree = _python(sources[i])
            needed |= _names(tree)[1] if tree else set()
            continue
        sliced = None if _has_magics(sources[i]) else needed_statements(sources[i], needed)
        if sliced is None:  # magics or unparsable: run it whole, to be safe
            chosen.add(i)
            tree = _python(sources[i])
            needed |= _names(tree)[1] if tree else set()
            continue
        text, needed = sliced
        if text.strip():
            chosen.add(i)
            sources[i] = text
    for i in chosen:
        nb.cells[i].source = sources[i]
    nb.cells = [nb.cells[i] for i in sorted(chosen)]
    return nb


def cells_for_exercise(nb, exercise: str) -> list[int]:
    """The cells exercise N.M needs, in notebook order: its own code cells, the first code cell
    (set-up), and every earlier code cell that defines a name a chosen cell reads."""
    own = exercise_span(nb, exercise)
    if not own:  # a written exercise: nothing to run
        return []
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    chosen = set(own) | set(code[:1])
    trees = {i: _python(nb.cells[i].source) for i in code}
    needed = set()
    for i in chosen:
        needed |= _names(trees[i])[1] if trees[i] else set()
    for i in reversed([i for i in code if i < min(own)]):
        if trees[i] is None:  # unparsable: keep it, to be safe
            chosen.add(i)
            continue
        defined, used = _names(trees[i])
        if i in chosen or defined & needed:
            chosen.add(i)
            needed |= used
    return sorted(chosen)


def check_lines(nb) -> list[str]:
    lines = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text", "") if out.get("output_type") == "stream" else ""
            lines += [l for l in text.splitlines() if l.startswith(("✅", "❌"))]
            if out.get("output_type") == "error":
                lines.append(f"⚠️  a cell raised {out.get('ename')}: {out.get('evalue')}")
    return lines


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
    chapters = sum(s for name, s in times.items() if name[:2].isdigit())
    text = "\n".join([
        f"`make run` times ({datetime.date.today().isoformat()}; {cpu_name()}, {os.cpu_count()} cores, "
        f"torch {torch.__version__} with {torch.get_num_threads()} threads; each notebook on a fresh "
        "kernel, top to bottom, model files in the OS cache):",
        "",
        "| notebook | seconds |",
        "|---|---:|",
        *rows,
        f"| **chapters 00–09 together** | **{chapters:.0f}** ({chapters / 60:.1f} min) |",
    ])
    replace_block(readme, "RUNTIMES", text)
    print(f"written to {readme}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--checks", action="store_true", help="print exercise checks only")
    parser.add_argument("--readme", action="store_true", help="write the times into README.md")
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

        os.environ[HINT_ENV] = str(args.hint)  # the kernel inherits this process's environment
    total, failed, times = 0.0, 0, {}
    for path in args.notebooks:
        try:
            nb, seconds = execute(path, allow_errors=args.checks, exercise=args.exercise or None)
        except Exception as err:  # a failing cell: report it and go on with the next notebook
            print(f"{path.name:45s} FAILED: {type(err).__name__}: {str(err).splitlines()[-1][:200]}")
            failed += 1
            continue
        total += seconds
        times[path.name] = seconds
        print(f"{path.name:45s} {seconds:6.1f} s")
        if args.checks:
            lines = check_lines(nb)
            print("\n".join(lines) if lines else "(no exercise checks in this notebook)")
            failed += any(l.startswith("❌") for l in lines)
    if not args.checks:
        print(f"{'total':45s} {total:6.1f} s")
        if args.readme and not failed:
            write_readme(times)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
