"""The engine hands freed memory back to the operating system after scoring (`engine.release`): a kernel does not
stay at each call's peak. Linux with glibc only (elsewhere it does nothing, and says so by returning False)."""
import sys

import pytest

from course_lib.engine import release


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim: Linux only")
def test_freed_heap_memory_goes_back_to_the_os():
    chunks = [bytearray(8192) for _ in range(30_000)]  # ~240 MB of small blocks on the C heap
    keep = chunks[-1]
    del chunks  # freed, but glibc keeps the pages (the last block pins the heap's top)
    before = _rss_mb()
    assert release.release_freed_memory() is True
    assert before - _rss_mb() > 100, (before, _rss_mb())
    del keep


def test_scoring_releases_what_it_freed(monkeypatch):
    import course_lib

    calls = []
    monkeypatch.setattr("course_lib.engine.scorer.release_freed_memory", lambda: calls.append(1) or True)
    course_lib.score(["It is freezing today."], ["The weather is cold today."])
    assert calls == [1]
