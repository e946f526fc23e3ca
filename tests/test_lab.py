"""`make lab` as a student meets it: the work folder of copies (course_lib.course.lab), and, in
Chromium, the first screen, then chapter 00 run through JupyterLab's own menu and saved, after
which the course folder is as it was (`git status` and the committed notebook unchanged)."""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
import time
import urllib.request

from browser import chromium
from demo_servers import ROOT, Server, make

from course_lib.course import lab

CHAPTER = "00_setup_and_tour.ipynb"


def git_status() -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_work_folder_holds_copies_and_keeps_yours(tmp_path):
    notes = lab.prepare(tmp_path)
    names = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.ipynb")}
    assert set(lab.sources()) | {lab.START} == names
    # a chapter with exercises is the student copy (blank exercises); its solution sits under solutions/
    assert sha(tmp_path / "04_greedy_matching.ipynb") == sha(ROOT / "notebooks/student/04_greedy_matching.ipynb")
    assert sha(tmp_path / "solutions/04_greedy_matching.ipynb") == sha(ROOT / "notebooks/04_greedy_matching.ipynb")
    assert sha(tmp_path / CHAPTER) == sha(ROOT / "notebooks" / CHAPTER)  # no exercises: the chapter itself
    assert any("Copied" in n for n in notes)
    # your work is never overwritten, and START_HERE links every chapter
    (tmp_path / CHAPTER).write_text("{}")
    assert not any("changed" in n for n in lab.prepare(tmp_path)) and (tmp_path / CHAPTER).read_text() == "{}"
    start = json.loads((tmp_path / lab.START).read_text())
    text = "".join(c["source"] for c in start["cells"])
    assert all(f"]({name})" in text for name in lab.sources() if "/" not in name), "a chapter missing from START_HERE"
    linked = set(re.findall(r"\]\(([^)#]+\.ipynb)\)", text))
    assert linked <= names, f"START_HERE links notebooks the work folder lacks: {sorted(linked - names)}"
    assert start["metadata"]["kernelspec"]["name"] == lab.KERNEL


def test_a_copy_older_than_the_course_is_named_and_kept(tmp_path):
    lab.prepare(tmp_path)
    manifest = json.loads((tmp_path / lab.MANIFEST).read_text())
    manifest[CHAPTER] = "0" * 64  # as if the course's chapter had changed since the copy (a git pull)
    (tmp_path / lab.MANIFEST).write_text(json.dumps(manifest))
    notes = lab.prepare(tmp_path)
    assert any(CHAPTER in n and "changed" in n and "kept" in n for n in notes), notes
    assert sha(tmp_path / CHAPTER) == sha(ROOT / "notebooks" / CHAPTER)


def test_the_kernel_spec_is_the_course_and_quiet(tmp_path):
    folder = lab.install(prefix=str(tmp_path))
    spec = json.loads((folder / "kernel.json").read_text())
    assert folder.name == lab.KERNEL and spec["display_name"] == "BERTScore course"
    assert spec["argv"][-1] == "--IPKernelApp.log_level=ERROR"  # no "running over TCP ... eavesdropping"
    settings = json.loads((tmp_path / "share/jupyter/lab/settings/overrides.json").read_text())
    assert settings == lab.LAB_SETTINGS


def kernel_states(server) -> list[str]:
    with urllib.request.urlopen(server.url("/api/kernels"), timeout=10) as response:
        return [k["execution_state"] for k in json.load(response)]


def chapter_kernel_state(server) -> str | None:
    """The execution state of the kernel of CHAPTER's session (None before it has one)."""
    with urllib.request.urlopen(server.url("/api/sessions"), timeout=10) as response:
        states = [s["kernel"]["execution_state"] for s in json.load(response) if s["path"].endswith(CHAPTER)]
    return states[0] if states else None


def wait_for_kernel(server, state: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if chapter_kernel_state(server) == state:
            return
        time.sleep(0.5)
    raise AssertionError(f"the chapter's kernel was not {state} within {seconds} s: {chapter_kernel_state(server)}")


def ran_or_running(page, server, seconds: float) -> bool:
    """True once a cell is queued or running (a prompt [*]) or the kernel is busy. (Prompts [1]... are there
    before the run: the chapter's copy is committed with its outputs.)"""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if chapter_kernel_state(server) == "busy" or page.locator(".jp-InputPrompt", has_text="[*]").count():
            return True
        time.sleep(0.5)
    return False


def test_running_a_chapter_in_jupyterlab_rewrites_no_committed_file(tmp_path):
    """make lab (no JUPYTER_TOKEN), the printed URL in Chromium: START_HERE first; its link to chapter
    00; Run > Run All Cells; Ctrl-S. The saved notebook is the student's copy, the course's is untouched,
    and the page logs no version conflict between JupyterLab and its extensions."""
    work, committed, before = tmp_path / "work", sha(ROOT / "notebooks" / CHAPTER), git_status()
    server = Server(make("lab"), tmp_path, own_token=False, extra_env={"COURSE_WORK": str(work)})
    console: list[str] = []
    try:
        url = server.printed_url()
        assert "/lab/tree/START_HERE.ipynb?token=" in url
        with chromium("make lab in a browser") as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("console", lambda m: m.type in ("warning", "error") and console.append(m.text))
            page.goto(url)
            page.locator(".jp-RenderedMarkdown h1", has_text="Start here").wait_for(timeout=120_000)
            page.locator(".lm-MenuBar-item", has_text="Run").first.wait_for(timeout=60_000)
            menus = page.locator(".lm-MenuBar-item").all_inner_texts()
            assert not [m for m in menus if "grader" in m.lower()], f"a student's JupyterLab shows {menus}"
            assert not page.get_by_text("Create Assignment").count(), "nbgrader's instructor panel is there"
            page.locator(".jp-RenderedMarkdown a", has_text=CHAPTER).first.click()
            page.locator(".lm-TabBar-tab.lm-mod-current", has_text=CHAPTER).wait_for(timeout=60_000)
            page.locator(".jp-Notebook .jp-CodeCell").first.wait_for(timeout=60_000)
            wait_for_kernel(server, "idle", 120)  # Run All before the kernel is up does nothing (a slow CI)
            started = False
            for _attempt in range(2):  # Run > Run All Cells; once more if no cell started in 60 s
                page.locator(".lm-MenuBar-item", has_text="Run").first.click()
                page.locator(".lm-Menu-item", has_text="Run All Cells").first.click()
                started = ran_or_running(page, server, 60)
                if started:
                    break
            assert started, "Run > Run All Cells started no cell"
            deadline, idle_since = time.monotonic() + 300, None
            while time.monotonic() < deadline:  # idle for 3 s in a row after it started
                time.sleep(1)
                busy = "busy" in kernel_states(server) or page.locator(".jp-InputPrompt", has_text="[*]").count()
                idle_since = None if busy else (idle_since or time.monotonic())
                if idle_since and time.monotonic() - idle_since > 3:
                    break
            page.keyboard.press("Control+s")
            copy = work / CHAPTER
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and sha(copy) == committed:
                time.sleep(0.5)
    finally:
        server.stop()
    printed = server.log_path.read_text(errors="replace")
    before_url = printed.split(url)[0]
    assert "Open that link in your browser" in printed.split(url)[1], "make lab says what to do"
    noise = [line for line in before_url.splitlines() if line.strip() and not line.startswith(("Copied ", "Serving "))
             and "The course:" not in line]
    assert not noise, f"make lab prints more than the URL and what to do: {noise[:5]}"
    saved = json.loads((work / CHAPTER).read_text())
    code = [c for c in saved["cells"] if c["cell_type"] == "code"]
    assert sha(work / CHAPTER) != committed, "the run was not saved into the work copy"
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1)), "not every cell ran, in order"
    assert not [o for c in code for o in c["outputs"] if o["output_type"] == "error"]
    assert sha(ROOT / "notebooks" / CHAPTER) == committed, "running the chapter rewrote the committed notebook"
    assert git_status() == before, "running a chapter in JupyterLab changed the course folder"
    conflicts = [m for m in console if "atisf" in m and "version" in m]  # Unsatisfied / No satisfying version
    assert not conflicts, f"JupyterLab and an extension disagree on versions (pin them): {conflicts[:3]}"
