"""`make present`'s kernels start in a second: each is forked from a process that loaded the model.

    python course_lib/demo/forkserver.py serve SOCKET      # the loaded process (the launcher starts it)
    python course_lib/demo/forkserver.py kernel -f FILE    # a kernel (the presenter's kernel spec runs this)

A fresh Python kernel spends 15-20 s of a 2-core machine importing torch and transformers and
loading the model before the page can draw; Voilà keeps one such kernel ready, but a second reload
within those seconds found none and waited for all of it. Here one process (`serve`) imports
everything the presenter page uses and loads the model once, then waits. A kernel started by
Voilà (`kernel`, a small script that imports nothing of the course) asks it over a Unix socket for
a kernel: the loaded process forks, and the fork runs ipykernel on Voilà's connection file, with the
asking script's environment, folder and standard streams. The script stays as the kernel's
stand-in for the server: it passes on the signals it gets (interrupt, terminate) and ends when the
fork ends; the fork ends when the script does. The forks share the model's memory with the loaded
process (nothing writes to the weights), so each kernel costs little more than its own work.

Linux only (fork after importing torch is safe there while no thread runs: the loaded process
checks that it has one thread, and never runs the model). Elsewhere, or when nothing answers on
the socket, `kernel` runs an ordinary ipykernel instead.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time

ENV = "BERTSCORE_FORKSERVER"  # the socket's path, in the environment of Voilà and its kernels
CONNECT_S = 30  # a kernel asked for before the loaded process opened its socket waits this long for it


def warm() -> None:
    """Import what the presenter page and its kernel use, and load the model (no forward pass:
    that would start torch's thread pool, which a fork cannot use)."""
    import ipykernel.ipkernel  # noqa: F401
    import ipykernel.kernelapp  # noqa: F401
    import ipywidgets  # noqa: F401
    import matplotlib_inline.backend_inline  # noqa: F401

    import transformers.utils.import_utils as hf_imports

    # transformers imports scikit-learn (2.3 s of this start-up's 9.5) only for assisted text
    # generation's roc_curve; no kernel of this process generates text.
    hf_imports._sklearn_available = False
    from course_lib.demo import class_view, presenter, widgets  # noqa: F401
    from course_lib.demo.inputs import demo_setting

    demo_setting()  # the model, its tokenizer and the baseline: what every demo score reads


def serve(path: str) -> None:
    """Load everything once, then fork a kernel for each request on the Unix socket `path`."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)  # at once: a kernel asked for while the model loads waits in the queue
    listener.listen(16)
    warm()
    import threading

    if threading.active_count() != 1:
        raise SystemExit(f"forkserver: {threading.active_count()} threads after loading; a fork would hang")
    signal.signal(signal.SIGCHLD, lambda *_: _reap())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in the launcher's terminal: the launcher ends us
    print(f"forkserver: ready ({time.process_time():.1f} s of CPU to load)", file=sys.stderr, flush=True)
    while True:
        conn, _ = listener.accept()
        with conn:
            try:
                request, fds = _receive(conn)
            except (OSError, ValueError):
                continue
            pid = os.fork()
            if pid == 0:
                listener.close()
                _kernel(request, fds)  # never returns
            for fd in fds:
                os.close(fd)
            try:
                conn.sendall(f"{pid}\n".encode())
            except OSError:  # the asker is gone: its fork follows it (see _follow)
                pass


def _reap() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    """One request: a JSON line, with the asker's stdin, stdout and stderr passed along."""
    data, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    while not data.endswith(b"\n"):
        more = conn.recv(1 << 20)
        if not more:
            raise ValueError("request cut short")
        data += more
    return json.loads(data), fds


def _kernel(request: dict, fds: list[int]) -> None:
    """In the fork: become the asker's kernel (its streams, folder, environment) and run ipykernel."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # an interrupt stops the running cell
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.path[0] = ""  # as `python -m ipykernel_launcher`: the notebook's folder first
        _follow(request["asker"])
        # parent_handle: ipykernel's poller ends the kernel if the loaded process goes (and it prints no
        # "Ctrl-C will not work" banner, which is for kernels started by hand)
        sys.argv = ["ipykernel_launcher", *request["argv"], f"--IPKernelApp.parent_handle={os.getppid()}"]
        from ipykernel.kernelapp import launch_new_instance

        launch_new_instance()
        code = 0
    except SystemExit as end:
        code = end.code if isinstance(end.code, int) else 0
    except BaseException:  # on the asker's stderr (the server's log), then out
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _follow(asker: int) -> None:
    """End this kernel when the script that asked for it is gone (the server killed it)."""
    import threading

    def watch():
        while _alive(asker):
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="forkserver-asker").start()


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, ended but not yet waited for by its parent, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def kernel(argv: list[str]) -> None:
    """Voilà's kernel: a fork of the loaded process when one answers, else an ordinary ipykernel."""
    path = os.environ.get(ENV)
    if not path or not sys.platform.startswith("linux"):
        _plain(argv)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    deadline = time.monotonic() + CONNECT_S
    while not os.path.exists(path) and time.monotonic() < deadline:  # the loaded process is starting
        time.sleep(0.1)
    try:
        conn.connect(path)
        request = {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd(), "asker": os.getpid()}
        socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
        reply = conn.makefile().readline()
        pid = int(reply)
    except (OSError, ValueError):
        conn.close()
        _plain(argv)
    conn.close()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, lambda signum, _frame: _pass_on(pid, signum))
    while _alive(pid):
        time.sleep(0.2)


def _pass_on(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _plain(argv: list[str]) -> None:
    os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv])


if __name__ == "__main__":
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        sys.path[0] = ""  # run as a script: the demo's own modules are not top-level modules
    if sys.argv[1:2] == ["serve"]:
        serve(sys.argv[2])
    elif sys.argv[1:2] == ["kernel"]:
        kernel(sys.argv[2:])
    else:
        raise SystemExit(__doc__)
