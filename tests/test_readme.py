"""README.md and the Makefile as a newcomer reads them: tables that render (GitHub and the book), and a
`make help` that lists every command with how long it takes."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cells(row: str) -> int:
    """How many cells a Markdown table row has: cells are split at every | that is not escaped as
    \\| (GitHub splits at a | inside `code` too), less the leading and trailing ones."""
    return len(re.split(r"(?<!\\)\|", row.strip().strip("|")))


def tables(text: str) -> list[list[tuple[int, str]]]:
    """Each table of `text` as its rows [(line number, row)], header first."""
    found, current = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("|"):
            current.append((number, line))
        elif current:
            found.append(current)
            current = []
    return found + ([current] if current else [])


def test_every_table_row_has_the_header_s_cells():
    """A | inside a cell (|h−r|, a|b) must be written \\| or the row gains a cell and loses its last column."""
    problems = []
    for table in tables((ROOT / "README.md").read_text()):
        width = cells(table[0][1])
        problems += [f"README.md:{n}: {cells(row)} cells, the header has {width}: {row[:90]}"
                     for n, row in table[1:] if cells(row) != width]
    assert not problems, "\n".join(problems)


def test_the_check_finds_an_unescaped_bar():
    rows = tables("| a | b |\n|---|---|\n| x \\|y\\| | z |\n| x |y| z |\n")[0]
    assert [cells(r) for _, r in rows] == [2, 2, 2, 3]


def test_make_help_lists_every_command_with_its_time():
    makefile = (ROOT / "Makefile").read_text()
    phony = set(re.search(r"^\.PHONY:(.*)$", makefile, re.M).group(1).split())
    shown = subprocess.run(["make", "--no-print-directory", "-s", "-C", str(ROOT), "help"], capture_output=True,
                           text=True, check=True).stdout
    listed = {m.group(1): m.group(2) for m in re.finditer(r"^  make ([\w-]+)[^\n]*?\[([^\]]+)\]$", shown, re.M)}
    assert phony <= set(listed), f"make help does not list: {sorted(phony - set(listed))}"
    assert all(re.search(r"\d|instant|run time", t) for t in listed.values()), listed


def runtimes() -> dict[str, int]:
    """{notebook: seconds} from the README's `make run` table."""
    text = (ROOT / "README.md").read_text()
    block = text[text.index("<!-- RUNTIMES:START -->"):text.index("<!-- RUNTIMES:END -->")]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^\| (\d\w+_\w+\.ipynb) \| (\d+) \|", block, re.M)}


def test_the_course_map_s_times_agree_with_the_measured_table():
    """The course map (README, START_HERE, the book's first page) gives the chapters' run times in words; they
    must be what the `make run` table measured."""
    text = (ROOT / "README.md").read_text()
    said = re.search(r"in under ([\d.]+) minutes on a 2-core laptop CPU, chapter 08 in about (\d+)", text)
    assert said, "the course map no longer says how long a chapter runs"
    times = runtimes()
    assert len(times) >= 12, times
    others = {k: v for k, v in times.items() if not k.startswith("08")}
    assert max(others.values()) < float(said.group(1)) * 60, others
    assert abs(times["08_human_agreement.ipynb"] / 60 - int(said.group(2))) <= 0.5, times["08_human_agreement.ipynb"]
    assert "times below" not in text
