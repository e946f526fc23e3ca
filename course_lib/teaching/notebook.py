"""One call at the top of every chapter: quiet libraries, fixed plot style, a figures folder."""
from __future__ import annotations

import logging
import os
import random
import warnings
from pathlib import Path

from course_lib.paths import DATA, FIGURES


def setup(seed: int = 0, figsize=(7.0, 4.5), dpi: int = 100) -> None:
    """Silence transformers' logging and progress bars, fix seeds, plot style and size."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import matplotlib
    import matplotlib.pyplot as plt
    import numpy as np
    import seaborn as sns
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    logging.getLogger("matplotlib").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    sns.set_theme(style="whitegrid", context="notebook")
    matplotlib.rcParams.update({"figure.figsize": figsize, "figure.dpi": dpi, "savefig.dpi": dpi,
                                "savefig.bbox": "tight"})
    FIGURES.mkdir(exist_ok=True)


def save_figure(fig, name: str) -> Path:
    """Save `fig` as figures/<name>.png (a stable name, so the README can link it)."""
    FIGURES.mkdir(exist_ok=True)
    path = FIGURES / f"{name}.png"
    fig.savefig(path)
    return path


def show_source(obj) -> None:
    """Print the source of a course_lib function or class (the notebook never copies it)."""
    import inspect

    print(inspect.getsource(obj))
