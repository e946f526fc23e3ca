"""What nbval compares must be able to fail, and must not change with the CPU.

1. The committed outputs of every notebook print no value at float precision raw: a difference of
   1e-7 (or an exact 0.0e+00) depends on the CPU and its thread count, so nbval would fail on
   another machine -- or the sanitizers would have to hide digits. Such a value is printed as a
   bound with an assert (`< 1e-6`).
2. The sanitizers of tests/nbval_sanitize.cfg rewrite only timings and memory addresses, never a
   year, a count or a figure size.
"""
import re
from pathlib import Path

import nbformat
import pytest
from nbval.plugin import get_sanitize_patterns

from notebook_code import NOTEBOOKS

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) + sorted(NOTEBOOKS.glob("demo.ipynb"))

# 1.2e-07, 5.960464477539063e-08, 1e-07, 3.1e-12: a magnitude at float precision, in scientific notation;
# 0.0e+00 / 0.00e+00: an exact zero printed as if it were a measured difference.
RAW_FLOAT = re.compile(r"(?<![\w.])(\d(?:\.\d+)?e-(?:0[6-9]|[1-9]\d)|0\.0+e[+-]00)\b")
# a bound or a setting, not a measured value: "< 1e-12", "<= 1e-06", "≤ 1e-7", "eps=1e-12", "atol=1e-06"
ALLOWED_BEFORE = re.compile(r"(<=?|≤|eps=|tol=|tolerance )\s*$")


def _output_texts(cell):
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            yield out.get("text", "")
        for mime in ("text/plain", "text/markdown", "text/html"):
            if mime in out.get("data", {}):
                yield out["data"][mime]


def raw_float_prints(path: Path) -> list[str]:
    """'cell N (id ...): ...line...' for every raw float-precision value in the notebook's outputs."""
    found = []
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        for text in _output_texts(cell):
            for line in text.splitlines():
                for m in RAW_FLOAT.finditer(line):
                    if not ALLOWED_BEFORE.search(line[:m.start()]):
                        found.append(f"cell {index} (id {cell.get('id')}): {line.strip()[:120]!r}")
    return found


def test_there_are_notebooks_to_scan():
    assert len(CHAPTERS) >= 10, CHAPTERS


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_no_float_precision_value_is_printed_raw(path):
    found = raw_float_prints(path)
    assert not found, (f"{path.name} prints values at float precision raw (they change with the CPU); "
                       "print a bound with an assert instead, e.g. `< 1e-6`:\n  " + "\n  ".join(found))


def test_the_scanner_finds_raw_values_and_allows_bounds(tmp_path):
    nb = nbformat.v4.new_notebook()
    lines = {"max |P - P_ref|: 1.1920928955078125e-07": True, "largest difference: 0.0e+00": True,
             "diff 5.96e-08": True, "tensor(2.3842e-07)": True, "gap 1e-07": True,
             "max |difference| < 1e-12: True": False, "LayerNorm((384,), eps=1e-12)": False,
             "F = 0.849, built in the 1980s": False, "≤ 1e-06": False, "ratio 1.5e+03": False}
    for line in lines:
        cell = nbformat.v4.new_code_cell("print(...)")
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=line + "\n")]
        nb.cells.append(cell)
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, path)
    found = raw_float_prints(path)
    assert [f"cell {k}" for k, bad in enumerate(lines.values()) if bad] == [f.split(" (")[0] for f in found]


# ------------------------------------------------------------------ the sanitizers

def _sanitize(text: str) -> str:
    for regex, replace in get_sanitize_patterns((ROOT / "tests" / "nbval_sanitize.cfg").read_text()):
        text = re.sub(regex, replace, text)
    return text


@pytest.mark.parametrize("text", ["Three hotels were built in the 1980s in France.", "their Under 18s saw off",
                                  "<Figure size 650x360 with 1 Axes>", "0x12 = 18", "F = 0.849 (3 s.f.)",
                                  "24 sentences", "layer 4: 0.912", "2 ms-long"])
def test_sanitizers_leave_results_alone(text):
    assert _sanitize(text) == text


@pytest.mark.parametrize("text, expected", [
    ("<function f at 0x7f3a2b1c9d40>", "<function f at 0xADDR>"),
    ("scored in 1.23 s", "scored in TIME"), ("took 12.5ms", "took TIME"), ("0.81 seconds", "TIME")])
def test_sanitizers_rewrite_timings_and_addresses(text, expected):
    assert _sanitize(text) == expected
