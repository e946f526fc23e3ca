"""`make demo` and `make present`: start the demo on this machine, leaving the tree untouched.

    python -m course_lib.demo.launch lab       # JupyterLab on a copy of notebooks/demo.ipynb
    python -m course_lib.demo.launch present   # Voilà: the widgets alone, no code, one page

Both serve a temporary folder (deleted on exit), so JupyterLab's autosave and checkpoints never
rewrite notebooks/demo.ipynb. Both listen on 127.0.0.1 only and require a token: JUPYTER_TOKEN
when set, else a random one printed in the URL; JUPYTER_PORT picks the port (default: Jupyter's
8888, Voilà's 8866). Extra arguments go to jupyter lab / voila (e.g. --no-browser).
Voilà runs the presenter notebook before it sends the page, so the model is loaded by the time
the page appears.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from course_lib.paths import NOTEBOOKS

PRESENTER_SOURCE = "from course_lib.demo.launch import presenter\npresenter();"


def presenter(preset: str = "lawyer / attorney"):
    """The presenter page: a title, then the pair demo and the class view in two tabs."""
    import ipywidgets as w
    from IPython.display import display

    from course_lib.demo.widgets import ClassView, Demo

    demo, classes = Demo(preset=preset, scroll=False), ClassView()
    tabs = w.Tab([demo.widget, classes.widget], titles=("One pair", "A class set"),
                 layout=w.Layout(width="100%"))
    tabs.add_class("bertscore-demo-present")
    title = w.HTML("<h2 style='margin:4px 0'>BERTScore, live</h2>")
    display(w.VBox([title, tabs], layout=w.Layout(width="100%")))
    return demo, classes


def presenter_notebook() -> dict:
    """A one-cell notebook that shows `presenter()` (what Voilà serves)."""
    return {"nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "cells": [{"cell_type": "code", "id": "widgets", "metadata": {}, "execution_count": None,
                       "outputs": [], "source": PRESENTER_SOURCE}]}


def command(mode: str, folder: Path, extra: list[str], token: str) -> list[str]:
    """The jupyter lab / voila command line for `mode` serving `folder`."""
    bindir = Path(sys.executable).parent
    root = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    port = [f"--port={os.environ['JUPYTER_PORT']}"] if os.environ.get("JUPYTER_PORT") else []
    if mode == "lab":
        shutil.copy(NOTEBOOKS / "demo.ipynb", folder / "demo.ipynb")
        return [str(bindir / "jupyter"), "lab", "--ip=127.0.0.1", f"--ServerApp.root_dir={folder}",
                "--LabApp.default_url=/lab/tree/demo.ipynb", f"--IdentityProvider.token={token}",
                *port, *root, *extra]
    if mode == "present":
        (folder / "present.ipynb").write_text(json.dumps(presenter_notebook()))
        return [str(bindir / "voila"), str(folder / "present.ipynb"), "--Voila.ip=127.0.0.1",
                f"--token={token}", f"--Voila.root_dir={folder}", *port, *extra]
    raise SystemExit(f"unknown mode {mode!r}: use 'lab' or 'present'")


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        raise SystemExit(__doc__)
    mode, extra = argv[0], argv[1:]
    signal.signal(signal.SIGTERM, _interrupt)  # stopped by `kill` too: still delete the copy
    token = os.environ.get("JUPYTER_TOKEN") or secrets.token_urlsafe(24)
    folder = Path(tempfile.mkdtemp(prefix="bertscore-demo-"))
    try:
        cmd = command(mode, folder, extra, token)
        print(f"Serving a temporary copy from {folder} (deleted on exit).", flush=True)
        process = subprocess.Popen(cmd)
        try:
            return process.wait()
        except KeyboardInterrupt:
            process.terminate()
            return process.wait()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
