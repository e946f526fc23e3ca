"""Starting and stopping the demo's servers for the tests (make demo, make present, the launcher).

Every server listens on 127.0.0.1 on a free port with a random token, in its own process group
(stopped with the kernels it started), with Jupyter's data, settings, runtime and workspace
folders in a temporary directory (so a user's own kernels and settings play no part).
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "demo.ipynb"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def isolated_env(tmp: Path, port: int, token: str | None, lab_settings: dict | None = None) -> dict:
    """Environment for a server: offline, its own Jupyter folders, port and token (None: no
    JUPYTER_TOKEN at all, as a user has it: the launcher makes one up), no browser."""
    settings = tmp / "lab-settings"
    for name, values in (lab_settings or {}).items():
        path = settings / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               JUPYTER_DATA_DIR=str(tmp / "jupyter-data"), JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "lab-workspaces"),
               JUPYTER_RUNTIME_DIR=str(tmp / "runtime"), JUPYTER_CONFIG_DIR=str(tmp / "config"),
               JUPYTER_PORT=str(port), BROWSER="true")
    env.pop("JUPYTER_TOKEN", None)
    if token is not None:
        env["JUPYTER_TOKEN"] = token
    return env


class Server:
    """A server process started from `cmd`; `url(path)` adds the token; `stop()` ends the group.
    With `own_token=False` the test sets no JUPYTER_TOKEN: the token is the one in the URL the
    launcher prints (`printed_url()`)."""

    def __init__(self, cmd: list[str], tmp: Path, lab_settings: dict | None = None, own_token: bool = True,
                 extra_env: dict | None = None):
        self.port, self.token = free_port(), (secrets.token_hex(16) if own_token else None)
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = tmp / f"server-{self.port}.log"
        self._log = open(self.log_path, "w")
        self.started = time.monotonic()
        env = {**isolated_env(tmp, self.port, self.token, lab_settings), **(extra_env or {})}
        cmd = [a.replace("{port}", str(self.port)) for a in cmd]  # a server that ignores JUPYTER_PORT
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def url(self, path: str = "/") -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}{path}{sep}token={self.token}"

    def printed_url(self, timeout: float = 120) -> str:
        """The URL the launcher printed (the one line a user copies); its token becomes self.token."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(r"The (?:demo|course): (http://\S+)", self.log_path.read_text(errors="replace"))
            if found:
                self.token = re.search(r"[?&]token=([^&\s]+)", found.group(1)).group(1)
                return found.group(1)
            if self.proc.poll() is not None:
                raise RuntimeError(f"launcher exited with code {self.proc.returncode}:\n{self.log()}")
            time.sleep(0.2)
        raise TimeoutError(f"the launcher printed no URL within {timeout:.0f} s:\n{self.log()}")

    def kernels(self) -> list:
        """The kernel processes this server started (psutil.Process), and their memory."""
        import psutil

        try:
            tree = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        found = []
        for p in tree:
            try:
                line = " ".join(p.cmdline())
                # a kernel, or, for make present, the stand-in of a kernel forked from the loaded process
                if "ipykernel_launcher" in line or "forkserver.py kernel" in line:
                    found.append(p)
            except psutil.Error:  # ended meanwhile
                pass
        return found

    def kernel_memory_mb(self) -> float:
        """Memory of the kernels, counted once: the proportional set size (PSS: a page shared by n
        processes counts 1/n in each) of every kernel, and for make present of the loaded process and
        its forks (the stand-ins hold none of it)."""
        import psutil

        try:
            tree = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return 0.0
        total = 0
        for p in tree:
            try:
                line = " ".join(p.cmdline())
                if "ipykernel_launcher" in line or "forkserver.py serve" in line:
                    total += p.memory_full_info().pss
            except psutil.Error:
                pass
        return total / 2**20

    def log(self, lines: int = 25) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def copy_folder(self) -> Path | None:
        """The temporary folder the launcher serves (it prints it first)."""
        found = re.search(r"Serving a temporary copy from (\S+) ", self.log_path.read_text(errors="replace"))
        return Path(found.group(1)) if found else None

    def wait(self, path: str = "/api/status", timeout: float = 120, tcp_only: bool = False) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early with code {self.proc.returncode}:\n{self.log()}")
            try:
                if tcp_only:
                    socket.create_connection(("127.0.0.1", self.port), timeout=2).close()
                    return
                with urllib.request.urlopen(self.url(path), timeout=5) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise TimeoutError(f"no answer from {self.base} within {timeout:.0f} s:\n{self.log()}")

    def stop(self) -> int | None:
        """SIGTERM to the whole group (make, the launcher, the server, its kernels), then SIGKILL.
        `self.clean` says whether it ended on SIGTERM (then the launcher deleted its own copy)."""
        self.clean = True
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=90)  # the launcher deletes its copy after the server stops
            except subprocess.TimeoutExpired:
                self.clean = False
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        try:  # stragglers of the group (a kernel) still get the signal
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._log.close()
        folder = self.copy_folder()
        if not self.clean and folder is not None and folder.name.startswith("bertscore-demo-"):
            shutil.rmtree(folder, ignore_errors=True)  # killed before it could delete its copy
        return self.proc.returncode


def make(target: str) -> list[str]:
    """`make <target>`, without remaking the venv stamp (the tests must never reinstall)."""
    return ["make", "--no-print-directory", "-o", ".venv/.installed", target]


def launcher(mode: str, *extra: str) -> list[str]:
    """What `make demo` / `make present` run, with extra server flags for a test."""
    return [sys.executable, str(ROOT / "course_lib" / "demo" / "launch.py"), mode, "--no-browser", *extra]
