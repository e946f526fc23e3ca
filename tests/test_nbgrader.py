"""`make nbgrader`'s course folder through nbgrader's own commands (no mocks): generate_assignment,
autograde and export, on simulated students built here from the release -- right, partly wrong,
blank, a forger (prints ✅, patches the checker, overwrites the test cells) and a hard-coder (types
the numbers the solution notebooks publish). Chapter 04: its notebook runs fast (chapter 05 is data, checks.exercise:
tests/test_grading_outside.py grades it)."""
import csv
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
from course_lib.course.checks import ch04
from course_lib.course.checks.autograde import derived_seed

CH04, CH05 = "04_greedy_matching", "05_idf"
STUDENTS = {CH04: ["right", "partly", "blank", "forger", "hardcoder"]}
VALUE_TESTS = {CH04: ["test_4_3", "test_4_4", "test_4_5"]}
FUNCTION_TESTS = {CH04: ["test_4_1", "test_4_2"]}
_REGION = re.compile(r"(### BEGIN SOLUTION[^\n]*\n)(.*?)([ \t]*### END SOLUTION)", re.S)


SECRET = "course-secret-20261126"


def _nbgrader(root: Path, *args: str) -> str:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=env, capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{run.stdout[-3000:]}\n{run.stderr[-5000:]}"
    return run.stdout + run.stderr


def _replace_region(source: str, k: int, text: str) -> str:
    """The cell with its k-th solution region's body replaced by `text`."""
    matches = list(_REGION.finditer(source))
    m = matches[k]
    return source[:m.start(2)] + text.rstrip("\n") + "\n" + source[m.end(2):]


def _published():
    """What the solution notebooks print for the value exercises (learning mode: the published data)."""
    scores = ch04._cat_scores()
    win = max(range(2), key=lambda i: scores[i])
    return {
        ("answer_4_3", 0): f"answer_4_3 = {list(ch04._swap_shifts())!r}\n"
                           "weights_4_3 = idf_weights([p[0] for p in ch04.SWAP_PAIRS] + [p[1] for p in "
                           "ch04.SWAP_PAIRS], tokenizer)",
        ("answer_4_4", 0): f"answer_4_4 = {ch04.CAT_CANDIDATES[win]!r}\n"
                           f"weakest_4_4 = {ch04._weakest_token(ch04.CAT_CANDIDATES[1 - win], ch04.CAT_REFERENCE)!r}",
        ("answer_4_5", 0): f"    return {list(ch04._tokens_matching_special(*ch04.PUNCTUATION_PAIR))!r}, "
                           f"{ch04._special_credit(*ch04.PUNCTUATION_PAIR)[1]!r}",  # a function of the published pair
    }


FORGERY = """import os, sys
os.environ["COURSE_GRADING"] = ""  # learning mode: a failing check would only print
for _name, _module in list(sys.modules.items()):
    if _name.startswith("course_lib.course.checks"):
        _module.run = lambda exercise, *a, **k: print(f"✅ Exercise {exercise}: passed.") or True
"""


def _student(kind: str, release, source, published):
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells if "nbgrader" in c.metadata}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        gid = meta.get("grade_id", "")
        if kind == "blank" or not gid or gid == "setup":
            continue
        if kind == "forger":
            ex = gid.split("_", 1)[1].replace("_", ".")
            if meta.get("grade") and meta.get("locked"):  # the test cell: nbgrader must restore it
                cell.source = f'print("✅ Exercise {ex}: passed.")'
            elif cell.cell_type == "code":  # the stubs defined but empty, and every checker's `run` patched
                cell.source = (FORGERY + cell.source.replace("raise NotImplementedError()", "pass")
                               + f'\nprint("✅ Exercise {ex}: passed.")')
            continue
        if meta.get("locked"):
            continue
        cell.source = solutions[gid]
        if kind == "hardcoder":
            for (answer, k), text in published.items():
                if gid == answer:
                    cell.source = _replace_region(cell.source, k, text)
        if kind == "partly" and gid == "answer_4_1":  # padding left in the mean
            cell.source = _replace_region(cell.source, 0, "    return float(sim.max(dim=1).values.clamp(min=0).mean()), "
                                                           "float(sim.max(dim=0).values.clamp(min=0).mean())")
        if kind == "partly" and gid == "answer_4_5":
            cell.source = _replace_region(cell.source, 0, '    return ["the"], 0.0')
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The course folder after generate_assignment, autograde of every simulated student, and export."""
    root = tmp_path_factory.mktemp("nbgrader-course")
    nbgrader_course.write_course(root, secret=SECRET, chapters=[CH04])
    published = _published()
    for chapter, students in STUDENTS.items():
        _nbgrader(root, "generate_assignment", chapter, "--force")
        release = nbformat.read(root / "release" / chapter / f"{chapter}.ipynb", as_version=4)
        source = nbformat.read(root / "source" / chapter / f"{chapter}.ipynb", as_version=4)
        text = json.dumps(release)
        seed = str(derived_seed(SECRET, chapter, "older checkers") % 10 ** 9)  # this assignment's seed
        assert "BEGIN SOLUTION" not in text and "notebooks/0" not in text
        assert SECRET not in text + json.dumps(source.cells) and seed not in text + json.dumps(source.cells)
        for kind in students:
            path = root / "submitted" / kind / chapter / f"{chapter}.ipynb"
            path.parent.mkdir(parents=True)
            nbformat.write(_student(kind, release, source, published), path)
        _nbgrader(root, "autograde", chapter, "--create", "--force")
    _nbgrader(root, "export", "--to", str(root / "grades.csv"))
    return root


def _scores(root: Path, chapter: str, student: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        nb = gb.find_submission_notebook(chapter, chapter, student)
        return {g.name: g.score for g in nb.grades if g.cell.cell_type == "code"}


def test_the_course_folder_is_what_nbgrader_expects(tmp_path):
    written = nbgrader_course.write_course(tmp_path, url="https://example.org/bertscore-course.zip")
    assert {p.parent.name for p in written} >= {CH04, CH05, "01_lexical_metrics", "08_human_agreement"}
    config = (tmp_path / "nbgrader_config.py").read_text()
    assert 'kernel_name = "bertscore-course"' in config and 'COURSE_GRADING"] = "1"' in config
    for path in written:
        nb = nbformat.read(path, as_version=4)
        assert nb.metadata.kernelspec.name == "bertscore-course"
        first = nb.cells[0]  # Colab's set-up cell, with the archive's URL; not graded, locked (nbgrader restores it)
        assert "course-setup" in first.metadata.tags and first.metadata.nbgrader.locked, path
        assert not first.metadata.nbgrader.grade and not first.metadata.nbgrader.solution, path
        assert "COURSE_URL = 'https://example.org/bertscore-course.zip'" in first.source
        folding = re.search(r"\bunfold|\b(is|are) folded\b|three dots", json.dumps([c.source for c in nb.cells]), re.I)
        assert not folding, f"{path.name} speaks of folded cells, which nbgrader's release has not: {folding}"
        tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]
        written_answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")
                           and c.cell_type == "markdown"]
        assert tests and all(c.metadata.nbgrader.locked and c.metadata.nbgrader.points > 0 for c in tests)
        assert all("<!--" not in c.source and not c.metadata.nbgrader.locked for c in written_answers)
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
        for c in nb.cells:  # a check call only in a test cell; an answer region only in an answer cell
            kind = c.metadata.get("nbgrader", {})
            if re.search(r"\bch\w+\.check_\d+_\d+\(", c.source) and c.cell_type == "code":
                assert kind.get("grade") and kind.get("locked"), c.source[:80]
            if "BEGIN SOLUTION" in c.source:
                assert kind.get("solution") and not kind.get("grade"), c.source[:80]


def test_grades_of_simulated_students(graded):
    report = {}
    for chapter, students in STUDENTS.items():
        for kind in students:
            report[(chapter, kind)] = _scores(graded, chapter, kind)
    print("\n".join(f"{c} {k}: {s}" for (c, k), s in report.items()))
    for chapter in STUDENTS:
        auto_max = nbgrader_course.CHECK_POINTS * len(report[(chapter, "right")])
        assert auto_max >= nbgrader_course.CHECK_POINTS * 3
        assert sum(report[(chapter, "right")].values()) >= 0.95 * auto_max, report[(chapter, "right")]
        hard = report[(chapter, "hardcoder")]
        assert all(hard[t] == 0 for t in VALUE_TESTS[chapter]), hard
        assert all(hard[t] == nbgrader_course.CHECK_POINTS for t in FUNCTION_TESTS[chapter]), hard
    assert sum(report[(CH04, "blank")].values()) == 0
    assert sum(report[(CH04, "forger")].values()) == 0, report[(CH04, "forger")]
    partly = report[(CH04, "partly")]
    assert partly["test_4_1"] == 0 and partly["test_4_5"] == 0
    assert all(v == nbgrader_course.CHECK_POINTS for k, v in partly.items() if k not in ("test_4_1", "test_4_5"))


def test_export_and_no_code_hint_in_graded_notebooks(graded):
    rows = {(r["assignment"], r["student_id"]): r for r in csv.DictReader((graded / "grades.csv").open())}
    for chapter, students in STUDENTS.items():
        for kind in students:
            assert float(rows[(chapter, kind)]["score"]) == sum(_scores(graded, chapter, kind).values())
        assert float(rows[(chapter, "right")]["max_score"]) > float(rows[(chapter, "right")]["score"]) > 0
    for path in (graded / "autograded").rglob("*.ipynb"):
        text = json.dumps([c.get("outputs", []) for c in nbformat.read(path, as_version=4).cells])
        assert "Code:" not in text and "hint=2" not in text and "More help" not in text, path
        whole = path.read_text()
        seeds = [str(derived_seed(SECRET, chapter, "older checkers") % 10 ** 9) for chapter in STUDENTS]
        assert SECRET not in whole and not any(seed in whole for seed in seeds), path  # the seed never in a notebook
