"""The course on a student's machine: the Python check, the CPU-only torch option, the pins on
every platform, and `pip install .` as a working library outside the course folder."""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAKE = shutil.which("make")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=kw.pop("timeout", 600), **kw)


# --- the Makefile ----------------------------------------------------------------------------

def fake_python(folder: Path, name: str, version: str) -> None:
    """A `python` on PATH that says it is `version` and fails the >= 3.11 check, as 3.10 does."""
    script = folder / name
    script.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        case "$1" in --version) echo "Python {version}"; exit 0;; esac
        exec {sys.executable} -c 'import sys; sys.exit(1)'
        """))
    script.chmod(0o755)


@pytest.mark.skipif(MAKE is None, reason="make is not installed (Windows: see the README's steps)")
def test_make_stops_at_once_on_python_older_than_3_11(tmp_path):
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python3", "python3.10"):
        fake_python(bin_dir, name, "3.10.13")
    for tool in ("sh", "grep", "cut", "test", "echo"):  # what the recipe's shell needs
        if shutil.which(tool):
            os.symlink(shutil.which(tool), bin_dir / tool)
    result = run([MAKE, "setup"], cwd=tmp_path, env={"PATH": str(bin_dir), "HOME": str(tmp_path)})
    assert result.returncode != 0
    assert "needs Python 3.11, 3.12 or 3.13" in result.stderr and "Python 3.10.13" in result.stderr
    assert not (tmp_path / ".venv").exists()  # stopped before creating anything


@pytest.mark.skipif(MAKE is None, reason="make is not installed (Windows: see the README's steps)")
def test_torch_cpu_option_changes_only_the_install_command():
    """A dry run (make -n): TORCH=cpu adds one install of the pinned torch from PyTorch's CPU index
    before the requirements; the default takes everything from the usual index."""
    default = run([MAKE, "-n", "-B", "setup"], cwd=ROOT).stdout
    cpu = run([MAKE, "-n", "-B", "setup", "TORCH=cpu"], cwd=ROOT).stdout
    pin = next(l.split()[0] for l in (ROOT / "requirements.txt").read_text().splitlines()
               if l.startswith("torch=="))
    assert "download.pytorch.org/whl/cpu" not in default
    added = [l for l in cpu.splitlines() if l not in default.splitlines()]
    assert [l for l in cpu.splitlines() if l not in added] == default.splitlines()
    installs = [l for l in added if "pip install" in l]
    assert len(installs) == 1 and f'"{pin}"' in installs[0] and "--index-url https://download.pytorch.org/whl/cpu" in installs[0]


@pytest.mark.skipif(MAKE is None, reason="make is not installed (Windows: see the README's steps)")
def test_torch_cpu_says_so_and_goes_on_where_pytorchs_index_does_not_answer():
    """TORCH=cpu where PyTorch's index is unreachable (here: a closed local port): within seconds one line says
    torch comes from PyPI instead, and the recipe goes on (pip would retry for minutes)."""
    closed = f"http://127.0.0.1:{free_port()}/whl/cpu"
    cpu = run([MAKE, "-n", "-B", "setup", "TORCH=cpu", f"TORCH_CPU_INDEX={closed}"], cwd=ROOT).stdout
    block = re.search(r"^if .*?fi$", cpu, re.S | re.M).group(0)
    started = time.monotonic()
    done = subprocess.run(["bash", "-c", block], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and time.monotonic() - started < 15
    assert "does not answer from here, so torch comes from PyPI" in done.stderr and "pip" not in done.stdout


# --- the pins resolve on every platform a student may have -------------------------------------

PLATFORMS = {"linux-x86_64": ("x86_64-manylinux_2_28", {}),
             "macos14-arm64": ("aarch64-apple-darwin", {"MACOSX_DEPLOYMENT_TARGET": "14.0"}),
             "windows-x86_64": ("x86_64-pc-windows-msvc", {})}


@pytest.mark.parametrize("python", ["3.11", "3.12", "3.13"])
@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_pinned_requirements_resolve(python, platform, tmp_path):
    """uv evaluates the environment markers for the target (pip's --platform dry run uses the
    running machine's); a pin without a wheel or sdist for the target fails here. Needs PyPI."""
    uv = Path(sys.executable).with_name("uv")
    assert uv.exists(), "uv is missing from the venv: it is pinned in requirements.txt"
    target, env = PLATFORMS[platform]
    result = run([str(uv), "pip", "compile", str(ROOT / "requirements.txt"), "--python-version", python,
                  "--python-platform", target, "--no-header", "--no-annotate", "--quiet",
                  "--cache-dir", str(tmp_path / "uv-cache")],
                 env={**os.environ, **env, "UV_NO_CONFIG": "1"}, cwd=tmp_path)
    assert result.returncode == 0, f"{platform}, Python {python}:\n{result.stderr[-3000:]}"
    resolved = dict(l.split("==", 1) for l in result.stdout.splitlines() if "==" in l)
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        pin = line.split("#")[0].strip()
        if "==" in pin:
            name, version = pin.split("==")
            assert resolved.get(name.lower().replace("_", "-")) == version, (platform, python, name)


# --- pip install . ---------------------------------------------------------------------------

OUTSIDE = """
import json, os, pathlib, sys, warnings
import course_lib, course_lib.course.checks.ch06, course_lib.demo
from course_lib.evaluation import datasets
from course_lib.paths import CourseDataNotFound
from course_lib.teaching import notebook
site = pathlib.Path(course_lib.__file__).parents[1]
P, R, F = course_lib.score(["The cat sat on the mat."], ["A cat rested on a mat."], rescale_with_baseline=True)
try:
    datasets.wmt16()
    missing = None
except CourseDataNotFound as err:
    missing = str(err)
notebook.setup()
print(json.dumps({"file": course_lib.__file__, "F": float(F[0]), "missing": missing,
                  "halford": course_lib.demo.HALFORD_QUESTION,
                  "site_figures": (site / "figures").exists(), "site_data": (site / "data").exists()}))
"""


def test_wheel_installs_a_working_library(tmp_path):
    """Build the wheel from a copy of the sources, install it into a fresh venv that reuses this
    venv's installed dependencies, and use it from a folder outside the course."""
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".venv", ".git", "data", "notebooks", "figures",
                                                             "tests", "build", "*.egg-info", "__pycache__"))
    wheels = tmp_path / "wheels"
    built = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                 str(wheels), str(src)])
    assert built.returncode == 0, built.stderr[-3000:]
    venv = tmp_path / "venv"
    assert run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (site / "_course_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # reuse our deps
    wheel = next(wheels.glob("course_lib-*.whl"))
    installed = run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)])
    assert installed.returncode == 0, installed.stderr[-3000:]
    outside = tmp_path / "somewhere_else"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BERTSCORE_COURSE_ROOT")}
    result = run([str(python), "-c", OUTSIDE], cwd=outside, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    import json

    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert Path(found["file"]).is_relative_to(venv)  # the installed copy, not this checkout
    assert -1 < found["F"] < 1 and found["halford"] == "Who is Rob Halford?"
    assert "data/wmt16_da/wmt16_da_seg_to_en.csv" in found["missing"]
    assert "BERTSCORE_COURSE_ROOT" in found["missing"]
    assert not found["site_figures"] and not found["site_data"]  # nothing written into site-packages
    with_root = run([str(python), "-c", "from course_lib.evaluation import datasets; print(len(datasets.wmt16()))"],
                    cwd=outside, env={**env, "BERTSCORE_COURSE_ROOT": str(ROOT)})
    assert with_root.returncode == 0 and with_root.stdout.strip() == "3360", with_root.stderr[-2000:]
