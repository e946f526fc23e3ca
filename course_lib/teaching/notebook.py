"""One call at the top of every chapter: quiet libraries, fixed plot style, a figures folder.

Running a chapter never rewrites the course's files: figures go to a per-user output folder
(<user cache>/figures, see course_lib.paths.user_cache_dir) unless the environment variable
COURSE_FIGURES names another folder. `make figures` points it at figures/ to refresh the
committed PNGs on purpose; the test targets point it at a fresh temporary folder. Saved PNGs
carry no metadata that changes between runs or installs, so re-running a chapter on the same
machine writes the same bytes."""
from __future__ import annotations

import importlib.abc
import importlib.util
import logging
import os
import random
import sys
import warnings
from pathlib import Path

from course_lib.paths import DATA, user_cache_dir

FIGURES_ENV = "COURSE_FIGURES"
PALETTE = "colorblind"  # seaborn's colour-blind-safe categorical palette, set by setup()


def figures_dir() -> Path:
    """The folder figures are saved to: $COURSE_FIGURES when set (and not empty), else the
    per-user output folder <user cache>/figures (outside the course folder)."""
    folder = os.environ.get(FIGURES_ENV)
    return Path(folder) if folder else user_cache_dir() / "figures"


def setup(seed: int = 0, figsize=(7.0, 4.5), dpi: int = 100) -> None:
    """Silence transformers' logging and progress bars, fix seeds, plot style and size."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import numpy as np

    quick = os.environ.get("COURSE_QUICK_SETUP") == "1"  # `make check EX=...`: checks only, nothing drawn
    logging.getLogger("matplotlib").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    random.seed(seed)
    np.random.seed(seed)
    figures_dir().mkdir(parents=True, exist_ok=True)
    if quick:  # torch and transformers (seconds to import) are set up when something imports them
        when_imported("torch", lambda torch: torch.manual_seed(seed))
        when_imported("transformers", _quiet_transformers)
        return
    import torch
    import transformers

    _quiet_transformers(transformers)
    torch.manual_seed(seed)
    import matplotlib
    import seaborn as sns

    # Categorical colours: seaborn's "colorblind" palette, told apart with the common colour-vision
    # deficiencies (matplotlib's default tab10 puts red beside green); heatmaps keep viridis. Series
    # never differ by colour alone: give them markers, line styles or labels too.
    sns.set_theme(style="whitegrid", context="notebook", palette=PALETTE)
    matplotlib.rcParams.update({"figure.figsize": figsize, "figure.dpi": dpi, "savefig.dpi": dpi,
                                "savefig.bbox": "tight", "svg.hashsalt": "bertscore-course"})


def _quiet_transformers(transformers) -> None:
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()


class _WhenImported(importlib.abc.MetaPathFinder):
    """Runs `then(module)` right after `name` is first imported (once; then steps aside)."""

    def __init__(self, name: str, then):
        self.name, self.then = name, then

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            exec_module, then = spec.loader.exec_module, self.then

            def exec_then(module):
                exec_module(module)
                then(module)

            spec.loader.exec_module = exec_then
        return spec


def when_imported(name: str, then) -> None:
    """Call `then(module)` now if `name` is already imported, else right after its first import."""
    if name in sys.modules:
        then(sys.modules[name])
    else:
        sys.meta_path.insert(0, _WhenImported(name, then))


def save_figure(fig, name: str) -> Path:
    """Save `fig` as <figures_dir()>/<name>.png (a stable name: `make figures` writes the
    README's figures/<name>.png). No "Software" entry (it names the matplotlib version), so the
    bytes depend only on what is drawn."""
    folder = figures_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    fig.savefig(path, metadata={"Software": None})
    return path


def show_source(obj) -> None:
    """Print the source of a course_lib function or class (the notebook never copies it)."""
    import inspect

    print(inspect.getsource(obj))
