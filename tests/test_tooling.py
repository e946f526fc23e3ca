"""The README blocks that tools regenerate (benchmark figures, notebook run times)."""
import pytest

from course_lib.course.run_notebooks import replace_block, write_readme


def test_replace_block_replaces_only_between_its_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("top\n<!-- X:START -->\nold\n<!-- X:END -->\nbottom\n<!-- Y:START -->\nkeep\n<!-- Y:END -->\n")
    replace_block(readme, "X", "new\nlines")
    assert readme.read_text() == ("top\n<!-- X:START -->\nnew\nlines\n<!-- X:END -->\nbottom\n"
                                  "<!-- Y:START -->\nkeep\n<!-- Y:END -->\n")
    replace_block(readme, "X", "new\nlines")  # idempotent
    assert readme.read_text().count("new\nlines") == 1


def test_replace_block_refuses_a_file_without_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no markers\n")
    with pytest.raises(SystemExit, match="RUNTIMES"):
        replace_block(readme, "RUNTIMES", "x")


def test_run_times_table_sums_the_chapters_only(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("<!-- RUNTIMES:START -->\n<!-- RUNTIMES:END -->\n")
    write_readme({"00_a.ipynb": 14.2, "08_b.ipynb": 71.9, "demo.ipynb": 11.0}, readme)
    text = readme.read_text()
    assert "| 08_b.ipynb | 72 |" in text and "| demo.ipynb | 11 |" in text
    assert "| **chapters 00–08 together** | **86** (1.4 min) |" in text  # the span of the chapters run


# ------------------------------------------------------------------ make check EX=N.M

def _notebook(*cells):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(src[3:]) if src.startswith("md:") else nbformat.v4.new_code_cell(src)
                for src in cells]
    return nb


def test_an_exercise_runs_only_the_cells_it_needs():
    from course_lib.course.run_notebooks import cells_for_exercise, exercise_notebook

    nb = _notebook(
        "import course_lib\nfrom course_lib.teaching.notebook import setup\nsetup()",  # 0: set-up
        "import numpy as np\nimport pandas as pd",                                     # 1
        "scores = expensive_scoring()",                                                # 2: heavy, not needed
        "table = pd.DataFrame({'a': [1.0]})",                                          # 3
        "table['b'] = np.sqrt(table['a'])",                                            # 4: modifies table
        "md:## Exercises\n\n### Exercise 8.2 — pick the layer",                         # 5
        "def best(t):\n    return int(np.argmax(t.mean()))\n\n\nprint(best(scores))",   # 6
        "_ = ch08.check_8_2(best, table)",                                             # 7
        "md:### Exercise 8.3 — later",                                                 # 8
        "auc = 1",                                                                     # 9
    )
    assert cells_for_exercise(nb, "8.2") == [0, 1, 2, 3, 4, 6, 7]  # the print line reads `scores`
    sub = exercise_notebook(nb, "8.2")  # without the display lines: the heavy cell 2 is not needed
    assert [c.source for c in sub.cells] == [nb.cells[i].source for i in (0, 1, 3, 4)] + [
        "def best(t):\n    return int(np.argmax(t.mean()))\n\n\n", "_ = ch08.check_8_2(best, table)"]
    assert cells_for_exercise(nb, "8.3") == [0, 9]


def test_the_chapter_heavy_cells_are_left_out_for_a_code_exercise():
    import nbformat

    from course_lib.course.run_notebooks import exercise_notebook
    from course_lib.paths import NOTEBOOKS

    nb = nbformat.read(NOTEBOOKS / "student" / "08_human_agreement.ipynb", as_version=4)
    sub = exercise_notebook(nb, "8.2")
    assert len(sub.cells) <= 5, [c.source[:60] for c in sub.cells]
    assert not any("course_lib.score(" in c.source for c in sub.cells)  # the scoring of all of WMT16
    assert any("check_8_2(" in c.source for c in sub.cells)


def test_check_one_exercise_end_to_end_without_kernel_noise(tmp_path):
    import os
    import shutil
    import subprocess
    import sys

    from course_lib.paths import NOTEBOOKS, ROOT

    student = tmp_path / "01_lexical_metrics.ipynb"
    shutil.copy(NOTEBOOKS / "student" / student.name, student)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COURSE_FIGURES": str(tmp_path / "figures")}
    run = subprocess.run([sys.executable, "-m", "course_lib.course.run_notebooks", "--checks", "--exercise", "1.2",
                          str(student)], capture_output=True, text=True, env=env, timeout=300)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out  # the student copy's stub fails its check
    assert "❌ Exercise 1.2: not yet" in out and "Exercise 1.1" not in out, out
    assert "without encryption" not in out and "Traceback" not in out, out


def test_an_exercise_runs_only_the_statements_it_needs():
    """Within an earlier cell, only the statements that define (or modify) a name the exercise reads
    run: no figure, no print, no table; a function's parameters and locals are not names it needs."""
    from course_lib.course.run_notebooks import exercise_notebook

    nb = _notebook(
        "import course_lib\nfrom course_lib.teaching.notebook import setup\nsetup()",           # 0: set-up
        "import numpy as np\nimport matplotlib.pyplot as plt\nrows = []\nscores = np.arange(3)",  # 1
        "fig, ax = plt.subplots()\nax.plot(scores)\nplt.show()\nrows.append(scores.sum())\nprint(rows)",  # 2
        "labels = heavy_model()\nauc = 0.5",                                                      # 3: auc rebound below
        "md:### Exercise 8.3 — write it",                                                         # 4
        "def auc(scores, labels):\n    return float(np.mean(scores))\n\n\nprint(auc(scores, labels))",  # 5
        "_ = ch08.check_8_3(auc, rows)",                                                         # 6
    )
    sub = exercise_notebook(nb, "8.3")
    assert [c.source for c in sub.cells] == [
        nb.cells[0].source, "import numpy as np\nrows = []\nscores = np.arange(3)", "rows.append(scores.sum())\n",
        "def auc(scores, labels):\n    return float(np.mean(scores))\n\n\n", "_ = ch08.check_8_3(auc, rows)"]


def test_a_function_that_fills_an_outer_dict_reads_it():
    """`best[k] = v` inside a function changes the chapter's `best`: the statement that created it runs
    too (make check EX=10.3 once raised "name 'best_epoch' is not defined" from a sliced cell)."""
    from course_lib.course.run_notebooks import exercise_notebook

    nb = _notebook(
        "import course_lib\nfrom course_lib.teaching.notebook import setup\nsetup()",  # 0: set-up
        "best = {}\nunused = 1",                                                   # 1
        "def fit(k):\n    local = k + 1\n    best[k] = local\n    return local\ntable = {k: fit(k) for k in range(3)}",
        "md:### Exercise 10.3 — use it",
        "_ = ch10.check_10_3(table)",
    )
    sub = exercise_notebook(nb, "10.3")
    assert [c.source for c in sub.cells][:2] == [nb.cells[0].source, "best = {}\n"]


def test_what_follows_the_last_check_is_not_run():
    """The cells after an exercise's check (the library's version, a worked example) are for reading:
    `make check EX=1.4` once loaded the model for a cell after the check and took 50 s."""
    from course_lib.course.run_notebooks import exercise_notebook

    nb = _notebook(
        "import course_lib\nfrom course_lib.teaching.notebook import setup\nsetup()",  # 0: set-up
        "failures = heavy_model()",                                                # 1
        "md:### Exercise 1.4 — write it",
        "def f(x):\n    return x\n",
        "_ = ch01.check_1_4(f)",
        "summary = len(failures)",                                                 # after the check
    )
    sub = exercise_notebook(nb, "1.4")
    assert [c.source for c in sub.cells] == [nb.cells[0].source, nb.cells[3].source, nb.cells[4].source]


def test_a_loop_variable_is_not_read_from_an_earlier_cell():
    """`for cand in ...:` binds `cand` itself: an earlier cell that also used the name `cand` is not needed
    (`make check EX=1.5` once ran a cell that loads the model for it)."""
    from course_lib.course.run_notebooks import exercise_notebook

    nb = _notebook(
        "import course_lib\nfrom course_lib.teaching.notebook import setup\nsetup()",  # 0: set-up
        "for label, cand in heavy_pairs():\n    view = heavy_model(cand)",         # 1
        "md:### Exercise 1.5 — pick",
        "picks = []\nfor label, cand in CANDIDATES.items():\n    picks.append(len(cand))",
        "_ = ch01.check_1_5(picks)",
    )
    sub = exercise_notebook(nb, "1.5")
    assert [c.source for c in sub.cells] == [nb.cells[0].source, nb.cells[3].source, nb.cells[4].source]
