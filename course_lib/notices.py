"""Warnings that point at the user's line, not at the library's: `warn(message)` walks the stack to
the first frame outside course_lib (and outside Python's own machinery), so Python prints the
caller's file and line under the message, and the default filter shows it once per calling line;
`warn_once` says a thing once per process."""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

_LIBRARY = str(Path(__file__).resolve().parent)


def caller_level() -> int:
    """The `stacklevel` at which warnings.warn names the first frame outside course_lib."""
    frame, level = sys._getframe(1), 1
    while frame is not None and (frame.f_code.co_filename.startswith(_LIBRARY)
                                 or frame.f_code.co_filename.startswith("<frozen")):
        frame, level = frame.f_back, level + 1
    return level


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """warnings.warn(message) attributed to the user's code that called into course_lib."""
    warnings.warn(message, category, stacklevel=caller_level())


_SAID: set[str] = set()  # the keys of warn_once's warnings already given in this process


def warn_once(key: str, message: str, category: type[Warning] = UserWarning) -> None:
    """`warn(message)` the first time `key` is warned in this process, then never again."""
    if key not in _SAID:
        _SAID.add(key)
        warnings.warn(message, category, stacklevel=caller_level())
