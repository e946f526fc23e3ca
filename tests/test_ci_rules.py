"""The CI rules: a skip fails under CI (tests/conftest.py), .ci/run fails without chromium and when
the tests leave the tree dirty, and the test targets keep figures out of the committed folder."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SKIPPING_TESTS = '''
import pytest

def test_runs():
    pass

def test_needs_a_browser():
    pytest.skip("chromium is not installed")

@pytest.mark.xfail(reason="a known bug")
def test_known_bug():
    assert False
'''


def _pytest_in(folder: Path, **env_vars) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "COURSE_CI")}
    env.update(env_vars)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(folder)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def _folder_with_skipping_test(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_skips.py").write_text(SKIPPING_TESTS)
    return tmp_path


def test_a_skip_is_allowed_with_its_reason_on_a_laptop(tmp_path):
    run = _pytest_in(_folder_with_skipping_test(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 1 skipped, 1 xfailed" in run.stdout
    assert "chromium is not installed" in run.stdout  # -rs shows the reason


def test_a_skip_fails_under_ci(tmp_path):
    folder = _folder_with_skipping_test(tmp_path)
    for env in ({"COURSE_CI": "1"}, {"CI": "true"}):
        run = _pytest_in(folder, **env)
        assert run.returncode == 1, run.stdout + run.stderr
        assert "1 failed, 1 passed, 1 xfailed" in run.stdout, run.stdout
        assert "skipped under CI" in run.stdout and "chromium is not installed" in run.stdout


def test_a_skipped_module_fails_under_ci(tmp_path):
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_optional.py").write_text(
        "import pytest\npytest.importorskip('no_such_module_for_this_test')\n\ndef test_a():\n    pass\n")
    laptop = _pytest_in(tmp_path)
    assert laptop.returncode in (0, 5) and "1 skipped" in laptop.stdout  # 5: no test ran, none failed
    run = _pytest_in(tmp_path, COURSE_CI="1")
    assert run.returncode != 0 and "no_such_module_for_this_test" in run.stdout, run.stdout


# ------------------------------------------------------------------ .ci/run, with fake tools

def _fake_tool(bin_dir: Path, name: str, script: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(0o755)


def _ci_checkout(tmp_path: Path, make_script: str, apt_ok: bool, npm_ok: bool = True) -> tuple[Path, dict]:
    """A git repository holding .ci/run, and a PATH where `make`, `apt-get` and `npm` are fakes and there is
    no chromium and no configurable-http-proxy (a working `npm install` puts a fake one there)."""
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", repo / ".ci" / "run")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "COURSE_CI")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "init"], check=True, env=env)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_tool(bin_dir, "make", make_script)
    _fake_tool(bin_dir, "apt-get", "exit 0" if apt_ok else "exit 100")
    if apt_ok:  # a successful install puts chromium on the PATH
        _fake_tool(bin_dir, "chromium", "exit 0")
    proxy = bin_dir / "configurable-http-proxy"
    chmod = shutil.which("chmod")
    _fake_tool(bin_dir, "npm", f"printf '#!/bin/sh\\nexit 0\\n' > {proxy} && {chmod} +x {proxy}" if npm_ok else "exit 1")
    # only the tools .ci/run needs: no real chromium can be found
    for tool in ("git", "bash", "dirname", "env", "cat"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    env["PATH"] = str(bin_dir)
    return repo, env


def _ci(repo: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([str(repo / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=60)


def test_ci_fails_when_chromium_cannot_be_installed(tmp_path):
    repo, env = _ci_checkout(tmp_path, 'echo "make ran" > /dev/null', apt_ok=False)
    run = _ci(repo, env)
    assert run.returncode != 0, run.stdout + run.stderr
    assert "could not install chromium" in run.stderr


def test_ci_fails_when_the_hub_s_proxy_cannot_be_installed(tmp_path):
    repo, env = _ci_checkout(tmp_path, 'echo "make ran" > /dev/null', apt_ok=True, npm_ok=False)
    run = _ci(repo, env)
    assert run.returncode != 0, run.stdout + run.stderr
    assert "could not install configurable-http-proxy" in run.stderr


def test_ci_exports_course_ci_and_passes_on_a_clean_tree(tmp_path):
    repo, env = _ci_checkout(tmp_path, 'test "$COURSE_CI" = 1 || exit 7', apt_ok=True)
    run = _ci(repo, env)
    assert run.returncode == 0, run.stdout + run.stderr


def test_ci_fails_when_the_tests_dirty_the_tree(tmp_path):
    repo, env = _ci_checkout(tmp_path, "echo changed > figures_written_by_a_test.png", apt_ok=True)
    run = _ci(repo, env)
    assert run.returncode != 0
    assert "figures_written_by_a_test.png" in run.stderr


def test_make_test_targets_use_a_temporary_figures_folder_and_no_gpu():
    out = subprocess.run(["make", "-n", "-o", ".venv/.installed", "test-unit", "test-notebooks"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60).stdout
    lines = [line for line in out.splitlines() if "pytest" in line]
    assert len(lines) == 2, out
    for line in lines:
        assert "COURSE_FIGURES=$d" in line and "d=$(mktemp -d)" in line and "CUDA_VISIBLE_DEVICES= " in line
        assert " -rs " in line


def test_figures_go_where_course_figures_says(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from course_lib.paths import ROOT, user_cache_dir
    from course_lib.teaching import notebook

    monkeypatch.delenv("COURSE_FIGURES", raising=False)
    assert notebook.figures_dir() == user_cache_dir() / "figures"  # by default, outside the course folder
    assert ROOT not in notebook.figures_dir().parents
    monkeypatch.setenv("COURSE_FIGURES", str(tmp_path / "figs"))
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    first = notebook.save_figure(fig, "line")
    assert first == tmp_path / "figs" / "line.png"
    data = first.read_bytes()
    assert b"Software" not in data and b"Matplotlib" not in data  # no version stamp
    notebook.save_figure(fig, "line")
    assert first.read_bytes() == data  # same figure, same bytes
    plt.close(fig)
