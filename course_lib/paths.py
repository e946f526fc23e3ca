"""Where the course's folders are: the course root holds data/, figures/ and notebooks/.

In a clone of the course, the root is the folder above course_lib/. When course_lib is
installed on its own (`pip install .`), set BERTSCORE_COURSE_ROOT to the course folder, or work
from inside it: the root is then the first folder, from the current one upwards, that holds
data/ and notebooks/. The library's own files (baseline, demo presets) ship inside the package
(course_lib.resources) and need no course root.
"""
from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "BERTSCORE_COURSE_ROOT"
CACHE_ENV = "COURSE_CACHE"


def _is_course_root(folder: Path) -> bool:
    return (folder / "data").is_dir() and (folder / "notebooks").is_dir()


def find_root() -> Path | None:
    """The course root (see the module's docstring), or None when there is none."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser().resolve()
    here = Path(__file__).resolve().parent.parent
    for folder in (here, Path.cwd(), *Path.cwd().parents):
        if _is_course_root(folder):
            return folder
    return None


ROOT = find_root() or Path.cwd()
DATA = ROOT / "data"
FIGURES = ROOT / "figures"
NOTEBOOKS = ROOT / "notebooks"


def user_cache_dir() -> Path:
    """The per-user folder for what running the course produces (figures, remembered exercise
    attempts), never inside the course folder: $COURSE_CACHE when set, else the OS's cache folder
    (~/.cache/bertscore-course or $XDG_CACHE_HOME/bertscore-course on Linux,
    ~/Library/Caches/bertscore-course on macOS, %LOCALAPPDATA%\\bertscore-course\\Cache on Windows)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    try:
        import platformdirs  # comes with Jupyter

        return Path(platformdirs.user_cache_dir("bertscore-course", appauthor=False))
    except ImportError:  # pragma: no cover
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        return Path(base) / "bertscore-course"


class CourseDataNotFound(FileNotFoundError):
    """A data file of the course is not where the course keeps it."""


def data_file(*parts: str) -> Path:
    """The path of data/<parts...>, or a clear error naming what is missing and how to get it."""
    path = DATA.joinpath(*parts)
    if not path.is_file():
        raise CourseDataNotFound(
            f"The course's data file {'/'.join(('data',) + parts)} was not found (looked in {DATA}). "
            f"The data sets come with the course folder, not with the course_lib package: clone the "
            f"course and work inside it, or set {ENV_VAR} to the course folder.")
    return path
