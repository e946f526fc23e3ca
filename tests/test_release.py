"""make student-release (no solutions, a Colab set-up cell), the runtime requirements, make memory's probe."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from course_lib.course import exercises, lab, student_release

ROOT = Path(__file__).resolve().parents[1]


def test_student_release_holds_no_solutions(tmp_path):
    out = tmp_path / "release"
    written = student_release.write_release(out, url="file:///srv/bertscore-course.zip")
    names = {p.name for p in written}
    assert names == {p.name for p in exercises.STUDENT.glob("*.ipynb")} | {"00_setup_and_tour.ipynb"}
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert "BEGIN SOLUTION" not in text and "Solutions: `notebooks/" not in text, path.name
        nb = json.loads(text)
        assert "course-setup" in nb["cells"][0]["metadata"]["tags"]
        assert "file:///srv/bertscore-course.zip" in "".join(nb["cells"][0]["source"])
        assert nb["metadata"]["kernelspec"]["name"] == "bertscore-course"
    for kept in ("course_lib/course/checks/ch04.py", "data", "requirements-runtime.txt", "README.md", "Makefile"):
        assert (out / kept).exists(), kept
    assert not (out / "tests").exists() and not (out / "notebooks" / "demo.ipynb").exists()
    assert not list(out.rglob("__pycache__"))
    readme = (out / "README.md").read_text()
    assert "## For students" in readme and "## Instructor guide" not in readme and "## Tests" not in readme
    assert "leaves out" in readme  # the list of what the release leaves out
    # what the release's README and chapters tell a student to run or open is there: no tests, no solution
    # notebooks, no notebooks/student (the chapters still cite the course repository's test files by name)
    for path in [out / "README.md", *written]:
        text = path.read_text(encoding="utf-8")
        for absent in ("notebooks/student", "make test", "solutions/") + (("tests/", "pytest") if path.suffix == ".md" else ()):
            assert absent not in text, (path.name, absent)
    assert "make check NB=work/" in readme
    # how to work a chapter: the student copies have no outputs, run one first (the sentence START_HERE shows too)
    assert " ".join(lab.RUN_FIRST.split()) in " ".join(readme.split())
    assert lab.RUN_FIRST in "".join(lab.start_page()["cells"][0]["source"])
    # make help in the release lists what a student can run there, not the tests, solutions or demo
    listed = subprocess.run(["make", "-s", "-C", str(out), "help"], capture_output=True, text=True).stdout
    targets = set(re.findall(r"^  make ([\w-]+)", listed, re.M))
    assert targets == set(student_release.STUDENT_TARGETS), listed


def test_make_lab_prepares_a_student_release(tmp_path):
    """`make lab` in a release: the course map read from its README, the blank chapters copied, no solutions/
    folder of blank copies, a start page that links only what is there (a release once crashed here: its
    README had lost the course map's end marker)."""
    out = tmp_path / "release"
    student_release.write_release(out)
    env = {k: v for k, v in os.environ.items() if k not in ("BERTSCORE_COURSE_ROOT", "COURSE_WORK")}
    run = subprocess.run([sys.executable, "-c", "from pathlib import Path; from course_lib.course import lab; "
                          "print(lab.ROOT); print(lab.prepare(Path('work')))"],
                         cwd=out, env={**env, "PYTHONPATH": str(out)}, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert Path(run.stdout.splitlines()[0]).resolve() == out.resolve()  # the release's own course_lib
    work = out / "work"
    assert not (work / "solutions").exists()
    assert {p.name for p in work.glob("[0-9]*.ipynb")} == {p.name for p in (out / "notebooks").glob("*.ipynb")}
    start = "".join(c["source"] for c in json.loads((work / "START_HERE.ipynb").read_text())["cells"])
    links = re.findall(r"\]\(([^)]+\.ipynb)\)", start)
    assert len(links) >= 12 and all((work / link).exists() for link in links), links
    assert "solutions/" not in start


def test_the_setup_cell_does_nothing_where_the_course_is_installed(tmp_path):
    """Run in this environment (course_lib importable): no download, no install, no chdir."""
    cell = student_release.SETUP_CELL.format(url="file:///nonexistent/archive.zip")
    run = subprocess.run([sys.executable, "-c", cell + "\nimport os; print(os.getcwd())"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, env=dict(os.environ, HOME=str(tmp_path)))
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(tmp_path) and not (tmp_path / "bertscore-course").exists()


def test_runtime_requirements_are_the_course_pins_without_the_tools():
    def pins(name):
        lines = [l.split("#")[0].strip() for l in (ROOT / name).read_text().splitlines()]
        return {re.split(r"[=<>!~ ]", l, 1)[0].lower(): l for l in lines if l}

    runtime, full = pins("requirements-runtime.txt"), pins("requirements.txt")
    assert {"torch", "transformers", "bert-score", "matplotlib", "ipykernel"} <= set(runtime)
    for name, line in runtime.items():
        assert full.get(name) == line, f"{name}: {line!r} in requirements-runtime.txt, {full.get(name)!r} in requirements.txt"
    assert not {"jupyterlab", "voila", "playwright", "pytest", "nbval", "nbgrader", "uv"} & set(runtime)
    assert {"jupyterlab", "voila", "playwright", "pytest", "nbval", "nbgrader"} <= set(full)


def test_readme_memory_table_is_written_by_make_memory():
    """The README's peak-memory figures come from course_lib.course.memory (make memory), one row per
    chapter; the probe reads the kernel's own peak (getrusage), not a guess."""
    from course_lib.course import memory

    readme = (ROOT / "README.md").read_text()
    block = readme.split("<!-- MEMORY:START -->")[1].split("<!-- MEMORY:END -->")[0]
    chapters = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
    assert [r.split("|")[1].strip() for r in block.splitlines() if r.startswith("| 0") or r.startswith("| 1")] \
        == chapters
    assert memory.readme_table({"x.ipynb": (1200.0, 0.0)}).count("over 1 GB") == 1
    run = subprocess.run([sys.executable, "-c", memory.PROBE + "\nx = b\"x\" * 300_000_000\n" + memory.PROBE],
                         capture_output=True, text=True, timeout=60)
    first, second = [json.loads(l.split(" ", 1)[1])[0] for l in run.stdout.splitlines()]
    assert second - first > 200e6  # the probe sees a 300 MB allocation (not all of it resident at once)


def test_what_follows_a_check_is_not_in_the_student_notebooks():
    """The library's version and the why after an exercise are taken out of the student notebooks (folded cells
    unfold under *Run All*): each run of them leaves one line; the student's own cells stay."""
    import nbformat

    solution_only = {"03_similarity_matrix.ipynb": ["**Why it moves.**", "show_source(masked_cosine_matrix)"],
                     "01_lexical_metrics.ipynb": ["per_word = per_token **"],
                     "07a_using_bert_score.ipynb": ["After exercise 7.8"],
                     "08_human_agreement.ipynb": ["layer_choice.leave_one_pair_out"],
                     "04_greedy_matching.ipynb": ["show_source(greedy_match)"]}
    for path in sorted(exercises.STUDENT.glob("*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        text = "\n".join(c.source for c in cells)
        # folded cells: only the `claims` cells that guard the prose (asserts and comments, nothing to copy)
        folded = [c for c in cells if c.metadata.get("jupyter", {}).get("source_hidden")]
        assert all("claims" in c.metadata.get("tags", []) and all(
            line.startswith(("assert", "#")) for line in c.source.splitlines()) for c in folded), path.name
        solution = "\n".join(c.source for c in nbformat.read(exercises.NOTEBOOKS / path.name, as_version=4).cells)
        for marker in solution_only.get(path.name, []):
            assert marker in solution and marker not in text, (path.name, marker)
        assert text.count(exercises.REVEAL_NOTE) >= (1 if path.name in solution_only else 0), path.name


def test_run_all_on_a_student_copy_prints_no_solution(tmp_path):
    """*Run All* on a student copy of chapter 03 (run here to the end, errors and all, which shows more than
    JupyterLab's Run All, which stops at the first stub): no line of a solution and no listing of the library's
    version of an exercise appears in any output."""
    import nbformat
    from nbclient import NotebookClient

    from course_lib.course.checks.solutions import _BLOCK
    from course_lib.course.run_notebooks import course_kernel

    name = "03_similarity_matrix.ipynb"
    nb = nbformat.read(exercises.STUDENT / name, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name=course_kernel(), allow_errors=True,
                   resources={"metadata": {"path": str(exercises.STUDENT)}}).execute()
    printed = "\n".join(o.get("text", "") + json.dumps(o.get("data", {})) + o.get("evalue", "")
                        for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    solution = nbformat.read(exercises.NOTEBOOKS / name, as_version=4)
    lines = {line.strip() for c in solution.cells for block in _BLOCK.findall(c.source)
             for line in block.splitlines() if len(line.strip()) >= 25}
    assert len(lines) > 5 and "not attempted yet" in printed  # the checks ran, on stubs
    assert not [line for line in lines if line in printed]
    assert "def masked_cosine_matrix" not in printed and "def cosine_matrix" not in printed
