"""The student notebooks are generated from the solution notebooks and kept up to date."""

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


@pytest.mark.parametrize("module, check, wrong, code", [
    ("ch03", "check_3_3", lambda c, r, cm, rm: c @ r.transpose(1, 2), "cand_mask[:, :, None] & ref_mask[:, None, :]"),
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
