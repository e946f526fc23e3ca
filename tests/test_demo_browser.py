"""End-to-end test of the live demo in a real browser.

Starts JupyterLab on 127.0.0.1 (random free port, a token), opens a temporary copy of
notebooks/demo.ipynb in Debian's headless Chromium through Playwright, runs all cells, types a
new candidate, and checks that the scores shown change and that the heatmap image is rendered.
Saves a screenshot to figures/demo_screenshot.png. The notebook on disk is never modified.

Needs /usr/bin/chromium (`apt-get install chromium`; .ci/run installs it). Playwright never
downloads a browser here: it drives the system one through `executable_path`.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = ROOT / "figures" / "demo_screenshot.png"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
NEW_CANDIDATE = "A lawyer handed in the court papers."

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="browser test of the demo skipped: /usr/bin/chromium is missing "
           "(install Debian's chromium: apt-get update && apt-get install -y chromium)")


pytest.importorskip("playwright", reason="browser test of the demo skipped: the playwright package "
                                          "is missing (pip install -r requirements.txt)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_server(url: str, proc: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = "\n".join(log.read_text().splitlines()[-15:])
            raise RuntimeError(f"jupyter lab exited early with code {proc.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    tail = "\n".join(log.read_text().splitlines()[-15:])
    raise TimeoutError(f"jupyter lab did not answer within {timeout:.0f} s:\n{tail}")


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server over a temporary copy of the demo notebook; yields (base url, token)."""
    root = tmp_path / "notebooks"
    root.mkdir()
    nb = json.loads((ROOT / "notebooks" / "demo.ipynb").read_text())
    for cell in nb["cells"]:  # start from a clean notebook: every output seen comes from this run
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    (root / "demo.ipynb").write_text(json.dumps(nb))
    settings = tmp_path / "lab-settings"  # fresh JupyterLab settings, whatever the user has
    lab_settings = {
        # render every cell, in view or not; start the notebook's kernel without asking
        "notebook-extension/tracker": {"windowingMode": "none", "autoStartDefaultKernel": True},
        # offline: no news feed, no update check, no toasts over the screenshot
        "apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False,
                                            "doNotDisturbMode": True},
    }
    for name, values in lab_settings.items():
        path = settings / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               JUPYTER_DATA_DIR=str(tmp_path / "jupyter-data"),  # hides user-installed kernels
               JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "lab-workspaces"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    port, token = free_port(), secrets.token_hex(16)
    jupyter = Path(sys.executable).parent / "jupyter"  # the venv's: its python3 kernel is the venv's python
    cmd = [str(jupyter), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           "--ServerApp.port_retries=0", f"--ServerApp.token={token}",
           f"--ServerApp.root_dir={root}", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           "--LabApp.extension_manager=readonly", "--ServerApp.terminals_enabled=False",
           "--KernelSpecManager.allowed_kernelspecs=python3"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # containers and CI run as root
    log_path = tmp_path / "jupyter.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_server(f"{base}/api/status?token={token}", proc, log_path)
        yield base, token
    finally:
        try:
            request = urllib.request.Request(f"{base}/api/shutdown?token={token}", method="POST")
            urllib.request.urlopen(request, timeout=5).close()
            proc.wait(timeout=20)
        except Exception:
            pass
        if proc.poll() is None:  # the server, and the kernel it started, are in their own group
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log.close()


def wait_for_idle_kernel(page) -> None:
    """The notebook's kernel is up and idle, and stays so for a moment (JupyterLab may swap
    kernels right after opening a notebook)."""
    idle = '.jp-Notebook-ExecutionIndicator[data-status="idle"]'
    page.wait_for_selector(idle, timeout=90_000)
    page.wait_for_timeout(3_000)
    page.wait_for_selector(idle, timeout=90_000)


def run_all_cells(page) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    item = page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$"))
    item.wait_for(state="visible", timeout=10_000)
    item.click()


def shown_f(page) -> str:
    return page.locator(".bertscore-demo-scores .demo-bertscore-F").inner_text(timeout=10_000).strip()


def test_demo_runs_in_a_real_browser(lab, tmp_path):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    base, token = lab
    original = (ROOT / "notebooks" / "demo.ipynb").read_bytes()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            page.goto(f"{base}/lab/tree/demo.ipynb?token={token}", wait_until="domcontentloaded")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
            wait_for_idle_kernel(page)
            dialog = page.locator(".jp-Dialog")
            if dialog.count() and dialog.first.is_visible():  # e.g. "Select Kernel": take python3
                dialog.locator("button.jp-mod-accept").first.click()
                wait_for_idle_kernel(page)

            scores = page.locator(".bertscore-demo-scores .demo-bertscore-F")
            for attempt in range(2):  # a Run All sent while JupyterLab swaps kernels can be lost
                run_all_cells(page)
                try:
                    scores.wait_for(state="visible", timeout=45_000 if attempt == 0 else 90_000)
                    break
                except PlaywrightTimeout:
                    if attempt == 1 or page.locator(".jp-InputPrompt", has_text="[*]").count():
                        scores.wait_for(state="visible", timeout=90_000)
                        break
            before = shown_f(page)
            assert re.fullmatch(r"-?\d\.\d{3}", before), before

            box = page.locator(".bertscore-demo-candidate textarea")
            box.fill(NEW_CANDIDATE)
            box.press("Tab")  # the box scores when it loses focus
            page.wait_for_function(
                """(old) => {
                    const el = document.querySelector('.bertscore-demo-scores .demo-bertscore-F');
                    return el !== null && el.textContent.trim() !== old;
                }""", arg=before, timeout=60_000)
            after = shown_f(page)
            assert after != before and re.fullmatch(r"-?\d\.\d{3}", after), (before, after)
            assert "Worst matched" in page.locator(".bertscore-demo-worst").inner_text()

            image = page.locator("img.bertscore-demo-image")
            image.wait_for(state="visible")
            size = image.evaluate("img => [img.complete, img.naturalWidth, img.naturalHeight, img.src.slice(0, 5)]")
            assert size[0] and size[1] > 100 and size[2] > 100, size
            assert size[3] in ("blob:", "data:"), size

            # bad input: a message, not a traceback
            box.fill("   ")
            box.press("Tab")
            page.locator(".bertscore-demo-message .demo-problem").wait_for(state="visible", timeout=60_000)
            assert "empty" in page.locator(".bertscore-demo-message").inner_text()
            assert page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
            box.fill(NEW_CANDIDATE)
            box.press("Tab")
            page.locator(".bertscore-demo-scores .demo-bertscore-F").wait_for(state="visible", timeout=60_000)

            SCREENSHOT.parent.mkdir(exist_ok=True)
            demo = page.locator(".bertscore-demo").first
            demo.scroll_into_view_if_needed()
            demo.screenshot(path=str(SCREENSHOT))
            assert SCREENSHOT.stat().st_size > 10_000
        except Exception:
            failure = tmp_path / "failure.png"
            try:
                page.screenshot(path=str(failure), full_page=True)
                print(f"screenshot of the failure: {failure}")
                print("page text:", page.locator(".jp-Notebook").inner_text(timeout=5_000)[-3000:])
            except Exception:
                pass
            raise
        finally:
            browser.close()
    assert (ROOT / "notebooks" / "demo.ipynb").read_bytes() == original
