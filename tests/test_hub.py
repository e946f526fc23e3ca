"""A hosted class on a real JupyterHub, as the README's "In a hosted class" sets it up.

JupyterHub 5 (this environment's, requirements.txt) on 127.0.0.1 with configurable-http-proxy from npm (.ci/run
installs it), its SimpleLocalProcessSpawner (each user's server a local process, home folders in a temporary
directory) and its dummy login. The single-user environment is built from the README's image recipe: a fresh
virtual environment stands in for the image's base (JupyterLab and JupyterHub, as quay.io's minimal-notebook has
them), then each COPY and RUN line of the recipe runs in it, word for word, but for the one line that reaches
PyTorch's index (unreachable here): it takes torch 2.13.0 from this machine's disk instead. The notebooks come from
`make student-release` in a git repository whose URL ends in `.git`, opened through the README's nbgitpuller link.

A student logs in with Chromium, follows the link, finds chapter 03 open with the course's kernel, runs it with
Run All (it stops at the first blank exercise, as the README says), writes exercise 3.1's answer and passes its
check. Under CI a missing piece (Chromium, configurable-http-proxy, jupyterhub) is a failure, not a skip.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from browser import chromium, skip_or_fail
from demo_servers import ROOT, free_port

from course_lib.course import student_release

CHAPTER = "03_similarity_matrix.ipynb"
EXERCISE = "3.1"
TORCH_INDEX = "download.pytorch.org"
BASE_IMAGE = ("jupyterhub", "jupyterlab")  # what quay.io/jupyter/minimal-notebook brings, at this course's pins


def readme_hub_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text[text.index("**JupyterHub.**"):text.index("**Colab.**")]


def recipe() -> list[tuple[str, str]]:
    """The README's Dockerfile as (instruction, argument) pairs, continuation lines joined."""
    block = re.search(r"```dockerfile\n(.*?)```", readme_hub_section(), re.S).group(1)
    joined = re.sub(r"\\\n", " ", block)
    steps = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            steps.append((word.upper(), rest.strip()))
    return steps


def link_template() -> str:
    return re.search(r"`(https://<hub>/hub/user-redirect/git-pull\?[^`]+)`", readme_hub_section()).group(1)


def pin(name: str) -> str:
    line = next(l for l in (ROOT / "requirements.txt").read_text().splitlines() if l.startswith(f"{name}=="))
    return line.split()[0]


def run(cmd: str, env: dict, cwd: Path) -> None:
    done = subprocess.run(["bash", "-c", cmd], env=env, cwd=cwd, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, f"{cmd}\nfailed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


def build_image(tmp: Path, context: Path) -> Path:
    """The single-user environment: the base image's stand-in, then the recipe's lines; returns its bin/."""
    venv = tmp / "image"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}", VIRTUAL_ENV=str(venv), PIP_DISABLE_PIP_VERSION_CHECK="1")
    run("pip install -q " + " ".join(pin(n) for n in BASE_IMAGE), env, tmp)
    paths = {}
    for word, arg in recipe():
        if word == "FROM":
            assert "jupyter/minimal-notebook" in arg, arg
        elif word == "COPY":
            src, dest = [a for a in shlex.split(arg) if not a.startswith("--")]
            assert src == "." and dest.startswith("/"), arg
            paths[dest] = str(tmp / "copy" / Path(dest).name)
            shutil.copytree(context, paths[dest])
        elif word == "RUN":
            for dest, here in paths.items():
                arg = arg.replace(dest, here)
            if TORCH_INDEX in arg:  # unreachable here: the same version from this machine's disk
                arg = "pip install -q " + pin("torch")
            run(arg, env, tmp)
        else:
            raise AssertionError(f"the test knows no {word} line: {word} {arg}")
    assert not any(Path(p).exists() for p in paths.values()), "the recipe leaves the copy behind"
    return venv / "bin"


def release_repository(tmp: Path) -> tuple[Path, Path]:
    """make student-release in a git repository on branch main; (its working folder, a bare clone '….git')."""
    folder = tmp / "release"
    student_release.write_release(folder)
    git = ["git", "-c", "user.name=Instructor", "-c", "user.email=instructor@example.org"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
    subprocess.run([*git, "add", "-A"], cwd=folder, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "The course for students"], cwd=folder, check=True)
    bare = tmp / "repos" / "bertscore-course.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(folder), str(bare)], check=True)
    return folder, bare


HUB_CONFIG = """
c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.pid_file = {tmp!r} + "/proxy.pid"
c.JupyterHub.db_url = "sqlite:///" + {tmp!r} + "/hub.sqlite"
c.JupyterHub.cookie_secret_file = {tmp!r} + "/cookie_secret"
c.JupyterHub.pid_file = {tmp!r} + "/hub.pid"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {tmp!r} + "/home/{{username}}"
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.args = {args!r}
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
c.Spawner.environment = {{"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
                          "CUDA_VISIBLE_DEVICES": "", "COURSE_FIGURES": {tmp!r} + "/figures"}}
"""


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    proxy = shutil.which("configurable-http-proxy")
    problems = [] if proxy else ["configurable-http-proxy is missing (npm install -g configurable-http-proxy)"]
    try:
        import jupyterhub  # noqa: F401
    except ImportError:
        problems.append("jupyterhub is missing (pip install -r requirements.txt)")
    if problems:
        skip_or_fail("the hub test: " + "; ".join(problems))
    tmp = tmp_path_factory.mktemp("hub")
    started = time.monotonic()
    release, bare = release_repository(tmp)
    bin_dir = build_image(tmp, release)
    built = time.monotonic() - started
    port = free_port()
    config = tmp / "jupyterhub_config.py"
    args = ["--allow-root"] if os.geteuid() == 0 else []
    config.write_text(HUB_CONFIG.format(port=port, hub_port=free_port(), proxy_port=free_port(), proxy=proxy,
                                        tmp=str(tmp), singleuser=str(bin_dir / "jupyterhub-singleuser"), args=args))
    log = open(tmp / "hub.log", "w")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JUPYTER_TOKEN")}
    proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=tmp, env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(f"{base}/hub/api/", timeout=5)
            break
        except OSError:
            assert proc.poll() is None, (tmp / "hub.log").read_text()[-3000:]
            assert time.monotonic() < deadline, (tmp / "hub.log").read_text()[-3000:]
            time.sleep(0.5)
    try:
        yield {"base": base, "repo": bare, "tmp": tmp, "built_s": built}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
        for pid_file in tmp.rglob("*.pid"):  # the proxy, should the hub have left it
            try:
                os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)
            except (OSError, ValueError):
                pass


def solution_of(exercise: str) -> str:
    """The answer cell of `exercise` in the solution notebook, markers removed: what a student who solved it types."""
    nb = json.loads((ROOT / "notebooks" / CHAPTER).read_text(encoding="utf-8"))
    cells, current = [], None
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        heading = re.search(r"^#+\s*Exercise\s+(\d+\.\d+)", text, re.M) if cell["cell_type"] == "markdown" else None
        current = heading.group(1) if heading else current
        if current == exercise and cell["cell_type"] == "code" and "### BEGIN SOLUTION" in text:
            cells.append(text)
    assert len(cells) == 1, f"exercise {exercise} has {len(cells)} answer cells"
    return "\n".join(l for l in cells[0].splitlines() if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)


def test_a_student_opens_a_chapter_through_the_readme_link_and_passes_a_check(hub):
    link = link_template().replace("https://<hub>", hub["base"]).replace(
        "<url-encoded repository URL>", urllib.parse.quote(hub["repo"].as_uri(), safe=""))
    assert link.endswith(f"notebooks/{CHAPTER}"), link
    started = time.monotonic()
    console: list[str] = []
    with chromium("the hub test") as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.on("console", lambda m: m.type == "error" and console.append(m.text))
        page.goto(f"{hub['base']}/hub/login")
        page.fill("#username_input", "student")
        page.fill("#password_input", "any password")
        page.click("#login_submit")
        page.wait_for_url(re.compile(r"/(hub/spawn|hub/home|user/student)"), timeout=60_000)
        page.goto(link)
        # nbgitpuller clones into targetPath, then opens urlpath: without targetPath a '.git' URL's folder is
        # bertscore-course.git/ and the chapter never opens (seen: this wait times out)
        page.locator(".lm-TabBar-tab.lm-mod-current", has_text=CHAPTER).wait_for(timeout=300_000)
        opened = time.monotonic() - started
        page.locator(".jp-Notebook .jp-CodeCell").first.wait_for(timeout=60_000)
        kernel = page.locator(".jp-Toolbar-kernelName, .jp-KernelName").first
        kernel.filter(has_text="BERTScore course").wait_for(timeout=120_000)
        page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(timeout=180_000)
        menus = page.locator(".lm-MenuBar-item").all_inner_texts()
        assert "Run" in menus and not [m for m in menus if "grader" in m.lower()], menus  # no instructor tools
        page.locator(".lm-MenuBar-item", has_text="Run").first.click()
        page.locator(".lm-Menu-item", has_text="Run All Cells").first.click()
        error = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
                             has_text="NotImplementedError").first
        error.wait_for(timeout=300_000)  # Run All stops at the first blank exercise, 3.1
        stub = page.locator(".jp-CodeCell", has=page.locator(".jp-OutputArea-output", has_text="NotImplementedError"))
        editor = stub.first.locator(".cm-content")
        editor.click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(solution_of(EXERCISE))
        page.keyboard.press("Shift+Enter")  # runs the answer and selects the check cell below it
        page.keyboard.press("Shift+Enter")
        page.locator(".jp-OutputArea-output", has_text=f"✅ Exercise {EXERCISE}: passed").wait_for(timeout=120_000)
        ran = time.monotonic() - started
    home = hub["tmp"] / "home" / "student"
    assert (home / "bertscore-course" / "notebooks" / CHAPTER).exists(), sorted(p.name for p in home.iterdir())
    assert not (home / "bertscore-course.git").exists()
    print(f"hub test: environment built in {hub['built_s']:.0f} s; login to the chapter open {opened:.0f} s; "
          f"to exercise {EXERCISE} passed {ran:.0f} s")
    assert not [m for m in console if "nbgrader" in m.lower()], console
