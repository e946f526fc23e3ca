"""`make demo` and `make present`: start the demo on this machine, leaving the tree untouched.

    python course_lib/demo/launch.py lab       # JupyterLab on a copy of notebooks/demo.ipynb
    python course_lib/demo/launch.py present   # Voilà: the widgets alone, no code, one page

(`python -m course_lib.demo.launch ...` works too, but imports course_lib, and torch, first: a few
seconds more before the server starts. The launcher itself imports nothing of the course.)

Both serve a temporary folder (deleted on exit), so JupyterLab's autosave and checkpoints never
rewrite notebooks/demo.ipynb, and Run All saves its figure there, not in figures/. Both listen on
127.0.0.1 only and require a token: JUPYTER_TOKEN when set, else a random one. The launcher prints
the one URL to open, with its token, once the server listens, and opens the browser at it
(--no-browser: only print it); the servers' own URL lines are left out of the log (they show the
token as `...`). JUPYTER_PORT picks the port (default: Jupyter's 8888, Voilà's 8866, else a free
one). Other extra arguments go to jupyter lab / voila.

`present`'s kernels are, on Linux, forks of one process that loaded the model while the server
started (`course_lib.demo.forkserver`): each page's kernel is ready in about a second, so reloads in
a row do not each wait for torch and the model; the URL is printed at once. Elsewhere one kernel is
kept preheated: Voilà runs the presenter notebook in it before anyone asks, and the URL is printed
once that kernel is registered (a page asked for earlier would get a kernel of its own, loading the
model beside the pool's). Kernels whose page is gone are shut down (`course_lib.demo.kernels`).
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import webbrowser
from pathlib import Path

KERNELS = Path(__file__).with_name("kernels.py")  # copied next to the served notebook, see command()
FORKSERVER = Path(__file__).with_name("forkserver.py")  # the presenter's kernels are forks of a loaded process
PRESENT_KERNEL = "bertscore-present"  # its kernel spec, written in the served folder (on JUPYTER_PATH)
PRESENTER_SOURCE = "from course_lib.demo.presenter import presenter\npresenter();"


def presenter_notebook() -> dict:
    """A one-cell notebook that shows `course_lib.demo.presenter.presenter()` (what Voilà serves)."""
    return {"nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": PRESENT_KERNEL, "display_name": "BERTScore demo",
                                        "language": "python"}},
            "cells": [{"cell_type": "code", "id": "widgets", "metadata": {}, "execution_count": None,
                       "outputs": [], "source": PRESENTER_SOURCE}]}


MANAGER_FLAG = "--VoilaConfiguration.multi_kernel_manager_class=bertscore_demo_kernels.DemoKernelManager"
# Only the lab extensions the page uses (nbgrader's and the notebook's fail outside JupyterLab: console errors)
EXTENSIONS_FLAG = ("--VoilaConfiguration.extension_allowlist=['@voila-dashboards/widgets-manager8', "
                   "'@jupyter-widgets/jupyterlab-manager', 'anywidget']")
PRESENT_FLAGS = ["--preheat_kernel=True", "--pool_size=1", MANAGER_FLAG, EXTENSIONS_FLAG]  # one preheated kernel
# Forked kernels (Linux): no pool (a fork is ready in a second; a pool's kernel handed over mid-render lost widgets)
FORK_FLAGS = [MANAGER_FLAG, EXTENSIONS_FLAG]
DEFAULT_PORTS = {"lab": 8888, "present": 8866}
_MASKED = ("token=", "To access the server", "Or copy and paste", "file://", "is running at:")
# = course_lib.demo.kernels.POOL_STARTED (tests/test_demo_launch.py checks it), written here again because this
# module is imported inside the demo's kernel (presenter), which should not import jupyter_server for one string
POOL_STARTED = "Preheated kernel started"
POOL_WAIT_S = 30  # print the URL anyway this long after the server listens


def url_of(mode: str, port: int, token: str) -> str:
    """The page to open, with its token."""
    path = "/lab/tree/demo.ipynb" if mode == "lab" else "/"
    return f"http://127.0.0.1:{port}{path}?token={token}"


def pick_port(mode: str) -> int:
    """JUPYTER_PORT when set, else the server's usual port if free, else any free port."""
    if os.environ.get("JUPYTER_PORT"):
        return int(os.environ["JUPYTER_PORT"])
    for port in (DEFAULT_PORTS[mode], 0):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise SystemExit("no free port on 127.0.0.1")


def lab_command(folder: Path, page: str, port: int, extra: list[str]) -> list[str]:
    """jupyter lab serving `folder` on 127.0.0.1:`port`, opening `page` (a path inside `folder`) first.
    The token is not on it: the server reads it from JUPYTER_TOKEN (a token on the command line shows
    in `ps`, and the servers then print it masked)."""
    return [sys.executable, "-m", "jupyterlab", "--ip=127.0.0.1", f"--ServerApp.root_dir={folder}",
            f"--LabApp.default_url=/lab/tree/{page}", f"--port={port}", "--ServerApp.port_retries=0",
            "--ServerApp.open_browser=False", *_root_flag(), *extra]


def _root_flag() -> list[str]:
    """Jupyter refuses to run as root (containers, CI machines) unless told it may."""
    return ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []


def command(mode: str, folder: Path, extra: list[str], port: int) -> list[str]:
    """The jupyter lab / voila command line for `mode` serving `folder` (this Python's servers,
    whatever their scripts' first line says); the token is not on it (see lab_command)."""
    if mode == "lab":
        from course_lib.paths import NOTEBOOKS

        shutil.copy(NOTEBOOKS / "demo.ipynb", folder / "demo.ipynb")
        return lab_command(folder, "demo.ipynb", port, extra)
    if mode == "present":
        (folder / "present.ipynb").write_text(json.dumps(presenter_notebook()))
        # the kernel manager as a module of its own in the served folder (on the server's PYTHONPATH):
        # importing it as course_lib.demo.kernels would import course_lib, and torch, into the server
        shutil.copy(KERNELS, folder / "bertscore_demo_kernels.py")
        write_template(folder)
        write_kernel_spec(folder)
        return [sys.executable, "-m", "voila", str(folder / "present.ipynb"), "--Voila.ip=127.0.0.1", "--token",
                f"--Voila.root_dir={folder}", f"--port={port}", "--Voila.port_retries=0", "--no-browser",
                f"--template={TEMPLATE}", *(FORK_FLAGS if forks() else PRESENT_FLAGS), *extra]
    raise SystemExit(f"unknown mode {mode!r}: use 'lab' or 'present'")


# Voilà's "lab" template asks a CDN for Font Awesome's style sheets on every page (the requests fail
# offline, after a wait); the presenter page uses no icon font. This template is "lab" without them:
# the block as lab writes it, less its two <link>s, then lab's parent's block (Jinja's super.super()).
TEMPLATE = "bertscore-present"
TEMPLATE_INDEX = """{%- extends 'lab/index.html.j2' -%}
{% import "spinner.macro.html.j2" as spinner %}
{%- block notebook_css -%}
  {% if frontend == "voila" %}
    {{ resources.include_js("static/voila-style.js") }}
  {% endif %}
  {{ spinner.css() }}
  <style>
    .jp-mod-noOutputs.jp-mod-noInput { display: none; }
  </style>
  {{ super.super() }}
{%- endblock notebook_css -%}
"""


def write_template(folder: Path) -> None:
    """The presenter's Voilà template in `folder`/voila/templates (on the server's JUPYTER_PATH)."""
    where = folder / "voila" / "templates" / TEMPLATE
    where.mkdir(parents=True)
    (where / "conf.json").write_text(json.dumps({"base_template": "lab"}))
    (where / "index.html.j2").write_text(TEMPLATE_INDEX)


def write_kernel_spec(folder: Path) -> None:
    """The presenter's kernel spec in `folder`/kernels: a fork of the loaded process (forkserver.py),
    or an ordinary ipykernel where that process is missing (forkserver.py falls back by itself)."""
    where = folder / "kernels" / PRESENT_KERNEL
    where.mkdir(parents=True)
    spec = {"argv": [sys.executable, str(FORKSERVER), "kernel", "-f", "{connection_file}"],
            "display_name": "BERTScore demo", "language": "python", "interrupt_mode": "signal"}
    (where / "kernel.json").write_text(json.dumps(spec))


def forks() -> bool:
    """Whether `make present`'s kernels are forks of a loaded process (course_lib.demo.forkserver)."""
    return sys.platform.startswith("linux")


def start_forkserver(folder: Path, env: dict) -> subprocess.Popen | None:
    """The process that loads the model once for every kernel of `make present` (Linux; elsewhere
    the kernels load it themselves). Its socket's path goes into `env` (Voilà's, and so the kernels')."""
    if not forks():
        return None
    env["BERTSCORE_FORKSERVER"] = str(folder / "forkserver.sock")
    return subprocess.Popen([sys.executable, str(FORKSERVER), "serve", env["BERTSCORE_FORKSERVER"]], env=env,
                            stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, bufsize=1)


def _forward(stream, out, ready: threading.Event, ready_line: str | None) -> None:
    """Copy the server's log, leaving out its own URL lines (their token is masked: `?token=...`);
    set `ready` when a line says `ready_line`."""
    for line in stream:
        if ready_line and ready_line in line:
            ready.set()
        if not any(m in line for m in _MASKED):
            out.write(line)
            out.flush()


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def open_browser(url: str, folder: Path) -> None:
    """Open `url` in the default browser through a local redirect page written in `folder` (so the
    token is not on the browser's command line), as Jupyter does."""
    page = folder / "open.html"
    page.write_text(f'<meta http-equiv="refresh" content="0;url={url}"><a href="{url}">{url}</a>')
    page.chmod(0o600)
    threading.Thread(target=webbrowser.open, args=(page.as_uri(),), daemon=True).start()


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def serve(cmd: list[str], env: dict, port: int, url: str, label: str, browser: bool,
          ready_line: str | None = None, beside=None, after: str = "") -> int:
    """Run the server `cmd` until it ends (or Ctrl-C / kill): print "`label`: `url`" once it listens
    (with `ready_line`, once its log or that of `beside`, the loaded process, says it, or POOL_WAIT_S
    later), then `after` (what to do), open the browser at it unless `browser` is False, and forward its log
    without its own URL lines."""
    signal.signal(signal.SIGTERM, _interrupt)  # stopped by `kill` too: the caller still cleans up
    process = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    ready = threading.Event()
    for stream in (process.stdout, beside.stderr if beside is not None else None):
        if stream is not None:
            threading.Thread(target=_forward, args=(stream, sys.stdout, ready, ready_line), daemon=True).start()
    page_folder = Path(tempfile.mkdtemp(prefix="bertscore-open-"))
    try:
        while process.poll() is None and not _listening(port):
            time.sleep(0.2)
        if ready_line:  # the first page finds the model loaded (or the preheated kernel)
            deadline = time.monotonic() + POOL_WAIT_S
            while process.poll() is None and not ready.wait(0.2) and time.monotonic() < deadline:
                pass
        if process.poll() is None:
            print(f"\n    {label}: {url}\n" + (f"\n{after}\n" if after else ""), flush=True)
            if browser:
                open_browser(url, page_folder)
        return process.wait()
    except KeyboardInterrupt:
        process.terminate()
        return process.wait()
    finally:
        shutil.rmtree(page_folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        raise SystemExit(__doc__)
    mode, extra = argv[0], argv[1:]
    browser = "--no-browser" not in extra
    extra = [a for a in extra if a != "--no-browser"]
    signal.signal(signal.SIGTERM, _interrupt)  # stopped by `kill` before the server runs too: still delete the copy
    token = os.environ.get("JUPYTER_TOKEN") or secrets.token_urlsafe(24)
    port = pick_port(mode) if mode in DEFAULT_PORTS else 0
    folder = Path(tempfile.mkdtemp(prefix="bertscore-demo-"))
    env = dict(os.environ, JUPYTER_TOKEN=token)
    if mode == "present":  # the kernel manager module and the template, both in the served folder
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
        env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(folder), os.environ.get("JUPYTER_PATH")]))
    loaded = start_forkserver(folder, env) if mode == "present" else None  # loads while the server starts
    if mode == "lab":  # Run All saves the class-ranking figure: into the copy, not the course's figures/
        env["COURSE_FIGURES"] = str(folder / "figures")
    try:
        cmd = command(mode, folder, extra, port)
        print(f"Serving a temporary copy from {folder} (deleted on exit).", flush=True)
        # forks: the URL at once (the page loads in the browser while the model loads; its kernel then forks);
        # a pool: once the pool's kernel is registered (a page asked for before would load the model beside it)
        ready_line = POOL_STARTED if mode == "present" and loaded is None else None
        return serve(cmd, env, port, url_of(mode, port, token), "The demo", browser, ready_line, loaded)
    finally:
        if loaded is not None:
            loaded.terminate()
            loaded.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
