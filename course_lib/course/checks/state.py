"""Where the checks' state lives: the mode (learning or grading), the grading seed's hidden data, the
attempts file (per user and per notebook copy), the first answers of predict-then-run exercises (7.8; learning
mode only) and the results make check reads. See the package's
docstring (course_lib.course.checks) for what each means to a student."""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from course_lib.paths import user_cache_dir

GRADING_ENV = "COURSE_GRADING"  # set (to anything but "" or "0") in grading mode
GRADING_SEED_ENV = "COURSE_GRADING_SEED"  # the instructor's seed for the hidden data of value exercises
RESULTS_ENV = "COURSE_CHECK_RESULTS"  # a file each check appends its result to (make check's table)
NOTEBOOK_ENV = "JPY_SESSION_NAME"  # the notebook's path, as Jupyter Server tells its kernel
_FAILURES: Counter = Counter()  # used only where the attempts file cannot be written
_FIRST: dict = {}  # (first-answers file, notebook copy, exercise) -> answer, where that file cannot be written
def grading() -> bool:
    """True in grading mode (nbgrader's runs): failing checks raise, no hints, no attempts file."""
    return os.environ.get(GRADING_ENV, "").strip() not in ("", "0")


def grading_seed() -> int:
    """The seed that draws the hidden data of value exercises in grading mode ($COURSE_GRADING_SEED,
    an integer the instructor keeps; 0 when unset)."""
    try:
        return int(os.environ.get(GRADING_SEED_ENV, "") or 0)
    except ValueError:
        return sum(map(ord, os.environ[GRADING_SEED_ENV]))


def hidden_rng(exercise: str):
    """A random generator for the hidden data of `exercise` in grading mode, from the grading seed."""
    import random

    return random.Random(f"{grading_seed()}:{exercise}")


def hidden_rows(exercise: str, n: int, max_words: int = 14, where=None) -> list[dict]:
    """`n` distinct WMT16 rows (lp, mt, ref, ...) drawn with the grading seed for `exercise`: short
    ones (references of at most `max_words` words) for which `where(row)` holds."""
    from course_lib.evaluation.datasets import wmt16

    rows = [r for r in wmt16().to_dict("records") if len(r["ref"].split()) <= max_words and len(r["mt"]) > 0
            and r["mt"] != r["ref"] and (where is None or where(r))]
    return hidden_rng(exercise).sample(rows, n)


def notebook_copy() -> str:
    """Which notebook file the checks run in: $JPY_SESSION_NAME (Jupyter Server gives it the
    notebook's path; make check sets it), else IPython's __session__, else the working folder.
    Attempts are counted per copy, so two students' files never share a count."""
    name = os.environ.get(NOTEBOOK_ENV, "")
    if not name:
        try:
            shell = get_ipython()  # noqa: F821 - defined inside IPython only
            name = shell.user_ns.get("__session__", "") or ""
        except NameError:
            name = ""
    return str(Path(name).expanduser().resolve()) if name else f"{Path.cwd().resolve()}{os.sep}(no notebook)"


def attempts_file() -> Path:
    """Where failed attempts are remembered: <user cache>/attempts.json."""
    return user_cache_dir() / "attempts.json"


def _read_all() -> dict:
    try:
        data = json.loads(attempts_file().read_text())
        return {str(nb): {str(k): int(v) for k, v in counts.items()} for nb, counts in data.items()}
    except (OSError, ValueError, TypeError, AttributeError):  # missing, unreadable or garbled: start afresh
        return {}


def _load_attempts() -> Counter:
    """This notebook copy's counts {exercise: failed attempts}."""
    if grading():
        return Counter()
    return Counter(_read_all().get(notebook_copy(), {}))


def _save_attempts(counts: Counter) -> bool:
    if grading():  # grading reads and writes no attempts file
        return False
    path = attempts_file()
    try:
        data = _read_all()
        data[notebook_copy()] = dict(sorted(counts.items()))
        data = {nb: c for nb, c in data.items() if c}
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.replace(tmp, path)  # atomic: two kernels never leave half a file
        return True
    except OSError:  # a read-only home: remember in this process only
        return False


def failed_attempts(exercise: str) -> int:
    """How many failed attempts of `exercise` are remembered (this process and earlier ones)."""
    return max(_load_attempts()[exercise], _FAILURES[exercise])


def repeated_mistake(exercise: str) -> int:
    """How often the most repeated mistake of `exercise` was made (each mistake is counted under
    "<exercise>#<mistake>" beside the exercise's total)."""
    counts = _load_attempts()
    keys = {k for k in list(counts) + list(_FAILURES) if k.startswith(f"{exercise}#")}
    return max((max(counts[k], _FAILURES[k]) for k in keys), default=0)


def _count_failure(exercise: str, mistake: str = "") -> int:
    """Count one failed attempt of `exercise` (and of its `mistake`); return how often this mistake
    (or, without one, the exercise) has failed."""
    counts = _load_attempts()
    keys = [exercise] + ([f"{exercise}#{mistake}"] if mistake else [])
    for key in keys:
        counts[key] = max(counts[key], _FAILURES[key]) + 1
        _FAILURES[key] = counts[key]
    _save_attempts(counts)
    return counts[keys[-1]]


def first_answers_file() -> Path:
    """Where the first answer of a predict-then-run exercise is kept: <user cache>/first_answers.json."""
    return user_cache_dir() / "first_answers.json"


def _read_first() -> dict:
    try:
        data = json.loads(first_answers_file().read_text())
        return data if isinstance(data, dict) and all(isinstance(v, dict) for v in data.values()) else {}
    except (OSError, ValueError):  # missing, unreadable or garbled: start afresh
        return {}


def _write_first(data: dict) -> bool:
    path = first_answers_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({nb: a for nb, a in data.items() if a}, indent=1, sort_keys=True))
        os.replace(tmp, path)
        return True
    except OSError:
        return False


def first_answer(exercise: str, answer):
    """The first answer (JSON data) given to `exercise` in this notebook copy, `answer` itself when none was
    kept yet (then it is kept): a prediction's record is the one written before the run, not one corrected after
    it. In grading mode nothing is kept (each run is a fresh process): `answer` comes back as given."""
    if grading():
        return answer
    key = (str(first_answers_file()), notebook_copy(), exercise)
    data = _read_first()
    mine = data.setdefault(notebook_copy(), {})
    if exercise in mine:
        return mine[exercise]
    if key in _FIRST:
        return _FIRST[key]
    mine[exercise] = answer
    if not _write_first(data):
        _FIRST[key] = answer
    return answer


def _forget_first(exercise: str | None) -> None:
    path = str(first_answers_file())
    for key in [k for k in _FIRST if k[0] == path and exercise in (None, k[2])]:
        _FIRST.pop(key)
    if grading():  # grading reads and writes no file
        return
    data = _read_first()
    if exercise is None:
        data.pop(notebook_copy(), None)
    elif exercise in data.get(notebook_copy(), {}):
        data[notebook_copy()].pop(exercise)
    else:
        return
    _write_first(data)


def _forget(exercise: str) -> None:
    """Forget the failures of `exercise` (a pass does; its first answer stays on record: reset_attempts forgets)."""
    def mine(key: str) -> bool:
        return key == exercise or key.startswith(f"{exercise}#")

    for key in [k for k in _FAILURES if mine(k)]:
        _FAILURES.pop(key)
    counts = _load_attempts()
    if any(mine(k) for k in counts):
        _save_attempts(Counter({k: v for k, v in counts.items() if not mine(k)}))


def reset_attempts(exercise: str | None = None) -> None:
    """Forget past failures of `exercise` (or of all exercises): the code-level hint hides again
    until repeated failures; and the first answer kept for it (`first_answer`), in this notebook copy."""
    if exercise is not None:
        _forget_first(exercise)
        _forget(exercise)
        return
    _FAILURES.clear()
    if grading():
        return
    _forget_first(None)
    try:
        attempts_file().unlink()
    except OSError:
        pass


def _record(exercise: str, ok: bool) -> None:
    path = os.environ.get(RESULTS_ENV)
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"exercise": exercise, "ok": bool(ok)}) + "\n")
    except OSError:
        pass


def recorded_results(path) -> dict[str, bool]:
    """{exercise: passed} from a results file (the last result of each exercise counts)."""
    results = {}
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return results
    for line in lines:
        try:
            item = json.loads(line)
            results[str(item["exercise"])] = item["ok"] is True
        except (ValueError, KeyError, TypeError):
            continue
    return results
