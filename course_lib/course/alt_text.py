"""Alternative text for every figure of the course, kept in one file and written into the notebooks.

    python -m course_lib.course.alt_text           # write the alt texts into the notebooks' cells
    python -m course_lib.course.alt_text --check   # list figure cells without alt text (exit 1 if any)

The texts live in alt_texts.toml beside this module, keyed by the figure's name, the one the cell
passes to save_figure (`save_figure(fig, "ch04_red_shoes")`), which stays the same when a chapter is
edited or re-run. Each is written for a reader who cannot see the figure: what it shows, and what
to notice.

A figure cell is a code cell that calls save_figure or has an image among its outputs. Its text is
stored in the cell's metadata under the two keys the tools read:
- `alt`: nbconvert's HTML templates (`cell | get_metadata('alt')`);
- `mystnb: {image: {alt: ...}}`: myst-nb (Jupyter Book), its cell-level `render_image_options`.
Cell metadata survives re-execution (outputs are replaced, metadata is not), and writing is
idempotent: a notebook already up to date is not rewritten.
"""
from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

import nbformat

from course_lib.paths import NOTEBOOKS

ALT_TEXTS = Path(__file__).with_name("alt_texts.toml")
FIGURE_NAME = re.compile(r"""save_figure\(\s*[^,]+,\s*["']([\w.-]+)["']""")


def load_alt_texts(path: Path = ALT_TEXTS) -> dict[str, str]:
    """{figure name: alt text}, whitespace folded to single spaces."""
    table = tomllib.loads(path.read_text())["figures"]
    return {name: " ".join(text.split()) for name, text in table.items()}


def figure_names(cell) -> list[str]:
    """The names this cell saves figures under."""
    return FIGURE_NAME.findall(cell.source) if cell.cell_type == "code" else []


def has_image(cell) -> bool:
    return cell.cell_type == "code" and any(
        key.startswith("image/") for out in cell.get("outputs", []) for key in out.get("data", {}))


def is_figure_cell(cell) -> bool:
    return bool(figure_names(cell)) or has_image(cell)


def cell_alt(cell) -> tuple[str | None, str | None]:
    """The alt text as nbconvert reads it, and as myst-nb reads it."""
    mystnb = cell.metadata.get("mystnb", {}).get("image", {}).get("alt")
    return cell.metadata.get("alt"), mystnb


def alt_for(cell, texts: dict[str, str]) -> str:
    names = figure_names(cell)
    if not names:
        raise ValueError("a cell with an image output calls no save_figure(fig, \"name\"), so its alt text "
                         f"has no key; save the figure under a name. The cell begins: {cell.source[:80]!r}")
    missing = [n for n in names if n not in texts]
    if missing:
        raise KeyError(f"no alt text for figure {', '.join(missing)} in {ALT_TEXTS.name}")
    return " ".join(texts[n] for n in names)


def apply(notebook: Path, texts: dict[str, str]) -> bool:
    """Write the alt texts into `notebook`'s figure cells; True when the file changed."""
    raw = notebook.read_text()
    nb = nbformat.reads(raw, as_version=nbformat.NO_CONVERT)
    changed = False
    for cell in nb.cells:
        if not is_figure_cell(cell):
            continue
        text = alt_for(cell, texts)
        if cell_alt(cell) != (text, text):
            cell.metadata["alt"] = text
            cell.metadata.setdefault("mystnb", {}).setdefault("image", {})["alt"] = text
            changed = True
    if changed:
        notebook.write_text(nbformat.writes(nb) + "\n")
    return changed


def problems(notebook: Path, texts: dict[str, str] | None = None) -> list[str]:
    """Figure cells of `notebook` whose alt text is missing, trivial, or out of date with alt_texts.toml."""
    texts = load_alt_texts() if texts is None else texts
    nb = nbformat.read(notebook, as_version=4)
    found = []
    for index, cell in enumerate(nb.cells):
        if not is_figure_cell(cell):
            continue
        where = f"{notebook.name} cell {index} ({', '.join(figure_names(cell)) or 'no save_figure name'})"
        nbconvert_alt, mystnb_alt = cell_alt(cell)
        if not nbconvert_alt or not mystnb_alt:
            found.append(f"{where}: no alt text (run python -m course_lib.course.alt_text)")
            continue
        if nbconvert_alt != mystnb_alt:
            found.append(f"{where}: the `alt` and `mystnb.image.alt` texts differ")
        if trivial(nbconvert_alt):
            found.append(f"{where}: alt text too short to describe the figure: {nbconvert_alt!r}")
        try:
            expected = alt_for(cell, texts)
        except (KeyError, ValueError) as exc:
            found.append(f"{where}: {exc}")
            continue
        if nbconvert_alt != expected:
            found.append(f"{where}: alt text differs from {ALT_TEXTS.name} (run python -m course_lib.course.alt_text)")
    return found


def trivial(text: str) -> bool:
    """An alt text that says nothing: empty, a file name or hash, one or two words like "heatmap"."""
    words = re.findall(r"[A-Za-z]+", text)
    return len(words) < 8 or bool(re.fullmatch(r"[0-9a-f]{16,}(\.\w+)?", text.strip()))


def notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9]*.ipynb")) + sorted(NOTEBOOKS.glob("demo.ipynb"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only report figure cells without alt text")
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: every chapter and the demo)")
    args = parser.parse_args(argv)
    texts = load_alt_texts()
    paths = args.paths or notebooks()
    if args.check:
        found = [p for path in paths for p in problems(path, texts)]
        print("\n".join(found) or f"every figure cell of {len(paths)} notebooks has its alt text")
        return 1 if found else 0
    for path in paths:
        if apply(path, texts):
            print(f"wrote alt texts into {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
