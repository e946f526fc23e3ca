"""The course as a book: a static site (Jupyter Book 1) built from the committed notebooks.

    python -m course_lib.course.book            # build into build/book/_build/html (make book)
    python -m course_lib.course.book --install  # first install the pinned `book` extra (pyproject.toml)

Nothing is executed (the notebooks' stored outputs are the book's) and nothing is fetched: the
site works opened from disk (file://), MathJax included (served from jupyter-server-mathjax's
copy, never a CDN). The builder writes a source folder under build/book/src:

- index.md: the README's course map (between its COURSE-MAP markers), its links pointing at the pages;
- one page per chapter, notebooks/[0-9]*.ipynb (found at build time, so a new chapter appears
  once its notebook is there), then the live demo with its screenshots, then the references
  (every chapter's "## References" section, gathered); in the book's copy of a notebook, code cells
  lose nbgrader's `### BEGIN/END SOLUTION` lines and consecutive prints are joined into one output;
- a note at the top of every page saying how to run that chapter;
- _static/course.css (the page at 390 px as at 1280: display maths and wide tables scroll inside
  their box, inline code and code cells wrap, figures open full size); long `show_source` listings
  are folded (a button shows them);
- _config.yml and _toc.yml (`book_theme`, with the CSS: the theme's empty top bar, see `book_theme.config`).

After Sphinx, `finish()` goes over the HTML: each output figure becomes a link to its image file
(full size, e.g. on a phone), and the second copy of sphinx-thebe's THEBE_JS_URL script is dropped.

`--strict` (CI) turns every Sphinx warning into an error.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat

from course_lib.course.book_theme import CSS, TITLE, config, toc
from course_lib.paths import FIGURES, NOTEBOOKS, ROOT

BUILD = ROOT / "build" / "book"
MAP_START, MAP_END = "<!-- COURSE-MAP:START -->", "<!-- COURSE-MAP:END -->"
# the demo's screenshots (made by tests/test_demo_browser.py with DEMO_FIGURES=1), shown on its page
DEMO_SCREENSHOTS = ("demo_screenshot", "demo_present")
# the one combined configuration jupyter-server-mathjax ships; its only web font is STIX-Web (mathjax2_config)
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full"
FOLD_LINES = 25  # a show_source listing longer than this is folded in the book (a button shows it)


def chapters(notebooks: Path = NOTEBOOKS) -> list[Path]:
    """The chapter notebooks, in order: notebooks/[0-9]*.ipynb."""
    return sorted(notebooks.glob("[0-9]*.ipynb"))


def book_requirements(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """The pinned packages of the `book` extra in pyproject.toml."""
    import tomllib

    return tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]["book"]


def install() -> None:
    """pip-install the book's pinned packages into this Python (the course's own install stays as it is)."""
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    *book_requirements()], check=True)


def course_map(readme: Path = ROOT / "README.md") -> str:
    """The README's course map, with links to notebooks/X.ipynb turned into links to the book's pages."""
    text = readme.read_text()
    start, end = text.index(MAP_START) + len(MAP_START), text.index(MAP_END)
    return re.sub(r"\]\(notebooks/([^)]+)\.ipynb\)", r"](\1.ipynb)", text[start:end]).strip()


def course_map_page(readme: Path = ROOT / "README.md") -> str:
    """The course map for the book's index: its table inside a `course-map` container (course.css styles it)."""
    lines = course_map(readme).splitlines()
    rows = [i for i, line in enumerate(lines) if line.startswith("|")]
    if not rows:
        return "\n".join(lines)
    first, last = rows[0], rows[-1]
    return "\n".join([*lines[:first], ":::{container} course-map", *lines[first:last + 1], ":::",
                      *lines[last + 1:]])


def run_note(notebook: Path) -> str:
    """The note at the top of a page: how to run this chapter rather than read it."""
    name = notebook.name
    student = NOTEBOOKS / "student" / name
    lines = [
        "```{note}",
        "You are reading this chapter as a book page: the outputs below were stored when the course was last "
        "run, and nothing here executes. To run it yourself, get the course folder, run `make lab` in it "
        "(the README's *Quick start*; it installs everything the first time, then works offline) and open "
        f"`notebooks/{name}`.",
    ]
    if student.exists():
        lines.append(f"The exercises are blank in `notebooks/student/{name}`; check them with "
                     f"`make check NB=notebooks/student/{name}`.")
    if name == "demo.ipynb":
        lines = lines[:-1] + [
            "The live widgets need a running kernel, so this page shows screenshots of them instead: "
            "`make present` opens the presenter view, `make demo` this notebook in JupyterLab "
            "(the README's *Instructor guide*)."]
    return "\n".join(lines + ["```"])


def screenshots_cell(alt_texts: dict[str, str], figures: Path) -> str:
    """Markdown showing the demo's screenshots with their alt text."""
    parts = ["## Screenshots of the live demo", ""]
    for name in DEMO_SCREENSHOTS:
        if (figures / f"{name}.png").exists():
            parts += [f"![{alt_texts[name]}](figures/{name}.png)", ""]
    return "\n".join(parts)


def page(notebook: Path, alt_texts: dict[str, str], figures: Path) -> nbformat.NotebookNode:
    """The notebook as the book shows it: the run note after its title cell (and, for the demo, the
    screenshots before its first section)."""
    nb = nbformat.read(notebook, as_version=4)
    at = 1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0
    nb.cells.insert(at, nbformat.v4.new_markdown_cell(run_note(notebook)))
    if notebook.name == "demo.ipynb":
        nb.cells.insert(at + 1, nbformat.v4.new_markdown_cell(screenshots_cell(alt_texts, figures)))
    for cell in nb.cells:  # nbformat>=4.5 ids are not needed by the book; keep the copy valid
        cell.pop("id", None)
        if cell.cell_type == "code":
            cell.source = SOLUTION_MARKER.sub("", cell.source)
            cell.outputs = joined_streams(cell.outputs)
        if long_listing(cell):
            cell.metadata.setdefault("tags", []).append("hide-output")
    nb.nbformat_minor = 4
    return nb


# nbgrader's markers around a solution in a code cell: for nbgrader, not for the reader of the book
SOLUTION_MARKER = re.compile(r"^[ \t]*### (?:BEGIN|END) SOLUTION[ \t]*(?:\n|$)", re.M)


def joined_streams(outputs: list) -> list:
    """The outputs with each run of consecutive prints to one stream (stdout, stderr) joined into one
    output: the book shows each output as a box of its own, so a cell printing three times showed three."""
    joined = []
    for output in outputs:
        previous = joined[-1] if joined else None
        if (output.get("output_type") == "stream" and previous is not None
                and previous.get("output_type") == "stream" and previous.get("name") == output.get("name")):
            previous["text"] += output["text"]
        else:
            joined.append(output)
    return joined


def long_listing(cell) -> bool:
    """A code cell that prints a course_lib function's source (`show_source`) over FOLD_LINES lines."""
    if cell.cell_type != "code" or "show_source(" not in cell.source:
        return False
    text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
    return text.count("\n") > FOLD_LINES


def references(notebooks: list[Path]) -> str:
    """Every chapter's "## References" section, under the chapter's title."""
    out = ["# References", "",
           "The works each chapter tests or quotes, gathered from the chapters' own reference sections.", ""]
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        title = next((line.lstrip("# ").strip() for c in nb.cells if c.cell_type == "markdown"
                      for line in c.source.splitlines() if line.startswith("# ")), path.stem)
        sections = [c.source for c in nb.cells if c.cell_type == "markdown"
                    and re.match(r"##\s+References\b", c.source.strip())]
        if not sections:
            continue
        body = "\n".join(sections).strip().split("\n", 1)[1].strip() if "\n" in sections[0] else ""
        body = re.sub(r"^(#+)", r"#\1", body, flags=re.M)  # sub-headings one level below the chapter's
        out += [f"## {title}", "", f"From [{title}]({path.name}).", "", body, ""]
    return "\n".join(out)


def write_source(src: Path, notebooks: list[Path] | None = None, figures: Path = FIGURES) -> list[str]:
    """Write the book's source folder; returns the pages (file stems) in order after the index."""
    from course_lib.course.alt_text import load_alt_texts

    notebooks = chapters() if notebooks is None else notebooks
    alt_texts = load_alt_texts()
    if src.exists():
        shutil.rmtree(src)
    (src / "figures").mkdir(parents=True)
    pages = []
    demo = NOTEBOOKS / "demo.ipynb"
    for path in [*notebooks, *([demo] if demo.exists() else [])]:
        nbformat.write(page(path, alt_texts, figures), src / path.name)
        pages.append(path.stem)
    for name in DEMO_SCREENSHOTS:
        if (figures / f"{name}.png").exists():
            shutil.copy2(figures / f"{name}.png", src / "figures" / f"{name}.png")
    (src / "references.md").write_text(references(notebooks))
    pages.append("references")
    intro = [f"# {TITLE}", "",
             "A hands-on course on BERTScore: from why BLEU and ROUGE miss paraphrases to a from-scratch "
             "BERTScore equal to the reference `bert-score` library, and, on real human judgments, when and "
             "why it works.", "",
             "```{note}",
             "This is the course as a book, for reading: every chapter with the outputs stored when it was "
             "last run. To run the chapters and do the exercises, get the course folder and run `make lab` "
             "(see the README's *Quick start*); `make book` builds this site.",
             "```", "", course_map_page()]
    (src / "index.md").write_text("\n".join(intro) + "\n")
    # not in the source _static (Jupyter Book would add every .js there to every page):
    # html_extra_path copies _extra/_static/mathjax to the site's _static/mathjax
    shutil.copytree(mathjax_folder(), src / "_extra" / "_static" / "mathjax", ignore=shutil.ignore_patterns("*.md"))
    (src / "_static").mkdir()
    (src / "_static" / "course.css").write_text(CSS)
    (src / "_config.yml").write_text(config(f"mathjax/MathJax.js?config={MATHJAX_CONFIG}"))
    (src / "_toc.yml").write_text(toc(pages))
    return pages


def mathjax_folder() -> Path:
    """MathJax 2 as jupyter-server-mathjax ships it (the book's extra installs it)."""
    import jupyter_server_mathjax

    return Path(jupyter_server_mathjax.__file__).parent / "static"


def build(out: Path = BUILD, strict: bool = False) -> Path:
    """Build the book; returns the folder of its HTML (index.html inside)."""
    src = out / "src"
    write_source(src)
    cmd = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(src), "--path-output", str(out),
           "--builder", "html"]
    if strict:
        cmd += ["--warningiserror", "--keep-going"]
    html = out / "_build" / "html"
    if html.exists():
        shutil.rmtree(html)
    subprocess.run(cmd, check=True)
    for page_path in html.glob("*.html"):
        page_path.write_text(finish(page_path.read_text()))
    return html


THEBE_SCRIPT = re.compile(r"[ \t]*<script>const THEBE_JS_URL = .*?</script>\n?")
OUTPUT_IMAGE = re.compile(r'(<img [^>]*?src="(_images/[^"]+)"[^>]*>)')


def finish(page: str) -> str:
    """One HTML page as Sphinx wrote it -> as the book serves it: each figure (an image under
    _images/, which is where notebook outputs go) a link to its full-size file; sphinx-thebe's
    THEBE_JS_URL script once, not twice (Jupyter Book 1 adds it twice; thebe is off)."""
    for extra in reversed(list(THEBE_SCRIPT.finditer(page))[1:]):
        page = page[:extra.start()] + page[extra.end():]
    return OUTPUT_IMAGE.sub(r'<a class="course-figure" href="\2">\1</a>', page)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--install", action="store_true", help="install the book's pinned packages first")
    parser.add_argument("--strict", action="store_true", help="warnings are errors (CI)")
    parser.add_argument("--out", type=Path, default=BUILD, help=f"build folder (default {BUILD})")
    args = parser.parse_args(argv)
    if args.install:
        install()
    start = time.perf_counter()
    html = build(args.out, strict=args.strict)
    print(f"The book: {html / 'index.html'} (open it in a browser; built in {time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
