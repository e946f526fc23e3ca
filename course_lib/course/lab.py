"""`make lab`: the course in JupyterLab, on your own copies of the notebooks.

    python -m course_lib.course.lab               # what make lab runs
    python -m course_lib.course.lab --no-browser  # only print the URL
    python -m course_lib.course.lab --install     # the "BERTScore course" kernel and JupyterLab's settings (make setup)

JupyterLab saves a notebook you run (autosave every two minutes, Ctrl-S), rewriting its outputs and
metadata. So that running a chapter never rewrites a committed notebook (a later `git pull` would
conflict), `make lab` serves your work folder, `work/` in the course folder (git ignores it;
COURSE_WORK names another), and copies the notebooks into it the first time:

- `work/NN_*.ipynb`: the chapters to work through, exercises blank (the student version, where a
  chapter has exercises);
- `work/solutions/NN_*.ipynb`: the chapters with their solutions and stored outputs (not in a student
  release, which has no solutions);
- `work/demo.ipynb`: the live demo;
- `work/START_HERE.ipynb`: where to start and the course map, opened first (rewritten each time).

A copy you have is never overwritten. When the course's own version has changed since it was copied
(after a `git pull`), the launcher says which copy is older and how to get the new one.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
from pathlib import Path

from course_lib.course.exercises import KERNELSPEC
from course_lib.paths import NOTEBOOKS, ROOT

WORK_ENV = "COURSE_WORK"
START = "START_HERE.ipynb"
MANIFEST = ".course-copies.json"  # {copy: sha256 of the course's notebook when it was copied}
SOLUTIONS = "solutions"
KERNEL, KERNEL_DISPLAY = KERNELSPEC["name"], KERNELSPEC["display_name"]  # the kernel every notebook asks for
# ipykernel >= 7 logs "Kernel is running over TCP without encryption ... eavesdropping" at every start:
# true of any local Jupyter (127.0.0.1 only here), and nothing a student can act on. Errors still show.
KERNEL_ARGS = ["--IPKernelApp.log_level=ERROR"]


def workspace() -> Path:
    """Your work folder: COURSE_WORK when set, else work/ in the course folder."""
    return Path(os.environ[WORK_ENV]).expanduser() if os.environ.get(WORK_ENV) else ROOT / "work"


def sources(notebooks: Path = NOTEBOOKS) -> dict[str, Path]:
    """{copy's path inside the work folder: the course notebook it comes from}."""
    out = {}
    for chapter in sorted(notebooks.glob("[0-9]*.ipynb")):
        student = notebooks / "student" / chapter.name
        out[chapter.name] = student if student.exists() else chapter
        if has_solutions(notebooks):  # a student release's chapters are the blank ones: no solutions/ to copy
            out[f"{SOLUTIONS}/{chapter.name}"] = chapter
    if (notebooks / "demo.ipynb").exists():  # the course map links it too
        out["demo.ipynb"] = notebooks / "demo.ipynb"
    return out


def has_solutions(notebooks: Path = NOTEBOOKS) -> bool:
    """True in the course itself (notebooks/ solved, notebooks/student/ blank); False in a student release."""
    return (notebooks / "student").is_dir()


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def prepare(work: Path, notebooks: Path = NOTEBOOKS) -> list[str]:
    """Copy every course notebook that `work` lacks, write START_HERE; returns what to tell the user
    (copies made, copies older than the course's version)."""
    work.mkdir(parents=True, exist_ok=True)
    manifest_path = work / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    made, older = [], []
    for name, source in sources(notebooks).items():
        copy, digest = work / name, _sha256(source)
        if not copy.exists():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy)
            manifest[name] = digest
            made.append(name)
        elif manifest.get(name) not in (None, digest):
            older.append(name)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    (work / START).write_text(json.dumps(start_page(), indent=1) + "\n")
    notes = []
    if made:
        notes.append(f"Copied {len(made)} notebooks into {work} (yours to run and edit; the course's "
                     "own notebooks stay as they are).")
    for name in older:
        notes.append(f"The course's {name} has changed since you copied it; your copy is kept. For the new "
                     f"one, rename or delete {work / name} and run make lab again.")
    return notes


# How to work a chapter, said once: START_HERE shows it, and the README's "For students" (a student release's
# README) carries the same sentence (tests/test_release.py compares them).
RUN_FIRST = ("Your copies of the chapters with exercises come without outputs: run a chapter top to bottom first "
             "(*Run ▸ Run All Cells*), so that the tables and figures the text calls \"printed above\" are there. "
             "If Run All stops at an exercise you have not done yet (a cell that needs your answer raises an error), "
             "do it, then go on with *Run ▸ Run Selected Cell and All Below*.")


def start_page() -> dict:
    """START_HERE.ipynb: where to start, then the README's course map with links to the copies."""
    from course_lib.course.book import course_map

    chapters = re.sub(r"\]\(notebooks/([^)]+\.ipynb)\)", r"](\1)", course_map())
    intro = (
        "# Start here\n\n"
        "Welcome to *BERTScore, hands-on*. Open **[00_setup_and_tour.ipynb](00_setup_and_tour.ipynb)** first: it "
        "checks your set-up and takes you on a tour. Then work through the chapters in order.\n\n"
        "- The notebooks beside this page are **your copies**: run them, write in them, save them. The exercises "
        "are blank; each one has a check cell that tells you whether your answer is right. " + RUN_FIRST + "\n"
        + (f"- `{SOLUTIONS}/` holds the same chapters with their solutions and outputs, to compare once you "
           "have tried.\n" if has_solutions() else "")
        + "- From a terminal in the course folder, `make check NB=work/04_greedy_matching.ipynb` runs every check of "
        "your copy of a chapter and prints one line per exercise.\n\n"
        "This page is rewritten each time `make lab` starts; your notebooks never are.")
    return {"nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": dict(KERNELSPEC)},
            "cells": [{"cell_type": "markdown", "id": "start", "metadata": {}, "source": intro},
                      {"cell_type": "markdown", "id": "map", "metadata": {}, "source": chapters}]}


# JupyterLab's settings for this environment (its overrides.json): no "Would you like to get notified
# about official Jupyter news?" pop-up and no update check (both go to the network; the course is offline).
LAB_SETTINGS = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}}


def install(prefix: str = sys.prefix) -> Path:
    """Register this Python as the course's Jupyter kernel ("BERTScore course") in `prefix` (the
    virtual environment), its start-up log at error level, and write JupyterLab's settings there
    (LAB_SETTINGS); returns the kernel's folder."""
    from ipykernel.kernelspec import install as install_kernelspec

    folder = Path(install_kernelspec(kernel_name=KERNEL, display_name=KERNEL_DISPLAY, prefix=prefix))
    spec = json.loads((folder / "kernel.json").read_text())
    spec["argv"] = [a for a in spec["argv"] if a not in KERNEL_ARGS] + KERNEL_ARGS
    (folder / "kernel.json").write_text(json.dumps(spec, indent=1) + "\n")
    overrides = Path(prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    overrides.parent.mkdir(parents=True, exist_ok=True)
    overrides.write_text(json.dumps(LAB_SETTINGS, indent=1) + "\n")
    return folder


# What a student's JupyterLab leaves out: nbgrader's instructor tools (its server extensions, which also warn
# "No nbgrader_config.py file found", and its lab extension: the Nbgrader menu, Create Assignment) and Voila's
# server extension (make present is the instructor's; importing voila turns traitlets' deprecation warnings on).
# They are in .venv for the tests; a student's hub or Colab does not have them at all (requirements-runtime.txt).
INSTRUCTOR_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list",
                                "nbgrader.server_extensions.assignment_list",
                                "nbgrader.server_extensions.validate_assignment", "voila.server_extension")
INSTRUCTOR_LAB_EXTENSIONS = ("@jupyter/nbgrader",)


def student_config(folder: Path) -> Path:
    """A Jupyter configuration folder (for JUPYTER_CONFIG_PATH, which outranks the environment's own) in which
    the instructor tools above are off; returns `folder`."""
    (folder / "labconfig").mkdir(parents=True, exist_ok=True)
    off = {name: False for name in INSTRUCTOR_SERVER_EXTENSIONS}
    (folder / "jupyter_server_config.json").write_text(json.dumps({"ServerApp": {"jpserver_extensions": off}}))
    (folder / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {name: True for name in INSTRUCTOR_LAB_EXTENSIONS}}))
    return folder


# JupyterLab's start-up log is ~30 INFO lines, a token deprecation warning from jupyter_server itself and the
# language servers it did not find: nothing a student acts on. Warnings and errors still show.
QUIET = ["--ServerApp.log_level=WARN", "--LabApp.log_level=WARN"]
WHAT_TO_DO = ("Open that link in your browser (make lab tries to open it for you); START_HERE opens first. "
              "Leave this terminal open while you work; Ctrl-C here stops JupyterLab.")


def main(argv: list[str] | None = None) -> int:
    from course_lib.demo import launch

    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--install"]:
        print(f"Installed the kernel {KERNEL_DISPLAY!r} in {install()} and JupyterLab's settings")
        return 0
    browser = "--no-browser" not in argv
    extra = [a for a in argv if a != "--no-browser"]
    work = workspace()
    for note in prepare(work):
        print(note, flush=True)
    token = os.environ.get("JUPYTER_TOKEN") or secrets.token_urlsafe(24)
    port = launch.pick_port("lab")
    config = student_config(Path(tempfile.mkdtemp(prefix="bertscore-lab-")))
    env = dict(os.environ, JUPYTER_TOKEN=token,
               JUPYTER_CONFIG_PATH=os.pathsep.join(filter(None, [str(config), os.environ.get("JUPYTER_CONFIG_PATH")])))
    url = f"http://127.0.0.1:{port}/lab/tree/{START}?token={token}"
    print(f"Serving your work folder {work}.", flush=True)
    try:
        return launch.serve(launch.lab_command(work, START, port, QUIET + extra), env, port, url, "The course",
                            browser, after=WHAT_TO_DO)
    finally:
        shutil.rmtree(config, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
