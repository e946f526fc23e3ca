"""The student notebooks are generated from the solution notebooks and kept up to date."""

import sys

import nbformat
import pytest

from course_lib.course import exercises
from course_lib.course.checks import close, run


def test_code_solution_becomes_indented_stub():
    src = "def f(x):\n    ### BEGIN SOLUTION\n    y = x + 1\n    return y\n    ### END SOLUTION\n\nprint(f)"
    assert exercises.strip_code(src) == "def f(x):\n    raise NotImplementedError()\n\nprint(f)"


def test_markdown_answer_is_removed():
    src = "**Answer:** <!-- BEGIN SOLUTION -->Because idf.<!-- END SOLUTION -->"
    assert exercises.strip_markdown(src) == "**Answer:** *Your answer here.*"


def test_student_version_clears_outputs_and_solutions():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x = 1\n### BEGIN SOLUTION\nx = 2\n### END SOLUTION\n")
    cell.outputs = [nbformat.v4.new_output("stream", text="hi")]
    nb.cells = [cell]
    out = exercises.student_version(nb)
    assert out.cells[0].outputs == []
    assert "x = 2" not in out.cells[0].source and "NotImplementedError" in out.cells[0].source


def test_there_are_solution_notebooks():
    """The parametrized test below would skip silently on an empty list."""
    names = [p.name for p in exercises.solution_notebooks()]
    assert len(names) >= 9, names
    assert sorted(p.name for p in exercises.STUDENT.glob("*.ipynb")) == names  # no stale extra copy


@pytest.mark.parametrize("path", exercises.solution_notebooks(), ids=lambda p: p.name)
def test_student_notebook_is_up_to_date(path):
    student = exercises.STUDENT / path.name
    assert student.exists(), f"{student} missing: run `make student`"
    assert student.read_text() == exercises.render(path), f"{student.name} is stale: run `make student`"
    assert "BEGIN SOLUTION" not in student.read_text()


def test_checker_turns_failures_into_hints(capsys):
    def stub():
        raise NotImplementedError()

    assert run("0.1", stub, "try harder") is False
    assert run("0.1", lambda: None, "") is True
    assert run("0.1", lambda: 1 / 0, "x") is False
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("❌") and "replace" in lines[0] and lines[1].startswith("✅")
    assert "ZeroDivisionError" in lines[2]
    assert close(0.1 + 0.2, 0.3) and not close(0.3, 0.31) and not close("a", 1)


# ------------------------------------------------------------------ hints in two tiers

def _mean_not_max(sim):
    return float(sim.mean(dim=1).mean()), float(sim.mean(dim=0).mean())


def test_first_failure_names_the_concept_and_case_not_the_code(capsys):
    from course_lib.course.checks import ch04, reset_attempts

    reset_attempts()
    assert ch04.check_4_1(_mean_not_max) is False
    first = capsys.readouterr().out
    assert "best match" in first and "matrix: P should be" in first  # the concept and the failing case
    assert "sim.max(dim=1)" not in first and "hint=2" in first


def test_code_hint_after_repeated_failures_or_on_request(capsys):
    from course_lib.course.checks import CODE_HINT_AFTER, ch04, reset_attempts

    reset_attempts()
    for _ in range(CODE_HINT_AFTER):
        ch04.check_4_1(_mean_not_max)
    assert "sim.max(dim=1)" not in capsys.readouterr().out
    ch04.check_4_1(_mean_not_max)
    assert "sim.max(dim=1)" in capsys.readouterr().out
    reset_attempts()
    ch04.check_4_1(_mean_not_max, hint=2)
    assert "sim.max(dim=1)" in capsys.readouterr().out


def test_an_untouched_stub_does_not_count_as_an_attempt(capsys):
    from course_lib.course.checks import CODE_HINT_AFTER, ch08, reset_attempts

    def stub(scores, labels):
        raise NotImplementedError()

    reset_attempts()
    for _ in range(CODE_HINT_AFTER + 2):
        ch08.check_8_3(stub)
    out = capsys.readouterr().out
    assert "replace `raise NotImplementedError()`" in out and "mannwhitneyu" not in out


def test_the_stub_hint_goes_on_as_a_sentence(capsys):
    """After "... with your code." the hint starts with a capital letter (it used to go on lower-case),
    unless it starts with code."""
    from course_lib.course.checks import _sentence, reset_attempts, run

    def stub():
        raise NotImplementedError()

    reset_attempts()
    run("0.9", stub, "score both texts, then subtract.")
    assert "with your code. Score both texts" in capsys.readouterr().out
    assert _sentence("idf=True takes") == "idf=True takes"


def test_the_code_shows_after_repeats_of_one_mistake_not_after_different_slips(capsys):
    """Three different honest slips never bring the code; the same mistake three times does (its
    numbers may change)."""
    from course_lib.course.checks import CODE_HINT_AFTER, reset_attempts, run

    def failing(message):
        def test():
            raise AssertionError(message)
        return test

    reset_attempts()
    for slip in ("wrong order", "a string, not a number", "NaN from 0 * (-inf)"):
        run("0.9", failing(slip), "the idea", code="secret_code()")
    assert "secret_code" not in capsys.readouterr().out
    for k in range(CODE_HINT_AFTER):
        run("0.9", failing(f"P should be 0.5, yours 0.{k}"), "the idea", code="secret_code()")
    assert "secret_code" not in capsys.readouterr().out
    run("0.9", failing("P should be 0.5, yours 0.7"), "the idea", code="secret_code()")
    assert "secret_code" in capsys.readouterr().out
    reset_attempts("0.9")
    run("0.9", failing("P should be 0.5, yours 0.7"), "the idea", code="secret_code()")
    assert "secret_code" not in capsys.readouterr().out


@pytest.mark.parametrize("module, check, wrong, code", [
    ("ch03", "check_3_3", lambda c, r, cm, rm: c @ r.transpose(1, 2), "cand_real[:, :, None] & ref_real[:, None, :]"),
    ("ch08", "check_8_3", lambda scores, labels: 0.5, "mannwhitneyu(pos, neg).statistic / (len(pos) * len(neg))"),
])
def test_the_full_expression_is_a_second_tier_hint(module, check, wrong, code, capsys):
    import importlib

    from course_lib.course.checks import reset_attempts

    fn = getattr(importlib.import_module(f"course_lib.course.checks.{module}"), check)
    reset_attempts()
    fn(wrong)
    assert code not in capsys.readouterr().out
    fn(wrong, hint=2)
    assert code in capsys.readouterr().out


# ------------------------------------------------------------------ hints from the terminal

ROOT = exercises.NOTEBOOKS.parent


def _lcs_in_candidate_order(cand_tokens, ref_tokens):  # the planted mistake the runs below repeat
    return [w for w in cand_tokens if w in ref_tokens]


FAIL_1_3 = ("from course_lib.course.checks import ch01\n"
            "def lcs_words(cand_tokens, ref_tokens):\n"
            "    return [w for w in cand_tokens if w in ref_tokens]\n"
            "ch01.check_1_3(lcs_words)\n")


def _solution_line(ex_id, marker):
    """A line of the solution the check shows: the solution notebook's own (checks.solutions), never the checker's."""
    from course_lib.course.checks import ch01
    from course_lib.course.checks.solutions import solution_text

    return next(line.strip() for line in solution_text(ch01.EXERCISES[ex_id]).splitlines() if marker in line)


CODE_1_3 = _solution_line("1.3", "walk back from the last cell")
RIGHT_1_3 = ("from course_lib.lexical.rouge import lcs_length\n"
             "    L = [[lcs_length(cand_tokens[:i], ref_tokens[:j]) for j in range(len(ref_tokens) + 1)] "
             "for i in range(len(cand_tokens) + 1)]\n"
             "    back = lambda i, j: [] if i == 0 or j == 0 else (back(i - 1, j - 1) + [cand_tokens[i - 1]] "
             "if cand_tokens[i - 1] == ref_tokens[j - 1] else back(i - 1, j) if L[i - 1][j] >= L[i][j - 1] "
             "else back(i, j - 1))\n"
             "    return back(len(cand_tokens), len(ref_tokens))")


def _env(cache, **extra):
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("COURSE_HINT", "COURSE_CACHE")}
    return {**env, "COURSE_CACHE": str(cache), "PYTHONPATH": str(ROOT), **extra}


def _fresh_process(code, env):
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_failed_attempts_are_remembered_across_processes(tmp_path):
    """Each `make check` runs a fresh kernel: the count of failed attempts lives in the cache folder, so
    the same slip in a sequence of failing fresh processes reaches the solution (the notebook's) on the third;
    a pass forgets it."""
    from course_lib.course.checks.exercise import CODE_HINT_AT

    cache = tmp_path / "cache"
    env = _env(cache)
    outs = [_fresh_process(FAIL_1_3, env) for _ in range(CODE_HINT_AT)]
    assert all(o.startswith("❌ Exercise 1.3") for o in outs), outs
    assert all(CODE_1_3 not in o and "hint=2" in o for o in outs[:-1]), outs
    assert CODE_1_3 in outs[-1], outs[-1]
    assert (cache / "attempts.json").is_file() and '"1.3": 3' in (cache / "attempts.json").read_text()
    # a pass forgets the failures: the next failure gives the concept hint again
    fixed = FAIL_1_3.replace("return [w for w in cand_tokens if w in ref_tokens]", RIGHT_1_3)
    assert _fresh_process(fixed, env).startswith("✅ Exercise 1.3")
    assert CODE_1_3 not in _fresh_process(FAIL_1_3, env)


def test_course_hint_2_shows_the_code_hint_at_once(tmp_path):
    out = _fresh_process(FAIL_1_3, _env(tmp_path / "cache", COURSE_HINT="2"))
    assert out.startswith("❌ Exercise 1.3") and CODE_1_3 in out, out


def test_the_attempts_file_is_in_the_user_cache_folder_never_in_the_course(monkeypatch, tmp_path):
    from course_lib import paths
    from course_lib.course.checks import attempts_file

    monkeypatch.delenv("COURSE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    default = attempts_file()
    assert ROOT not in default.parents
    if sys.platform.startswith("linux"):
        assert default == tmp_path / "xdg" / "bertscore-course" / "attempts.json"
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path / "mine"))
    assert attempts_file() == tmp_path / "mine" / "attempts.json" and paths.user_cache_dir() == tmp_path / "mine"


def test_a_garbled_attempts_file_is_started_afresh(tmp_path, monkeypatch, capsys):
    from course_lib.course.checks import attempts_file, ch01, failed_attempts

    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    attempts_file().write_text("{not json")
    assert ch01.check_1_3(_lcs_in_candidate_order) is False
    assert "your code raised" not in capsys.readouterr().out
    assert failed_attempts("1.3") == 1


def _git_status():
    import subprocess

    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout


def _student_copy(tmp_path):
    """A student's notebook 01 with a wrong 1.3 answer (outside the course folder)."""
    nb = nbformat.read(exercises.STUDENT / "01_lexical_metrics.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "def lcs_words" in c.source)
    cell.source = FAIL_1_3.split("\n", 1)[1].rsplit("ch01.check", 1)[0]
    path = tmp_path / "01_lexical_metrics.ipynb"
    nbformat.write(nb, path)
    return path


def test_make_check_hint_levels_end_to_end(tmp_path):
    """`make check ... EX=1.3 HINT=2` shows the code at once; without HINT, a run after two remembered
    failures shows it too; nothing is written into the course folder."""
    import subprocess

    from course_lib.course.checks.exercise import CODE_HINT_AT

    before = _git_status()
    student = _student_copy(tmp_path)
    cache = tmp_path / "cache"
    make = ["make", "-s", "-o", ".venv/.installed", "check", f"NB={student}", "EX=1.3"]
    run = subprocess.run(make + ["HINT=2"], cwd=ROOT, capture_output=True, text=True, env=_env(cache), timeout=600)
    assert "❌ Exercise 1.3" in run.stdout and CODE_1_3 in run.stdout, run.stdout + run.stderr
    same_copy = dict(_env(cache), JPY_SESSION_NAME=str(student))  # attempts count per notebook copy
    for _ in range(CODE_HINT_AT - 2):  # the HINT=2 run counted as one failed attempt, the last run is the third
        assert CODE_1_3 not in _fresh_process(FAIL_1_3, same_copy)
    run = subprocess.run(make, cwd=ROOT, capture_output=True, text=True, env=_env(cache), timeout=600)
    assert "❌ Exercise 1.3" in run.stdout and CODE_1_3 in run.stdout, run.stdout + run.stderr
    assert _git_status() == before


def test_every_notebook_asks_for_the_course_kernel():
    """Solution, student and demo notebooks: a notebook asking for "python3" makes nbgrader (or a hub)
    run it without the course, a silent zero. `make kernel` fixes one after a merge."""
    paths = exercises.all_notebooks()
    assert {p.name for p in paths} >= {"demo.ipynb", "04_greedy_matching.ipynb"}
    assert any(p.parent == exercises.STUDENT for p in paths)
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        assert nb.metadata["kernelspec"]["name"] == "bertscore-course", path.name
        assert nb.metadata["kernelspec"]["display_name"] == "BERTScore course", path.name


def test_set_kernel_changes_only_the_kernelspec(tmp_path):
    path = tmp_path / "n.ipynb"
    source = exercises.NOTEBOOKS / "04_greedy_matching.ipynb"
    text = source.read_text(encoding="utf-8").replace('"name": "bertscore-course"', '"name": "python3"')
    path.write_text(text, encoding="utf-8")
    assert exercises.set_kernel(path) and not exercises.set_kernel(path)
    after = path.read_text(encoding="utf-8").splitlines()
    changed = [a for a, b in zip(after, text.splitlines()) if a != b]
    assert len(after) == len(text.splitlines()) and len(changed) == 1 and '"bertscore-course"' in changed[0]


def test_running_a_chapter_leaves_the_course_folder_clean(tmp_path):
    """What a student does: run chapter 01 top to bottom, without COURSE_FIGURES (or COURSE_CACHE).
    Its figures go to the per-user output folder; no committed file changes."""
    import os
    import subprocess
    import sys
    import time

    from course_lib.teaching import notebook

    env = {k: v for k, v in os.environ.items() if k not in ("COURSE_FIGURES", "COURSE_CACHE", "COURSE_HINT")}
    env["PYTHONPATH"] = str(ROOT)
    before, start = _git_status(), time.time()
    run = subprocess.run([sys.executable, "-m", "course_lib.course.run_notebooks",
                          str(exercises.NOTEBOOKS / "01_lexical_metrics.ipynb")],
                         cwd=ROOT, capture_output=True, text=True, env=env, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    assert _git_status() == before
    old = {name: os.environ.pop(name, None) for name in ("COURSE_CACHE", "COURSE_FIGURES")}  # make test sets both
    try:
        folder = notebook.figures_dir()  # the default a student gets
    finally:
        os.environ.update({name: value for name, value in old.items() if value is not None})
    assert ROOT not in folder.parents
    saved = folder / "ch01_failures.png"
    assert saved.is_file() and saved.stat().st_mtime >= start - 1


def test_a_check_leaves_the_lazy_course_lib_names_as_they_were():
    """course_lib imports `score` on first use (PEP 562). A check that switches course_lib.engine.scorer.score
    off while the student's function runs must not leave the switched-off function behind in course_lib."""
    import pytest

    import course_lib
    from course_lib.course.checks import ForbiddenCall, forbid
    from course_lib.engine import scorer

    vars(course_lib).pop("score", None)  # as in a fresh kernel: never looked up yet

    def uses_the_library(cands, refs):
        return course_lib.score(cands, refs)

    with pytest.raises(ForbiddenCall):
        forbid(uses_the_library, "course_lib.engine.scorer.score")(["a"], ["b"])
    from course_lib import score

    assert course_lib.score is scorer.score and score is scorer.score
    assert scorer.score.__module__ == "course_lib.engine.scorer" and not hasattr(scorer.score, "__wrapped__")


def test_one_mistake_on_other_numbers_is_the_same_mistake():
    """A hint that reads "yours -inf" one time and "yours 0.6123" or "yours nan" the next names the same slip
    (4.1 counted them as two, so the code never showed on the third repeat)."""
    from course_lib.course.checks import _mistake

    same = {_mistake(f"P should be 0.7312, yours {x} (3 real rows)") for x in ("-inf", "0.6123", "nan", "-0.25")}
    assert len(same) == 1
    assert _mistake("P and R are swapped") != _mistake("the information is missing")  # words that hold "inf" stay
    assert _mistake("yours information") != _mistake("yours 3")
