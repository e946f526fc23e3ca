"""The demo's texts: presets (the chapters' running examples) and the class set.

Nothing is read at import: the Rob Halford texts (course_lib/resources/rag_halford/halford.json,
see its PROVENANCE.md) are read the first time a preset or the class set is used.
"""
from __future__ import annotations

from collections.abc import Mapping

from course_lib import resources
from course_lib.caching import cached

_HALFORD_NAMES = {1: "metal singer (right)", 2: "jazz trumpeter (wrong)", 3: "English outlaw (wrong)"}
CUSTOM = "(custom)"  # what the preset list shows once a box was edited


@cached(1)
def halford() -> dict:
    """The RAG blog post's example: the question, the expected answer, and three candidates
    (right; wrong but a musician; all wrong)."""
    return resources.halford()


def halford_candidates() -> dict[str, str]:
    return {_HALFORD_NAMES[c["id"]]: c["text"] for c in halford()["candidates"]}


def _presets() -> dict[str, tuple[str, str]]:
    reference = halford()["expected_answer"]
    return {
        "lawyer / attorney": ("The attorney filed the legal brief.",
                              "The lawyer submitted the court document."),
        "cold / freezing": ("It is freezing today.", "The weather is cold today."),
        "red shoes: rouge slippers": ("The rouge slippers cost $20", "The red shoes cost $20.00"),
        "red shoes: blue socks": ("The blue socks cost $20", "The red shoes cost $20.00"),
        # step 6 of the running order: raw F of unrelated text sits near the baseline, rescaled near 0
        "unrelated: penguins / tax form": ("Penguins huddle together through the polar winter.",
                                           "Please send the tax form before the end of April."),
        **{f"Rob Halford: {name}": (text, reference) for name, text in halford_candidates().items()},
    }


def _class_set() -> dict:
    """Ten answers to the blog's question: its three, plus seven written for the course. The
    labels are the course's own judgment of each answer, for discussing where each metric fails."""
    c = halford_candidates()
    return {
        "question": halford()["question"],
        "reference": halford()["expected_answer"],
        "answers": [
            (c["metal singer (right)"], "right"),
            (c["jazz trumpeter (wrong)"], "wrong"),
            (c["English outlaw (wrong)"], "wrong"),
            ("He is the lead singer of Judas Priest, the heavy metal band.", "right"),
            ("The frontman of Judas Priest, nicknamed the Metal God.", "right"),
            ("Rob Halford is an English singer, best known as the vocalist of Judas Priest.", "right"),
            ("Rob Halford is known as the drummer of the famous jazz band Weather Report. With his "
             "distinctive style and energetic performances, he has become a legend in the world of "
             "jazz.", "wrong"),
            ("Rob Halford is not known as the singer of the famous metal band Judas Priest.", "wrong"),
            ("Metal band Judas Priest singer Halford Rob the famous known as is.", "garbled"),
            ("I don't know who Rob Halford is.", "no answer"),
        ],
    }


class _Lazy(Mapping):
    """A read-only dict built on first use (so importing the demo reads no file)."""

    def __init__(self, build):
        self._build = build

    @property
    def _data(self) -> dict:
        if not hasattr(self, "_cache"):
            self._cache = self._build()
        return self._cache

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __repr__(self):
        return repr(self._data)


PRESETS: Mapping[str, tuple[str, str]] = _Lazy(_presets)
CLASS_SET: Mapping = _Lazy(_class_set)


def preset_of(candidate: str, reference: str) -> str:
    """The preset whose texts these are, or CUSTOM."""
    for name, pair in PRESETS.items():
        if pair == (candidate, reference):
            return name
    return CUSTOM


def __getattr__(name: str):  # HALFORD_QUESTION, HALFORD_REFERENCE, HALFORD_CANDIDATES, read lazily
    lazy = {"HALFORD_QUESTION": lambda: halford()["question"],
            "HALFORD_REFERENCE": lambda: halford()["expected_answer"],
            "HALFORD_CANDIDATES": halford_candidates}
    if name in lazy:
        return lazy[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
