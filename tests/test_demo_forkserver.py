"""`make present`'s kernels forked from one loaded process (course_lib/demo/forkserver.py), driven by
jupyter_client as Voilà drives them: start, run, interrupt, shut down, killed, and the fallback."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from course_lib.demo import forkserver, launch

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fork server is Linux only")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """The loaded process and a kernel spec for it, as `make present` writes them."""
    folder = tmp_path_factory.mktemp("forkserver")
    launch.write_kernel_spec(folder)
    env = dict(os.environ, JUPYTER_PATH=str(folder))
    process = launch.start_forkserver(folder, env)
    old = {k: os.environ.get(k) for k in ("JUPYTER_PATH", forkserver.ENV)}
    os.environ.update(JUPYTER_PATH=env["JUPYTER_PATH"], **{forkserver.ENV: env[forkserver.ENV]})
    yield process
    process.terminate()
    process.wait(30)
    for k, v in old.items():
        os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)


def start():
    from jupyter_client.manager import start_new_kernel

    return start_new_kernel(kernel_name=launch.PRESENT_KERNEL, startup_timeout=300)


def run(kc, code: str, timeout: float = 120) -> str:
    out = []
    reply = kc.execute_interactive(code, timeout=timeout, output_hook=lambda m: out.append(
        m["content"].get("text", "")) if m["msg_type"] == "stream" else None)
    assert reply["content"]["status"] == "ok", reply["content"]
    return "".join(out)


def forks(process) -> list[psutil.Process]:
    return psutil.Process(process.pid).children()


def gone(pid: int, within: float = 10) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            return True
        time.sleep(0.1)
    return False


def test_a_kernel_is_a_fork_of_the_loaded_process_and_scores(loaded):
    km, kc = start()
    try:
        text = run(kc, "import os, torch\nfrom course_lib.demo.scoring import analyze\n"
                       "r = analyze('The cat sat on the mat.', 'A cat was sitting on the mat.', layer=4)\n"
                       "print(os.getppid(), round(r.F, 4), torch.get_num_threads(), os.getcwd())")
        ppid, f, threads, cwd = text.split()
        assert int(ppid) == loaded.pid, "the kernel is not a fork of the loaded process"
        from course_lib.demo.scoring import analyze

        assert float(f) == pytest.approx(analyze("The cat sat on the mat.", "A cat was sitting on the mat.",
                                                 layer=4).F, abs=1e-4)
        assert int(threads) >= 1 and cwd == os.getcwd()
        # a second kernel comes in seconds: nothing is imported or loaded again
        t = time.monotonic()
        km2, kc2 = start()
        second = time.monotonic() - t
        run(kc2, "print(1)")
        kc2.stop_channels()
        km2.shutdown_kernel()
        assert second < 20, f"a second kernel took {second:.1f} s"
    finally:
        kc.stop_channels()
        km.shutdown_kernel()


def test_an_interrupt_stops_the_running_cell_and_the_kernel_goes_on(loaded):
    km, kc = start()
    try:
        msg = kc.execute("import time\nprint('started', flush=True)\nfor _ in range(600): time.sleep(0.1)")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # interrupt once the cell runs (not before it starts)
            out = kc.get_iopub_msg(timeout=120)
            if out["msg_type"] == "stream" and "started" in out["content"]["text"]:
                break
        km.interrupt_kernel()  # SIGINT to the stand-in, passed on to the fork
        reply = kc.get_shell_msg(timeout=30)
        while reply["parent_header"].get("msg_id") != msg:  # replies to start_new_kernel's requests
            reply = kc.get_shell_msg(timeout=30)
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        assert run(kc, "print(6 * 7)").strip() == "42"
    finally:
        kc.stop_channels()
        km.shutdown_kernel()


def test_no_fork_outlives_its_kernel(loaded):
    before = {p.pid for p in forks(loaded)}
    km, kc = start()
    fork = next(p for p in forks(loaded) if p.pid not in before)
    kc.stop_channels()
    km.shutdown_kernel()  # asked politely: the fork ends, then its stand-in
    assert gone(fork.pid) and not km.is_alive()

    km, kc = start()
    fork = next(p for p in forks(loaded) if p.pid not in before)
    kc.stop_channels()
    os.kill(km.provisioner.process.pid, signal.SIGKILL)  # the stand-in killed: nothing can pass it on
    assert gone(fork.pid), "the fork outlived its killed stand-in"
    km.cleanup_resources()


def test_without_the_loaded_process_a_kernel_is_an_ordinary_ipykernel(tmp_path):
    launch.write_kernel_spec(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != forkserver.ENV}
    cf = tmp_path / "kernel.json"
    argv = json.loads((tmp_path / "kernels" / launch.PRESENT_KERNEL / "kernel.json").read_text())["argv"]
    proc = subprocess.Popen([a.replace("{connection_file}", str(cf)) for a in argv], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "ipykernel_launcher" not in " ".join(psutil.Process(proc.pid).cmdline()):
            time.sleep(0.1)
        assert "ipykernel_launcher" in " ".join(psutil.Process(proc.pid).cmdline())
    finally:
        proc.kill()
        proc.wait()


def test_the_loaded_process_skips_scikit_learn():
    """transformers imports scikit-learn (about 2 s of the start-up) only for assisted text generation;
    the loaded process turns that off, and still loads the model."""
    code = ("import sys; from course_lib.demo import forkserver; forkserver.warm(); "
            "from course_lib.model import load; tok, model = load(); "
            "print('sklearn' in sys.modules, model.config.num_hidden_layers)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.split() == ["False", "6"], out.stdout + out.stderr
