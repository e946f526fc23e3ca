"""Watching `bert-score` from outside: what it prints, how often it loads a model, its figure, its command.

Chapter 07a runs the reference `bert-score` package and shows what it does. The plumbing that needs
(patching a function for the length of a call, capturing stdout and stderr, running the `bert-score`
command in a subprocess and reading its output) lives here, so that each use in the chapter is one
readable line. Nothing here changes a score: every helper calls `bert-score` unmodified.

- `run_captured(fn, ...)`: call `fn`, return its result with what it printed and how many progress bars
  it started (not drawn);
- `counting_model_loads()`: a `with` block that records every model `bert-score` loads inside it;
- `plot_example_figure(...)`: `bert_score.plot_example`'s figure, returned instead of shown;
- `run_cli(cands, refs, flags, ...)`: the `bert-score` command on temporary files, parsed (`CliRun`);
- `cli_arguments(flags)`: what the command passes to `bert_score.score` for these flags (its own parser, no model);
- `cli_declaration(flag)`: the line of the command's source that declares a flag.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock


@dataclass
class Captured:
    """What one call returned and printed."""

    result: object
    stdout: str
    stderr: str
    progress_bars: int  # progress bars bert-score started (counted, not drawn)


def run_captured(fn, *args, **kwargs) -> Captured:
    """`fn(*args, **kwargs)` with stdout and stderr captured and bert-score's progress bars counted."""
    import bert_score.utils

    bars = []

    def no_bar(iterable, *bar_args, **bar_kwargs):  # stands in for bert_score.utils.tqdm
        bars.append(1)
        return iterable

    out, err = io.StringIO(), io.StringIO()
    with mock.patch.object(bert_score.utils, "tqdm", no_bar), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        result = fn(*args, **kwargs)
    return Captured(result, out.getvalue(), err.getvalue(), len(bars))


@contextlib.contextmanager
def counting_model_loads():
    """Inside the block, every model bert-score loads (`bert_score.score` and `BERTScorer` both call its
    `get_model`) is appended to the yielded list, by name."""
    import bert_score  # noqa: F401  (imports its submodules)

    loads: list[str] = []

    def counting(get_model):
        def wrapper(*args, **kwargs):
            loads.append(args[0] if args else kwargs.get("model_type"))
            return get_model(*args, **kwargs)
        return wrapper

    modules = [sys.modules["bert_score.score"], sys.modules["bert_score.scorer"]]
    with contextlib.ExitStack() as stack:
        for module in modules:
            stack.enter_context(mock.patch.object(module, "get_model", counting(module.get_model)))
        yield loads


def plot_example_figure(candidate: str, reference: str, **kwargs):
    """The figure of `bert_score.plot_example(candidate, reference, **kwargs)`, which calls `plt.show()`
    itself: here that call does nothing, so the figure can be saved and shown once."""
    import bert_score
    import matplotlib.pyplot as plt

    with mock.patch.object(plt, "show", lambda *args, **kw: None):
        bert_score.plot_example(candidate, reference, **kwargs)
    return plt.gcf()


# ------------------------------------------------------------------ the `bert-score` command

_SUMMARY = re.compile(r"(\S+) P: (\S+) R: (\S+) F1: (\S+)")    # hash P: .. R: .. F1: ..
_PAIR = re.compile(r"([-\d.]+)\t([-\d.]+)\t([-\d.]+)")          # with -s: P, R, F of one pair


@dataclass
class CliRun:
    """One run of the `bert-score` command, parsed."""

    flags: list[str]                     # the flags after the files, model and layer
    returncode: int
    hash: str = ""
    mean: tuple[float, float, float] | None = None               # P, R, F1 as printed (6 decimals)
    pairs: list[tuple[float, float, float]] = field(default_factory=list)  # with -s: one per pair

    def show(self, hide: str = "", digits: int = 4) -> str:
        """The command and its output as a student types and reads them, `hide` (a local path) replaced by
        `<model>`, numbers rounded to `digits` decimals (the last of bert-score's 6 vary between machines)."""
        def fmt(values):
            return "  ".join(f"{v:.{digits}f}" for v in values)

        head = f"$ bert-score -r refs.txt -c cands.txt --model <model> {' '.join(self.flags)}".rstrip()
        if self.returncode != 0:
            return f"{head}\nthe command failed (exit code {self.returncode}); run it in a terminal to see why"
        h = self.hash.replace(hide, "<model>") if hide else self.hash
        p, r, f = self.mean
        lines = [head, f"{h}  P: {p:.{digits}f} R: {r:.{digits}f} F1: {f:.{digits}f}"]
        lines += ["    " + fmt(pair) for pair in self.pairs]
        return "\n".join(lines)


def parse_cli_output(stdout: str) -> tuple[str, tuple[float, float, float] | None, list]:
    """(hash, mean P/R/F1, per-pair scores) from what the `bert-score` command printed."""
    hash_, mean, pairs = "", None, []
    for line in stdout.splitlines():
        if (m := _SUMMARY.fullmatch(line.strip())) is not None:
            hash_, mean = m.group(1), tuple(float(x) for x in m.groups()[1:])
        elif (m := _PAIR.fullmatch(line.strip())) is not None:
            pairs.append(tuple(float(x) for x in m.groups()))
    return hash_, mean, pairs


def _command() -> list[str]:
    exe = Path(sys.executable).parent / ("bert-score.exe" if os.name == "nt" else "bert-score")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "bert_score_cli.score"]


def run_cli(cands: list[str], refs: list[str], *flag_sets: list[str], model: str) -> list[CliRun]:
    """Write `cands` and `refs` to temporary files, one text a line, and run `bert-score -r refs.txt -c
    cands.txt --model MODEL FLAGS` once per flag set, in parallel (offline). Returns one CliRun each."""
    with tempfile.TemporaryDirectory() as tmp:
        c_file, r_file = Path(tmp) / "cands.txt", Path(tmp) / "refs.txt"
        c_file.write_text("\n".join(cands) + "\n", encoding="utf-8")
        r_file.write_text("\n".join(refs) + "\n", encoding="utf-8")
        base = _command() + ["-r", str(r_file), "-c", str(c_file), "--model", model]
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
        procs = [(list(flags), subprocess.Popen(base + list(flags), stdout=subprocess.PIPE,
                                                stderr=subprocess.DEVNULL, text=True, env=env))
                 for flags in flag_sets]
        runs = []
        for flags, proc in procs:
            stdout, _ = proc.communicate()
            runs.append(CliRun(flags, proc.returncode, *parse_cli_output(stdout)))
    return runs


class CliRefused(ValueError):
    """The command's parser refused the flags; the message is its last line on stderr."""


def cli_arguments(flags: list[str]) -> dict:
    """The keyword arguments `bert-score -r refs.txt -c cands.txt --model <model> FLAGS` passes to
    `bert_score.score`: the command's own `main` runs (its argparse parser, its defaults) with a stand-in for
    `bert_score.score` that records them and computes nothing. Raises CliRefused when the parser refuses."""
    import bert_score
    import bert_score_cli.score as cli
    import torch

    class Recorded(Exception):
        pass

    seen = {}

    def stand_in(cands, refs, **kwargs):
        seen.update(kwargs)
        raise Recorded

    with tempfile.TemporaryDirectory() as tmp:
        for name in ("cands.txt", "refs.txt"):
            (Path(tmp) / name).write_text("A cat.\n", encoding="utf-8")
        argv = ["bert-score", "-r", str(Path(tmp) / "refs.txt"), "-c", str(Path(tmp) / "cands.txt"),
                "--model", "<model>", *flags]
        said = io.StringIO()
        with mock.patch.object(sys, "argv", argv), mock.patch.object(bert_score, "score", stand_in), \
                mock.patch.object(torch.multiprocessing, "set_sharing_strategy", lambda *a: None), \
                contextlib.redirect_stderr(said):
            try:
                cli.main()
            except Recorded:
                return dict(seen)
            except SystemExit:
                raise CliRefused((said.getvalue().strip().splitlines() or ["(no message)"])[-1]) from None
    raise CliRefused("the command did not reach bert_score.score")


def cli_declaration(flag: str) -> str:
    """The `add_argument(...)` call of the `bert-score` command's source that declares `flag`, on one line."""
    import inspect

    import bert_score_cli.score as cli

    calls = re.findall(r"add_argument\((.*?)\)\s*\n", inspect.getsource(cli.main), flags=re.S)
    found = [" ".join(c.split()) for c in calls if re.search(rf"[\"']{re.escape(flag)}[\"']", c)]
    if not found:
        raise ValueError(f"the bert-score command declares no flag {flag!r}")
    return f"parser.add_argument({found[0]})"


def flag_effect(flag: str, setting: str) -> str:
    """The command's declaration of `flag`, the value of `setting` its parser passes to `bert_score.score` without
    and with the flag, and `bert_score.score`'s own default; when the two defaults differ, what that means."""
    import inspect

    import bert_score

    without, given = (cli_arguments(flags)[setting] for flags in ([], [flag]))
    default = inspect.signature(bert_score.score).parameters[setting].default
    lines = [cli_declaration(flag),
             f"{setting} passed to bert_score.score by the command: without {flag}: {without}; with it: {given}",
             f"bert_score.score's own default: {setting}={default}"]
    if without != default:
        lines.append(textwrap.fill(f"The command's default is the opposite of the Python function's: a Python call "
                                   f"that leaves {setting} at its default computes what the command computes only "
                                   f"with {flag}, which sets {setting} to {given}.", width=110))
    return "\n".join(lines)
