"""The checks' two modes: learning (✅/❌, escalating hints, attempts per notebook copy) and grading
($COURSE_GRADING, nbgrader's runs: a failing check raises with its first-level hint, shows no code,
keeps no attempts; value exercises run on data drawn with the grading seed)."""
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib.course import checks
from course_lib.course.checks import CODE_HINT_AFTER, attempts_file, ch04, run

ROOT = Path(__file__).resolve().parents[1]


def _wrong():
    raise AssertionError("the case: 2 is not 3")


def test_grading_mode_raises_the_first_level_hint_and_keeps_no_attempts(monkeypatch, capsys):
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_HINT", "2")  # even when every hint is asked for at once
    for level in (1, 2, 2, 2, 2):
        with pytest.raises(AssertionError) as err:
            run("0.7", _wrong, "the idea", code="secret_code()", level=level)
        assert "the idea" in str(err.value) and "2 is not 3" in str(err.value)
        assert "secret_code" not in str(err.value) and "Code:" not in str(err.value)
    with pytest.raises(AssertionError, match="replace"):
        run("0.7", lambda: (_ for _ in ()).throw(NotImplementedError()), "the idea", code="secret_code()")
    assert "secret_code" not in capsys.readouterr().out
    assert not attempts_file().exists()
    assert run("0.7", lambda: None, "the idea") is True  # a pass still passes


def test_a_real_check_raises_in_grading_mode(monkeypatch):
    monkeypatch.setenv("COURSE_GRADING", "1")
    with pytest.raises(AssertionError, match="Exercise 4.1") as err:
        ch04.check_4_1(lambda sim: (0.0, 0.0), hint=2)
    assert "Code:" not in str(err.value) and "isfinite" not in str(err.value)
    assert not attempts_file().exists()


def test_learning_mode_still_prints_and_returns(capsys):
    assert ch04.check_4_1(lambda sim: (0.0, 0.0)) is False
    assert capsys.readouterr().out.startswith("❌ Exercise 4.1")


def test_attempts_are_counted_per_notebook_copy(monkeypatch, capsys):
    """One account grading (or helping) 40 students: a failure in one student's file never brings
    the code-level hint to another's."""
    monkeypatch.setenv("JPY_SESSION_NAME", "/class/alice/04_greedy_matching.ipynb")
    for _ in range(CODE_HINT_AFTER + 1):
        run("0.8", _wrong, "the idea", code="secret_code()")
    assert "secret_code" in capsys.readouterr().out.splitlines()[-1]
    monkeypatch.setenv("JPY_SESSION_NAME", "/class/bob/04_greedy_matching.ipynb")
    checks._FAILURES.clear()  # a fresh kernel for bob's file
    run("0.8", _wrong, "the idea", code="secret_code()")
    assert "secret_code" not in capsys.readouterr().out
    counts = {nb: {k: v for k, v in c.items() if "#" not in k}  # beside each mistake's own count
              for nb, c in json.loads(attempts_file().read_text()).items()}
    assert counts == {str(Path("/class/alice/04_greedy_matching.ipynb").resolve()): {"0.8": CODE_HINT_AFTER + 1},
                      str(Path("/class/bob/04_greedy_matching.ipynb").resolve()): {"0.8": 1}}


# Helpers that only data providers may be public: a public function of a checker returns data a
# notebook reads, never an answer.
DATA_PROVIDERS = {"hidden_data", "colleague_tau_b", "batches_7_4", "pairs_7_8", "task_8_1", "sentences", "order_test_data", "data_8_5", "data_8_6",
                  "answers_9_4", "edits_9_5"}


def test_no_public_helper_of_a_checker_computes_an_answer():
    import importlib

    for path in sorted((ROOT / "course_lib" / "course" / "checks").glob("ch*.py")):
        module = importlib.import_module(f"course_lib.course.checks.{path.stem}")
        public = {name for name, fn in vars(module).items() if inspect.isfunction(fn)
                  and fn.__module__ == module.__name__ and not name.startswith("_")}
        assert public or path.stem.endswith("_cases"), path.stem  # a _cases module holds a chapter's cases only
        stray = {n for n in public if not n.startswith("check_")} - DATA_PROVIDERS
        assert not stray, f"{path.stem}: public helpers {sorted(stray)}"


HIDDEN = """
import json, sys
from course_lib.course.checks import ch04
print(json.dumps([ch04.SWAP_PAIRS, ch04.CAT_REFERENCE, ch04.CAT_CANDIDATES, ch04.PUNCTUATION_PAIR]))
"""


def _data(env_extra):
    env = {k: v for k, v in os.environ.items() if k not in ("COURSE_GRADING", "COURSE_GRADING_SEED")}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", HIDDEN], env=env, capture_output=True, text=True, timeout=300,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_value_exercises_run_on_hidden_data_drawn_with_the_grading_seed():
    published = _data({})
    seed_a = _data({"COURSE_GRADING": "1", "COURSE_GRADING_SEED": "11"})
    seed_b = _data({"COURSE_GRADING": "1", "COURSE_GRADING_SEED": "12"})
    assert seed_a == _data({"COURSE_GRADING": "1", "COURSE_GRADING_SEED": "11"})  # one seed, one data set
    for k, (p, a, b) in enumerate(zip(published, seed_a, seed_b)):
        assert p != a and a != b, f"item {k} of the hidden data"


def test_make_check_reads_results_from_the_checks_not_printed_text(tmp_path, capsys):
    """A student who replaces a check cell by a printed ✅ passes nothing in make check's table."""
    import nbformat

    from course_lib.course import exercises, run_notebooks

    nb = nbformat.read(exercises.STUDENT / "01_lexical_metrics.ipynb", as_version=4)
    check = next(c for c in nb.cells if c.cell_type == "code" and "check_1_3(" in c.source)
    check.source = 'print("✅ Exercise 1.3: passed.")'
    path = tmp_path / "01_lexical_metrics.ipynb"
    nbformat.write(nb, path)
    assert run_notebooks.main(["--checks", "--exercise", "1.3", str(path)]) == 1
    out = capsys.readouterr().out
    assert "| 1.3 | ❌ no check ran |" in out, out
    # the right answer, checked for real, passes
    solution = nbformat.read(exercises.NOTEBOOKS / "01_lexical_metrics.ipynb", as_version=4)
    path2 = tmp_path / "right" / "01_lexical_metrics.ipynb"
    path2.parent.mkdir()
    nbformat.write(solution, path2)
    assert run_notebooks.main(["--checks", "--exercise", "1.3", str(path2)]) == 0
    assert "| 1.3 | ✅ passed |" in capsys.readouterr().out
