"""`make demo` and `make present` start: the real Makefile targets, checked through the servers'
HTTP APIs (no browser needed; tests/test_demo_browser.py drives both pages in Chromium)."""
from __future__ import annotations

import json
import shutil
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


def test_make_present_serves_the_widgets_without_code(tmp_path):
    server = Server(make("present"), tmp_path)
    try:
        server.wait(tcp_only=True)
        status, body = get(server.url("/"), timeout=300)  # the page comes after the notebook ran
        page = body.decode()
        assert status == 200 and "application/vnd.jupyter.widget-view+json" in page
        assert "presenter" not in page and "course_lib" not in page  # no code on the page
        with urllib.request.urlopen(f"{server.base}/", timeout=60) as response:  # no token: log in
            assert "/login" in response.url and b"widget-view" not in response.read()
        folder = server.copy_folder()
        assert folder is not None and (folder / "present.ipynb").exists()
    finally:
        server.stop()
    assert server.clean and not folder.exists()  # the copy is deleted on exit
