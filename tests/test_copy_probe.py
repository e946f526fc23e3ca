"""The static copy probe (issue 31): no exercise's solution can be assembled from code or prose above it.

For every solution cell (`### BEGIN SOLUTION` ... `### END SOLUTION`) of the chapters, each statement of the
solution longer than a few characters, with whitespace and comments removed, is looked up in the text of every
cell above it (code, prose and outputs) and in the stub's own lines (its docstring). An exercise whose solution is
more than half found there is a copy job. A fix-the-bug exercise hands the student planted code on purpose: the lines of
its own `planted_*` function do not count as a copy source, so the fix itself must still be new.
"""
from __future__ import annotations

import ast
import json
import re

import pytest

from notebook_code import NOTEBOOKS

COPIED_AT_MOST = 0.5   # a copy job: more than half of its solution's statements appear verbatim above it
SHORTEST = 13          # statements shorter than this (return x, else:, a bare name) are not evidence


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _statements(solution: str) -> list[str]:
    lines = [_squeeze(line.split("#")[0]) for line in solution.splitlines()]
    return [line for line in lines if len(line) >= SHORTEST]


def _cell_text(cell: dict) -> str:
    text = "".join(cell["source"])
    for out in cell.get("outputs", []):
        text += "".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", ""))
    return text


def _without_planted(source: str) -> str:
    """The source without its `planted_*` functions (the code a fix-the-bug exercise hands out)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("planted_"):
            for k in range(node.lineno - 1, node.end_lineno):
                lines[k] = ""
    return "\n".join(lines)


def copy_jobs(notebook: dict) -> list[tuple[str, float, list[str]]]:
    """(exercise, share of its solution's statements found above it, those statements) for each solution cell."""
    cells, jobs, exercise = notebook["cells"], [], "?"
    for k, cell in enumerate(cells):
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            exercise = (re.findall(r"Exercise (\d+\.\d+)", source) or [exercise])[0]
        if cell["cell_type"] != "code" or "### BEGIN SOLUTION" not in source:
            continue
        solution = source.split("### BEGIN SOLUTION", 1)[1].split("### END SOLUTION", 1)[0]
        statements = _statements(solution)
        above = [_without_planted(_cell_text(c)) if c["cell_type"] == "code" else _cell_text(c) for c in cells[:k]]
        above.append(source.split("### BEGIN SOLUTION", 1)[0])  # the stub: its signature and docstring
        text = _squeeze("\n".join(above))
        found = [s for s in statements if s in text]
        if statements:
            jobs.append((exercise, len(found) / len(statements), found))
    return jobs


CHAPTERS = sorted(p for p in NOTEBOOKS.glob("[01][0-9]*.ipynb"))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_solution_is_written_above_its_exercise(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    copied = [(ex, round(share, 2), found[:3]) for ex, share, found in copy_jobs(notebook) if share > COPIED_AT_MOST]
    assert not copied, f"{path.name}: solutions found above their exercise (exercise, share, lines): {copied}"


def test_the_probe_finds_a_solution_shown_above_its_exercise():
    """Planted: exercise 10.3's solution pasted into a code cell before the exercise; and 7.7's planted function
    renamed so that it no longer counts as handed-out code."""
    chapter = json.loads((NOTEBOOKS / "10_learned_metric.ipynb").read_text(encoding="utf-8"))
    k = next(i for i, c in enumerate(chapter["cells"]) if "def inflation_by_pair" in "".join(c["source"]))
    solution = "".join(chapter["cells"][k]["source"]).split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
    chapter["cells"].insert(3, {"cell_type": "code", "source": solution, "outputs": [], "metadata": {}})
    assert any(ex == "10.3" and share > COPIED_AT_MOST for ex, share, _ in copy_jobs(chapter))

    chapter_b = json.loads((NOTEBOOKS / "07b_neighbours_and_testing.ipynb").read_text(encoding="utf-8"))
    assert all(share <= COPIED_AT_MOST for ex, share, _ in copy_jobs(chapter_b) if ex == "7.7")
    for cell in chapter_b["cells"]:
        cell["source"] = "".join(cell["source"]).replace("def planted_batch_f1", "def torchmetrics_batch_f1")
    assert any(ex == "7.7" and share > COPIED_AT_MOST for ex, share, _ in copy_jobs(chapter_b))
