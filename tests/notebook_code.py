"""Helpers shared by the chapter exercise tests: take a solution out of a solution notebook, and
read a checker's verdict line."""
from __future__ import annotations

import ast
from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def code_cell(notebook: Path, marker: str, solution: bool = False) -> str:
    """Source of the one code cell of `notebook` that contains `marker` (and "BEGIN SOLUTION"
    when `solution` is true)."""
    cells = [c.source for c in nbformat.read(notebook, as_version=4).cells
             if c.cell_type == "code" and marker in c.source
             and (not solution or "BEGIN SOLUTION" in c.source)]
    assert len(cells) == 1, f"expected one code cell with {marker!r} in {notebook.name}, found {len(cells)}"
    return cells[0]


def run_cells(notebook: Path, *markers: str, solution: bool = False, **names) -> dict:
    """Execute the code cells containing `markers`, in order, in one namespace that starts with
    `names` (what the notebook defined earlier); return that namespace."""
    namespace = dict(names)
    for marker in markers:
        source = code_cell(notebook, marker, solution)
        exec(compile(source, f"<{notebook.name}: {marker}>", "exec"), namespace)
    return namespace


def definition(notebook: Path, name: str, marker: str | None = None, imports: bool = False, **names):
    """The function `name` from the code cell that defines it (or the cell containing `marker`).

    Only the cell's function definitions (and its imports, when `imports`) are executed, not the
    lines that use the notebook's data; `names` are the globals the function may use.
    """
    marker = marker or f"def {name}("
    tree = ast.parse(code_cell(notebook, marker))
    keep = (ast.FunctionDef, ast.Import, ast.ImportFrom) if imports else (ast.FunctionDef,)
    tree.body = [node for node in tree.body if isinstance(node, keep)]
    namespace = dict(names)
    exec(compile(tree, f"<{notebook.name}: {marker}>", "exec"), namespace)
    return namespace[name]


def stub(*args, **kwargs):
    """What a student's untouched exercise does."""
    raise NotImplementedError()


def passes(check, *args, capsys=None) -> bool:
    """Run `check` on the answer(s) and return its verdict, asserting that it printed a verdict
    line that agrees (✅ or ❌) and no traceback.

    `passes(check, answer, capsys)` or `passes(check, *answers, capsys=capsys)`.
    """
    if capsys is None:
        *args, capsys = args
    result = check(*args)
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert lines and lines[-1].startswith("✅" if result else "❌"), out
    assert "Traceback" not in out, out
    return result


def assert_separates(check, right, wrong, capsys) -> None:
    """`check` passes the right answer and fails the untouched stub and every planted bug."""
    assert passes(check, right, capsys)
    for bug in (stub, *wrong):
        assert not passes(check, bug, capsys), bug.__name__


def assert_names_mistake(check, *answers, named: str, capsys) -> None:
    """`check(*answers)` fails with a first hint that names the mistake (`named`) and shows no code."""
    assert check(*answers) is False
    out = capsys.readouterr().out
    assert named in out and "Code:" not in out, out
