"""Watching how an answer computes, where its outputs cannot tell (a `Function`'s `wrap`): `no_row_loop` refuses a
Python loop over the rows where one batched computation is asked, by counting the lines of the student's own code
that run and the torch calls it makes (counts, not timings: the same verdict on any machine)."""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from . import ForbiddenCall

LOOP_ROWS = 32  # a case with at least this many rows on each side shows whether the work grows with the rows


def library_dirs() -> tuple[str, ...]:
    import sysconfig

    import course_lib

    paths = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths |= {str(Path(course_lib.__file__).parent), str(Path(torch.__file__).parent.parent)}
    return tuple(sorted(paths | {str(Path(p).resolve()) for p in paths})) + ("<frozen",)


class TorchCalls(torch.overrides.TorchFunctionMode):
    """Counts the torch calls made while it is on (calls inside torch's own functions not counted)."""
    def __init__(self):
        super().__init__()
        self.calls = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls += 1
        return func(*args, **(kwargs or {}))


def no_row_loop(fn):
    """`fn` watched: on a case with LOOP_ROWS rows or more on both sides, the lines of the student's own code it
    runs and the torch calls it makes must not reach the number of rows (one matrix product: a handful of each, for
    any number of rows; a Python loop over the rows or the pairs, in torch, numpy or plain Python: one or more per
    row). Counts, not timings: the same verdict on any machine."""
    libraries = library_dirs()

    def watched(a, b):
        rows = min(len(a), len(b)) if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) else 0
        if rows < LOOP_ROWS:
            return fn(a, b)
        lines = [0]

        def in_frame(frame, event, arg):
            if event == "line":
                lines[0] += 1
            return in_frame

        def on_call(frame, event, arg):
            path = frame.f_code.co_filename
            return None if path.startswith(libraries) or "site-packages" in path else in_frame

        before = sys.gettrace()
        count = TorchCalls()
        sys.settrace(on_call)
        try:
            with count:
                out = fn(a, b)
        finally:
            sys.settrace(before)
        if max(lines[0], count.calls) >= rows:
            raise ForbiddenCall(
                f"for a of {len(a)} rows and b of {len(b)} rows your function ran {lines[0]} lines of its code and "
                f"{count.calls} torch calls: a Python loop over the rows (or the pairs), which the exercise asks you "
                "to do without. Compute all n x m cosines at once, with operations on whole matrices")
        return out

    return watched


_no_row_loop = no_row_loop  # the name chapter 02 knows it by
