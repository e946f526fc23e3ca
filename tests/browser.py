"""Headless Chromium for the browser tests (the book, the demo) and the benchmark: Debian's
/usr/bin/chromium driven by Playwright, offline. When a piece is missing, a test is skipped with
the reason on a laptop and fails under CI (COURSE_CI=1 or CI=true)."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import under_ci

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def skip_or_fail(message: str) -> None:
    """Skip with `message`; under CI fail instead (a skip there is a failure, not a pass)."""
    if under_ci():
        pytest.fail(message + " — under CI this is a failure, not a skip", pytrace=False)
    pytest.skip(message)


@contextmanager
def chromium(what: str, problems: list[str] = ()):
    """A launched Chromium browser; `problems` (what else `what` lacks) skip or fail as above."""
    problems = list(problems)
    if not CHROMIUM.exists():
        problems.append(f"{CHROMIUM} is missing (apt-get update && apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        problems.append("the playwright package is missing (pip install -r requirements.txt)")
    if problems:
        skip_or_fail(f"{what}: " + "; ".join(problems))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
