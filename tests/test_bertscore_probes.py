"""course_lib.teaching.bertscore_probes: the output parser of the `bert-score` command and the capture
helper (chapter 07a runs the command itself, checked by nbval)."""
import sys

from course_lib.teaching import bertscore_probes as probes

CLI_OUTPUT = """<model>_L4_idf_version=0.3.12(hug_trans=4.57.1)-custom-rescaled P: 0.838312 R: -0.045200 F1: 0.840911
0.884215\t0.922512\t0.903003
-0.020000\t0.906600\t0.913300
"""


def test_parse_cli_output():
    hash_, mean, pairs = probes.parse_cli_output(CLI_OUTPUT)
    assert hash_ == "<model>_L4_idf_version=0.3.12(hug_trans=4.57.1)-custom-rescaled"
    assert mean == (0.838312, -0.0452, 0.840911)
    assert pairs == [(0.884215, 0.922512, 0.903003), (-0.02, 0.9066, 0.9133)]  # negative numbers kept
    assert probes.parse_cli_output("Traceback (most recent call last):\n") == ("", None, [])


def test_cli_run_show_hides_the_path_and_rounds():
    hash_, mean, pairs = probes.parse_cli_output(CLI_OUTPUT.replace("<model>", "/home/me/model"))
    shown = probes.CliRun(["--num_layers", "4", "-s"], 0, hash_, mean, pairs).show(hide="/home/me/model")
    assert shown.splitlines() == [
        "$ bert-score -r refs.txt -c cands.txt --model <model> --num_layers 4 -s",
        "<model>_L4_idf_version=0.3.12(hug_trans=4.57.1)-custom-rescaled  P: 0.8383 R: -0.0452 F1: 0.8409",
        "    0.8842  0.9225  0.9030",
        "    -0.0200  0.9066  0.9133"]
    failed = probes.CliRun(["-s"], 2).show()
    assert "failed (exit code 2)" in failed


def test_run_captured_returns_the_result_and_what_was_printed():
    def noisy(x):
        print("to stdout")
        print("to stderr", file=sys.stderr)
        return x + 1

    got = probes.run_captured(noisy, 41)
    assert (got.result, got.stdout, got.stderr, got.progress_bars) == (42, "to stdout\n", "to stderr\n", 0)


def test_cli_arguments_runs_the_commands_own_parser():
    import pytest

    assert probes.cli_arguments([])["use_fast_tokenizer"] is True  # store_false: absent means True
    assert probes.cli_arguments(["--use_fast_tokenizer"])["use_fast_tokenizer"] is False
    assert probes.cli_arguments(["--idf", "--num_layers", "3"])["idf"] is True
    with pytest.raises(probes.CliRefused, match="unrecognized"):
        probes.cli_arguments(["--idf", "True"])  # store_true takes no value


def test_cli_declaration_and_flag_effect():
    import pytest

    assert "store_false" in probes.cli_declaration("--use_fast_tokenizer")
    assert "store_true" in probes.cli_declaration("--idf")
    with pytest.raises(ValueError, match="no flag '--fast'"):
        probes.cli_declaration("--fast")
    fast = probes.flag_effect("--use_fast_tokenizer", "use_fast_tokenizer")
    assert "without --use_fast_tokenizer: True; with it: False" in fast and "opposite" in fast, fast
    idf = probes.flag_effect("--idf", "idf")  # the same default both ways: no "opposite" sentence
    assert "without --idf: False; with it: True" in idf and "opposite" not in idf, idf
