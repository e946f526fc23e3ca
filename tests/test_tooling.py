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
    assert "| **chapters 00–09 together** | **86** (1.4 min) |" in text
