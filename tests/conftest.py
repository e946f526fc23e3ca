"""Settings for every test, and the rule "skipped is not passed" under CI.

On a student's laptop a test may skip (no browser, no GPU) and says why (`make test` runs
pytest with -rs). Under CI (COURSE_CI=1, set by .ci/run, or CI=true as most CI services set)
every skip -- of a test or of a whole module -- is reported as a failure with its reason.
An expected failure (xfail) stays what it is.
"""
import multiprocessing
import os

import pytest

# bert-score's idf (get_idf_dict) runs a multiprocessing Pool. Forked from this process, which by then
# holds threads left by earlier tests (browsers, servers, two-thread tests), a worker can inherit a held
# lock and hang for ever (seen 2026-11-24 in test_reference under the full run). Workers started from a
# clean fork server inherit no thread; the numbers are the same.
multiprocessing.set_start_method("forkserver", force=True)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def under_ci() -> bool:
    """True when running in CI: COURSE_CI=1 or CI=true."""
    return os.environ.get("COURSE_CI", "") == "1" or os.environ.get("CI", "").lower() in ("true", "1")


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _fail_skip(report) -> None:
    reason = _skip_reason(report)
    report.outcome = "failed"
    report.longrepr = f"skipped under CI, which counts as a failure (COURSE_CI=1 or CI=true): {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if under_ci() and report.skipped and not hasattr(report, "wasxfail"):
        _fail_skip(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if under_ci() and report.skipped:  # a module-level pytest.skip / importorskip
        _fail_skip(report)


@pytest.fixture(scope="session")
def model_path() -> str:
    """The embedded model's directory, the model_type bert-score loads it by."""
    from course_lib.model import embedded_model_path

    return str(embedded_model_path())


@pytest.fixture(autouse=True)
def _attempts_in_a_temporary_folder(tmp_path_factory, monkeypatch):
    """Exercise checks remember failed attempts in the user's cache folder (COURSE_CACHE overrides
    it): tests keep theirs in a fresh temporary folder, never in the user's."""
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path_factory.mktemp("course-cache")))
    monkeypatch.delenv("COURSE_GRADING", raising=False)  # learning mode unless a test asks for grading
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.delenv("COURSE_CHECK_RESULTS", raising=False)


@pytest.fixture
def no_attempts_yet(monkeypatch):
    """A test of an exercise that is data starts with no failed attempt remembered, in the file
    (`_attempts_in_a_temporary_folder` gives it a fresh one) or in this process, and no hint level asked."""
    from course_lib.course.checks import reset_attempts

    monkeypatch.delenv("COURSE_HINT", raising=False)
    reset_attempts()
