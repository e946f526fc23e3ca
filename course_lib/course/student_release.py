"""A copy of the course for students, without solutions: `make student-release OUT=DIR`.

    python -m course_lib.course.student_release DIR

DIR gets notebooks/ (the student notebooks of notebooks/student/, without the line naming the
solution notebooks, and the chapters without exercises, such as 00), course_lib/, data/, requirements.txt, requirements-runtime.txt,
pyproject.toml, the Makefile (make setup, lab, check work there) and a README.md made of the
README's student part. Left out (LEFT_OUT, listed in the README): the solution notebooks, the demo
notebook, tests/, figures/, the CI scripts and the book's sources.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

from course_lib.course.exercises import SOLUTIONS_LINE, STUDENT
from course_lib.paths import NOTEBOOKS

ROOT = NOTEBOOKS.parent
COPIED = ["course_lib", "data", "requirements.txt", "requirements-runtime.txt", "pyproject.toml", "Makefile"]
LEFT_OUT = ["notebooks/NN_*.ipynb (the solution notebooks, with outputs)", "notebooks/demo.ipynb", "tests/",
            "figures/", ".ci/", "the rest of README.md (instructor guide, library, tests, performance)"]
# The first cell of every released notebook: installs the course where course_lib is missing (Colab, a
# bare hub) from the one URL the instructor gives `make student-release ... COURSE_URL=`; does nothing
# where the course is present.
SETUP_CELL = """# Set-up for Colab or a hub without the course: does nothing where course_lib is installed.
COURSE_URL = {url!r}  # the course's archive (.zip or .tar.gz), set by the instructor
import importlib.util, os, sys
if importlib.util.find_spec("course_lib") is None:
    import pathlib, shutil, subprocess, urllib.request
    home = pathlib.Path.home() / "bertscore-course"
    if not any(home.glob("**/course_lib/__init__.py")):
        if not COURSE_URL:
            raise RuntimeError("course_lib is missing and COURSE_URL is not set: ask your instructor")
        archive, _ = urllib.request.urlretrieve(COURSE_URL)  # https:// or file://
        shutil.unpack_archive(archive, home, format="zip" if COURSE_URL.endswith(".zip") else "gztar")
    root = next(home.glob("**/course_lib/__init__.py")).parent.parent
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-r", str(root / "requirements-runtime.txt")],
                   check=True)
    sys.path.insert(0, str(root))
    os.environ["BERTSCORE_COURSE_ROOT"] = str(root)
    os.chdir(root / "notebooks")
"""


def setup_cell(url: str) -> dict:
    """SETUP_CELL as a notebook cell (tagged course-setup), with the archive's `url`."""
    return {"cell_type": "code", "execution_count": None, "metadata": {"tags": ["course-setup"]}, "outputs": [],
            "source": SETUP_CELL.format(url=url)}


_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


# What a release has not: a paragraph or a code line naming one of these is the course repository's, not the student's
_NOT_SHIPPED = re.compile(r"tests/|test_|make test|make student\b|make book|make run|make bench|notebooks/demo|"
                          r"notebooks/NN_|notebooks/student|student-release|nbval|pytest|RUNTIMES|make memory")
STUDENT_COMMANDS = ("make lab                                      # the first time sets everything up (2-5 min), "
                    "then opens the course in JupyterLab\n"
                    "make check NB=work/01_lexical_metrics.ipynb   # checks your answers in a chapter, one line per "
                    "exercise\n")
RELEASE_NOTE = ("This copy of the course is for students: it leaves out the solutions, the tests, the live demo and the "
                "instructor's guide.\n")


def _keep(block: str) -> str:
    """A paragraph of the README as a release shows it: code blocks lose the lines naming what a release
    lacks; a prose paragraph naming it goes whole."""
    if block.startswith("```"):
        return "\n".join(line for line in block.splitlines() if not _NOT_SHIPPED.search(line))
    return "" if _NOT_SHIPPED.search(block) else block


def student_readme(readme: str) -> str:
    """The README's title, quick start (its commands: make lab and make check), course map (its links to what
    a release ships) and "For students" section, without what names the repository's own files
    (tests, solution notebooks, the book's sources): `make lab` reads the course map from it."""
    title = readme.split("\n## ", 1)[0].rstrip()
    parts = re.split(r"(?m)^## ", readme)[1:]
    keep = [p for p in parts if p.startswith(("Quick start", "Course map", "For students"))]
    text = "\n".join("## " + p.rstrip() + "\n" for p in keep)
    text = re.sub(r"(?ms)^### Read it as a book\n.*?(?=^<!-- |^## |^### |\Z)", "", text)
    text = re.sub(r"(?s)(## Quick start.*?```bash\n).*?```", lambda m: m.group(1) + STUDENT_COMMANDS + "```", text,
                  count=1)
    text = re.sub(r"(?m)^\|[^\n]*\]\(notebooks/demo\.ipynb\)[^\n]*\n", "", text)  # the demo's row
    text = re.sub(r",? and `solutions/` with the solved chapters", "", text)  # a release has none
    blocks = re.split(r"\n\n(?=\S)", text)
    text = "\n\n".join(b for b in map(_keep, blocks) if b.strip())
    return f"{title}\n\n{RELEASE_NOTE}\n{text.rstrip()}\n"


def write_release(out: Path, url: str = "") -> list[Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        src = ROOT / name
        if not src.exists():
            continue
        if src.is_dir():
            shutil.copytree(src, out / name, ignore=_IGNORE, dirs_exist_ok=True)
        else:
            shutil.copy2(src, out / name)
    (out / "notebooks").mkdir(exist_ok=True)
    written = []
    from course_lib.course.exercises import solution_notebooks

    with_exercises = {p.name for p in solution_notebooks()}
    plain = [p for p in sorted(NOTEBOOKS.glob("[0-9][0-9]*_*.ipynb")) if p.name not in with_exercises]
    for path in plain + sorted(STUDENT.glob("*.ipynb")):  # chapters without exercises (00) as they are
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown":
                text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                cell["source"] = SOLUTIONS_LINE.sub("", text)
        nb["cells"].insert(0, setup_cell(url))
        for cell in nb["cells"]:
            cell.pop("id", None)
        nb["nbformat_minor"] = 4
        target = out / "notebooks" / path.name
        target.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(target)
    (out / "README.md").write_text(student_readme((ROOT / "README.md").read_text(encoding="utf-8")))
    (out / "Makefile").write_text(student_makefile((ROOT / "Makefile").read_text(encoding="utf-8")))
    return written


STUDENT_TARGETS = ("help", "setup", "lab", "check", "clean")  # what a release can run: no tests, solutions, demo


def student_makefile(makefile: str) -> str:
    """The Makefile with `make help` listing only STUDENT_TARGETS: the other targets' "## make" lines become plain
    comments (their rules stay, but they need what the release leaves out)."""
    def keep(match: re.Match) -> str:
        return match.group(0) if match.group(1) in STUDENT_TARGETS else "# (course repository) " + match.group(0)[3:]

    return re.sub(r"^## make ([\w-]+).*$", keep, makefile, flags=re.M)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--url", default="", help="where the course's archive will be (COURSE_URL)")
    args = parser.parse_args(argv)
    written = write_release(args.out, args.url)
    print(f"wrote {len(written)} student notebooks, course_lib, data and README.md to {args.out}")
    print("left out: " + "; ".join(LEFT_OUT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
