"""`make demo` and `make present` start: the real Makefile targets, checked through the servers'
HTTP APIs (no browser needed; tests/test_demo_browser.py drives both pages in Chromium)."""
from __future__ import annotations

import json
import re
import shutil
import tempfile
import urllib.error
import urllib.request

import pytest

from demo_servers import NOTEBOOK, Server, make

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def get(url: str, timeout: float = 60):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read()


def test_make_demo_serves_a_copy_of_the_demo_notebook(tmp_path):
    original = NOTEBOOK.read_bytes()
    server = Server(make("demo"), tmp_path)
    try:
        server.wait("/api/status")
        status, body = get(server.url("/api/contents/demo.ipynb"))
        model = json.loads(body)
        assert status == 200 and model["type"] == "notebook"
        served = [c["source"] for c in model["content"]["cells"]]
        assert served == ["".join(c["source"]) for c in json.loads(original)["cells"]]
        folder = server.copy_folder()
        assert folder is not None and folder.exists() and not folder.is_relative_to(NOTEBOOK.parents[1])
        status, body = get(server.url("/lab/tree/demo.ipynb"))  # the page JupyterLab opens
        assert status == 200 and b"JupyterLab" in body
        with pytest.raises(urllib.error.HTTPError) as no_token:  # 127.0.0.1, and a token required
            get(f"{server.base}/api/contents/demo.ipynb")
        assert no_token.value.code == 403
    finally:
        server.stop()
    assert server.clean and not folder.exists()  # the copy is deleted on exit
    assert NOTEBOOK.read_bytes() == original


def test_make_demo_prints_one_url_that_works_without_jupyter_token(tmp_path):
    """As a user runs it: no JUPYTER_TOKEN set; the one URL printed opens the notebook."""
    server = Server(make("demo"), tmp_path, own_token=False)
    try:
        url = server.printed_url()
        server.wait("/api/status")
        status, body = get(url)
        assert status == 200 and b"JupyterLab" in body and "/lab/tree/demo.ipynb?token=" in url
        status, body = get(server.url("/api/contents/demo.ipynb"))
        assert status == 200 and json.loads(body)["type"] == "notebook"
        log = server.log(400)
        assert "token=..." not in log and log.count("?token=") == 1  # one URL, not the servers' masked ones
    finally:
        server.stop()


def test_the_launcher_keeps_figures_and_token_out_of_sight(tmp_path, monkeypatch):
    """Run All in `make demo` saves its figure in the temporary copy, not figures/; the token goes
    to the server in its environment, not on its command line (`ps` shows command lines)."""
    import subprocess

    from course_lib.demo import launch

    seen = {}

    class Fake:  # the server, and for present the loaded process its kernels fork from (started first)
        stdout = stderr = iter(())

        def __init__(self, cmd, env, **kwargs):
            seen.update(cmd=cmd, env=env)
            assert not any("t0ken" in arg for arg in cmd)

        def terminate(self):
            pass

        def poll(self):
            return 0

        def wait(self):
            return 0
    monkeypatch.setattr(subprocess, "Popen", Fake)
    monkeypatch.setenv("JUPYTER_TOKEN", "t0ken-of-the-user")
    for mode in ("lab", "present"):
        assert launch.main([mode, "--no-browser"]) == 0
        assert seen["env"]["JUPYTER_TOKEN"] == "t0ken-of-the-user"
        assert not any("t0ken" in arg for arg in seen["cmd"])
    monkeypatch.delenv("JUPYTER_TOKEN")
    launch.main(["lab", "--no-browser"])
    figures = seen["env"]["COURSE_FIGURES"]
    assert figures.startswith(tempfile.gettempdir()) and "bertscore-demo-" in figures
    assert len(seen["env"]["JUPYTER_TOKEN"]) >= 32


def test_make_present_serves_the_widgets_without_code(tmp_path):
    server = Server(make("present"), tmp_path)
    token = server.token  # JUPYTER_TOKEN is set: the printed URL carries that one
    try:
        assert server.printed_url().endswith(f"?token={token}") and server.token == token
        server.wait(tcp_only=True)
        status, body = get(server.url("/"), timeout=300)  # the page comes after the notebook ran
        page = body.decode()
        assert status == 200 and "application/vnd.jupyter.widget-view+json" in page
        assert "presenter" not in page and "course_lib" not in page  # no code on the page
        remote = re.findall(r'<(?:link|script)[^>]+(?:href|src)="(https?://[^"]+)"', page)
        assert not remote, f"the page asks the network (offline, it waits and fails): {remote}"
        with urllib.request.urlopen(f"{server.base}/", timeout=60) as response:  # no token: log in
            assert "/login" in response.url and b"widget-view" not in response.read()
        folder = server.copy_folder()
        assert folder is not None and (folder / "present.ipynb").exists()
    finally:
        server.stop()
    assert server.clean and not folder.exists()  # the copy is deleted on exit


def test_launcher_waits_for_the_line_the_kernel_manager_logs():
    """`make present` prints its URL once the server logs that its preheated kernel started."""
    from course_lib.demo import kernels, launch

    assert launch.POOL_STARTED == kernels.POOL_STARTED
