"""Chapter 10's cases for exercise 10.2 (leave one pair out, and no test reference in training): small tables
of language pairs and references built to hold each trap (a reference shared with the test pair, one shared by two
training pairs only, pairs interleaved, a pair that shares nothing, lists as well as arrays), one drawn at random
(with the grading seed in grading mode), and the diagnosis of a wrong split, naming the mistake. `checks.ch10`
imports these."""
from __future__ import annotations

import numpy as np

from . import grading, hidden_rng

LEAK_10_2 = "a reference of the test pair is in training: the leak of §3"


def _split_cases() -> list[tuple[object, object, str]]:
    """(lps, refs, how they are given) for 10.2: two built tables, then a random one given as Python lists."""
    built = (  # a and b share r1; b and c share r3 and r6 (training pairs only when a is held out); a repeats r4
        (["a", "b", "a", "c", "b", "a", "c", "b", "c", "a"],
         ["r1", "r1", "r2", "r3", "r3", "r4", "r5", "r6", "r6", "r4"]),
        # de-en shares "t2" with fi-en and "t5" with ro-en; tr-en shares nothing; fi-en and ro-en share "t7"
        (["fi-en", "de-en", "tr-en", "ro-en", "de-en", "fi-en", "tr-en", "ro-en", "de-en", "fi-en", "ro-en"],
         ["t2", "t2", "t3", "t5", "t5", "t7", "t8", "t7", "t1", "t9", "t6"]))
    cases = [(np.array(lps), np.array(refs), "arrays") for lps, refs in built]
    rng = np.random.default_rng(hidden_rng("10.2").getrandbits(32) if grading() else 10)
    names = ["xx-en", "yy-en", "zz-en", "ww-en"]
    lps = rng.choice(names, size=int(rng.integers(40, 70)))
    shared = [f"shared-{k}" for k in range(6)]  # references that several pairs translate
    refs = [shared[rng.integers(6)] if rng.random() < 0.3 else f"{lp}-ref-{rng.integers(8)}" for lp in lps]
    refs[:4] = ["shared-0", "shared-0", "shared-1", "shared-1"]  # two training pairs (or more) share a reference
    lps[:4] = ["xx-en", "yy-en", "zz-en", "ww-en"]
    cases.append((lps.tolist(), refs, "Python lists"))
    return cases


def _rows(rows) -> list[int]:
    return sorted(int(k) for k in rows)


def _labels(values) -> list[str]:
    return sorted({str(v) for v in values})


def _short(values, n=8) -> str:
    values = [str(v) for v in values]
    return f"{values[:n]}{' ...' if len(values) > n else ''}"


def _split_mistake(lps, refs, pair, got, how: str) -> str | None:
    """What is wrong with `got` = the student's (train, test) for held-out `pair` on lps, refs [N]; None if right."""
    lps, refs = np.asarray(lps), np.asarray(refs)
    where = f"lps = {_short(lps)}, refs = {_short(refs)} ({how}), test pair {str(pair)!r}"
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return "return two arrays of positions: (train positions, test positions)"
    train, test = (np.asarray(part).ravel() for part in got)
    for part in (train, test):
        if part.dtype == bool:
            return f"{where}: you returned True/False masks; return integer positions (row numbers) of the segments"
        if not np.issubdtype(part.dtype, np.integer) and len(part):
            return (f"{where}: you returned values such as {str(part[0])!r}, not positions: "
                    "return integer positions (row numbers) of the segments, not labels or texts")
        if len(part) and (part.min() < 0 or part.max() >= len(lps)):
            return f"{where}: positions run from 0 to {len(lps) - 1}; yours include {int(part.min())} or {int(part.max())}"
    in_test, test_refs = lps == pair, set(refs[lps == pair])
    leaked = ~in_test & np.isin(refs, list(test_refs))
    right_train, right_test = np.flatnonzero(~in_test & ~leaked), np.flatnonzero(in_test)
    if len(test) and not in_test[test].any() and len(train) and in_test[train].all():
        return f"{where}: the order is (train positions, test positions); yours are the other way round"
    if _rows(test) != list(right_test):
        lost = _rows(set(right_test) - set(test))
        if lost and set(test) <= set(right_test) and all(r in set(refs[~in_test]) for r in refs[lost]):
            return (f"{where}: the test set lost rows {lost}, whose references also occur in other pairs: the test set "
                    "must be every segment of the held-out pair; it is training that must lose what shares a "
                    "reference with it")
        lists = (": lps and refs are Python lists here, and a whole list compared with one string is one False, not "
                 "one answer per row" if how == "Python lists" else "")
        return (f"{where}: the test set must be every segment of the held-out pair, each once (rows "
                f"{_rows(right_test)[:12]}); yours {_rows(test)[:12]}{lists}")
    if len(set(train.tolist())) != len(train):
        return f"{where}: training lists some rows more than once: each segment once"
    own = _rows(set(train) & set(right_test))
    if own:
        return f"{where}: training contains rows {own[:6]} of the test pair itself"
    kept = _rows(set(train) & set(np.flatnonzero(leaked)))
    if kept:
        return (f"{where}: {LEAK_10_2} (rows {kept[:6]}, of {_labels(lps[kept])}, have references of "
                f"{str(pair)!r}, such as {str(refs[kept[0]])!r}); those rows must leave training")
    lost = _rows(set(right_train) - set(train))
    if lost:
        sharing = _labels(lps[leaked])  # the training pairs that share a reference with the test pair
        if lost == _rows(np.flatnonzero(np.isin(lps, sharing) & ~leaked)):
            return (f"{where}: too much removed: training lost rows {lost} of {sharing}, whole pairs dropped because "
                    f"they share a reference with {str(pair)!r}; only the rows whose reference occurs in the test "
                    "pair must go")
        pairs_of = {str(r): set(_labels(lps[refs == r])) for r in set(refs[lost])}
        if all(len(p) > 1 and pair not in p for p in pairs_of.values()):
            ref = sorted(pairs_of)[0]
            return (f"{where}: training lost rows {lost}, whose reference (such as {ref!r}, in "
                    f"{sorted(pairs_of[ref])}) is shared only between training pairs: it never reaches the test "
                    "set, so it is no leak; keep it")
        return (f"{where}: training lost rows {lost[:8]}, which share no reference with the test pair: every other "
                "segment must be used")
    return None
