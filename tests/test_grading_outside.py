"""Chapter 03 graded by nbgrader's own commands (generate_assignment, autograde, generate_feedback, export), with
the verdicts made outside the student's kernel (course_lib.course.checks.autograde), on simulated students built
here from the release: right, blank, a forger who prints ✅, a patcher who monkeypatches importlib and the checks
from an answer cell, a typer who types the numbers the solution notebook prints, and students who call the
library or the checker's helpers where the exercise asks them to write the code."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import nbgrader  # noqa: F401 - a missing nbgrader fails here, never skips
from course_lib.course import nbgrader_course

CH01, CH02, CH03, CH05 = "01_lexical_metrics", "02_embeddings", "03_similarity_matrix", "05_idf"
STUDENTS = ["right", "blank", "forger", "patcher", "typer", "library", "helpers"]
OTHERS = {CH01: ["right", "blank", "patcher"], CH02: ["right", "blank", "patcher"],
          CH05: ["right", "blank", "patcher"]}  # every chapter that is data
TESTS = ["test_3_1", "test_3_2", "test_3_3", "test_3_4"]
_REGION = re.compile(r"(### BEGIN SOLUTION[^\n]*\n)(.*?)([ \t]*### END SOLUTION)", re.S)

PRINTS_PASS = 'print("✅ Exercise 3.{n}: passed.")\n'
PATCH = """import importlib, sys
importlib.reload = lambda m: m
importlib.import_module = lambda n, package=None: sys.modules[n]
for _m in [m for n, m in list(sys.modules.items()) if n.startswith("course_lib.course.checks")]:
    for _k in [k for k in vars(_m) if k.startswith(("check_", "record"))]:
        setattr(_m, _k, lambda *a, **k: print("✅ passed") or True)
"""


def _nbgrader(root: Path, *args: str) -> str:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("COURSE_GRADING", None)
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=env, capture_output=True,
                         text=True, timeout=1200)
    assert run.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{run.stdout[-3000:]}\n{run.stderr[-5000:]}"
    return run.stdout + run.stderr


def _replace(source: str, text: str) -> str:
    m = list(_REGION.finditer(source))[0]
    return source[:m.start(2)] + text.rstrip("\n") + "\n" + source[m.end(2):]


def _typed():
    """What the solution notebook prints for 3.1, typed in; 3.4's companions typed from the published pair."""
    from course_lib.course.checks import ch03

    data = ch03.PUBLISHED
    counts, words = ch03._counts(data["COUNT_SENTENCES"]), ch03._split_words(data["COUNT_SENTENCES"])
    c, r = data["TARGET_3_4"]
    return {"answer_3_1": f"answer_3_1 = {counts!r}\nsplit_3_1 = {words!r}",
            "answer_3_4": f"up_3_4 = ({c + ' ' + c!r}, {r + ' ' + r!r})\ndown_3_4 = ({c + ' ' + c!r}, {r!r})\n"
                          "drops_3_4 = 'precision'"}


def _student(kind: str, release, source):
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells if "nbgrader" in c.metadata}
    typed = _typed() if kind == "typer" else {}
    first = next(gid for gid in solutions if gid.startswith("answer_"))
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        gid = meta.get("grade_id", "")
        if kind == "blank" or not gid or meta.get("locked"):
            if kind == "forger" and meta.get("locked") and gid.startswith("test_"):
                cell.source = PRINTS_PASS.format(n=gid.rsplit("_", 1)[1])  # nbgrader restores it
            continue
        cell.source = solutions[gid]
        if kind == "forger":
            cell.source = cell.source.replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", "")
            cell.source = "pass\n" + PRINTS_PASS.format(n=gid.split("_")[2])
        if kind == "patcher" and gid == first:
            cell.source = PATCH
        if kind == "typer" and gid in typed:
            cell.source = _replace(cell.source, typed[gid])
        if kind == "library" and gid.startswith("answer_3_3"):
            cell.source = _replace(cell.source, "    from course_lib.bertscore import similarity\n"
                                   "    L = cand.shape[1], ref.shape[1]\n"
                                   "    cm = torch.arange(L[0])[None] >= (L[0] - torch.tensor(cand_lengths))[:, None]\n"
                                   "    rm = torch.arange(L[1])[None] >= (L[1] - torch.tensor(ref_lengths))[:, None]\n"
                                   "    return similarity.masked_cosine_matrix(cand, ref, cm, rm)")
        if kind == "helpers" and gid == "answer_3_1":
            cell.source = _replace(cell.source, "answer_3_1 = ch03._counts(ch03.COUNT_SENTENCES)\n"
                                   "split_3_1 = ch03._split_words(ch03.COUNT_SENTENCES)")
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading-outside")
    nbgrader_course.write_course(root, chapters=[CH01, CH02, CH03, CH05])
    for chapter, students in {CH03: STUDENTS, **OTHERS}.items():
        _nbgrader(root, "generate_assignment", chapter, "--force")
        release = nbformat.read(root / "release" / chapter / f"{chapter}.ipynb", as_version=4)
        source = nbformat.read(root / "source" / chapter / f"{chapter}.ipynb", as_version=4)
        for kind in students:
            path = root / "submitted" / kind / chapter / f"{chapter}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(_student(kind, release, source), path)
        _nbgrader(root, "autograde", chapter, "--create", "--force")
    _nbgrader(root, "generate_feedback", CH03, "--force")
    return root


def _scores(root: Path, student: str, chapter: str = CH03) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        nb = gb.find_submission_notebook(chapter, chapter, student)
        return {g.name: g.score for g in nb.grades if g.name.startswith("test_")}


EXPECTED = {  # exercise -> score out of 2, per student
    "right": dict.fromkeys(TESTS, 2), "blank": dict.fromkeys(TESTS, 0), "forger": dict.fromkeys(TESTS, 0),
    "patcher": dict.fromkeys(TESTS, 0), "typer": {"test_3_1": 0, "test_3_2": 2, "test_3_3": 2, "test_3_4": 0},
    "library": {"test_3_1": 2, "test_3_2": 2, "test_3_3": 0, "test_3_4": 2},
    "helpers": dict.fromkeys(TESTS, 0),  # a cell that reaches for the checker's helpers: every check 0
}


@pytest.mark.parametrize("student", STUDENTS)
def test_grades_of_simulated_students(graded, student):
    assert _scores(graded, student) == EXPECTED[student]


@pytest.mark.parametrize("chapter", sorted(OTHERS))
def test_the_other_chapters_that_are_data_grade_right_and_wrong(graded, chapter):
    """The solution notebook's own code passes every check on the hidden data; blank and patcher score 0."""
    right = _scores(graded, "right", chapter)
    assert len(right) >= 4 and set(right.values()) == {2}, right
    assert set(_scores(graded, "blank", chapter).values()) == {0}
    assert set(_scores(graded, "patcher", chapter).values()) == {0}


def test_no_secret_no_solution_no_traceback_in_what_students_see(graded):
    secret = (graded / "grading_secret").read_text().strip()
    from course_lib.course.checks import ch03
    from course_lib.course.checks.autograde import derived_seed

    hidden = ch03.hidden_data(__import__("random").Random(derived_seed(secret, CH03, "data")))
    release = (graded / "release" / CH03 / f"{CH03}.ipynb").read_text()
    assert "BEGIN SOLUTION" not in release and "masked_fill(~both_real" not in release
    assert "**Why it moves.**" not in release  # 3.4's reveal: not in the release
    files = list((graded / "feedback").rglob("*.html")) + list((graded / "autograded").glob(f"*/{CH03}/*.ipynb"))
    assert len(files) == 2 * len(STUDENTS)
    for path in files:
        text = path.read_text()
        assert secret not in text
        assert "most recent call last" not in text and "course_lib/course/checks" not in text, path
        for sentence in hidden["COUNT_SENTENCES"] + list(hidden["TARGET_3_4"]):
            assert json.dumps(sentence)[1:-1] not in text and sentence not in text, (path, sentence)


def test_an_answer_that_names_a_forbidden_function_in_code_scores_0_not_in_prose():
    from course_lib.course.checks import ch01
    from course_lib.course.checks.autograde import _forbidden_use

    def notebook(source):
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["nbgrader"] = {"grade_id": "answer_1_4", "solution": True, "grade": False, "locked": False}
        return nbformat.v4.new_notebook(cells=[cell])

    prose = 'def word_perplexity(texts, n_words):\n    """The perplexity per word."""  # perplexity\n    return 1.0\n'
    assert _forbidden_use(notebook(prose), ch01.EXERCISES["1.4"]) == ""
    called = "from course_lib.lexical.perplexity import perplexity\ndef word_perplexity(t, n):\n    return perplexity(t)\n"
    assert "perplexity" in _forbidden_use(notebook(called), ch01.EXERCISES["1.4"])
