"""A solution, read from where it is written once: the solution notebook's solution cells (d2l's way: the book
and the answers in one source). A student release ships no solution notebook; there the check says where the
solutions are kept instead of showing one."""
from __future__ import annotations

import json
import re

from course_lib.paths import NOTEBOOKS

_BLOCK = re.compile(r"^[ \t]*### BEGIN SOLUTION[^\n]*\n(.*?)^[ \t]*### END SOLUTION", re.M | re.S)
_MD_BLOCK = re.compile(r"<!-- BEGIN SOLUTION -->(.*?)<!-- END SOLUTION -->", re.S)
NO_SOLUTIONS = ("the solutions are not in this copy of the course: your instructor keeps them (in the course "
                "repository they are the notebooks in notebooks/, beside student/).")


def solution_notebook(chapter: str):
    """notebooks/<chapter>_*.ipynb (chapter "03", "07a"), or None where this copy has none."""
    found = sorted(p for p in NOTEBOOKS.glob(f"{chapter}_*.ipynb"))
    return found[0] if found else None


def _sources(path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells]


def solution_text(ex) -> str:
    """The solution blocks written under "### Exercise <id>" in the solution notebook, in order."""
    path = solution_notebook(ex.chapter)
    if path is None:
        return NO_SOLUTIONS
    inside, blocks = False, []
    heading = re.compile(rf"^#+\s*Exercise\s+{re.escape(ex.id)}\b", re.M)
    call = re.compile(rf"\bcheck_{ex.id.replace('.', '_')}\(")
    for source in _sources(path):
        inside = inside or bool(heading.search(source))
        if not inside:
            continue
        blocks += [b.rstrip() for b in _BLOCK.findall(source)] + [b.strip() for b in _MD_BLOCK.findall(source)]
        if call.search(source):  # the exercise's check: its solution cells are above
            break
    return "\n".join(blocks) if blocks else NO_SOLUTIONS
