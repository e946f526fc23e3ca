"""course_lib.caching: the one cache helper (the model loader, the fast tokenizer, the layer views,
the demo's idf corpora, texts and pairs all keep their results in it)."""
import threading

from course_lib import caching, model
from course_lib.demo import inputs, scoring


def test_threads_asking_at_once_share_one_computation():
    calls, barrier, got = [], threading.Barrier(4), []
    cache = caching.Cache()

    def slow():
        calls.append(1)
        threading.Event().wait(0.1)  # the other threads arrive meanwhile
        return object()

    def work():
        barrier.wait()
        got.append(cache.get("key", slow))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and all(g is got[0] for g in got)


def test_the_least_recently_used_goes_first():
    cache = caching.Cache(maxsize=2)
    cache.put("a", 1), cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recently used
    cache.put("c", 3)
    assert "a" in cache and "b" not in cache and "c" in cache
    cache.pop("c"), cache.pop("missing")
    assert cache.get("b") is None and cache.get("b", lambda: 4) == 4
    assert cache.items() == [("a", 1), ("b", 4)]
    cache.clear()
    assert cache.items() == []


def test_cached_functions_key_objects_by_identity():
    made = []

    @caching.cached()
    def view(obj, k):
        made.append((id(obj), k))
        return [obj, k]

    a, b = object(), object()
    assert view(a, 1) is view(a, 1) and view(b, 1) is not view(a, 1)
    assert len(made) == 2 and len(view.cache.items()) == 2


def test_cached_takes_keywords_and_forgets_on_cache_clear():
    made = []

    @caching.cached()
    def power(x, *, p=2):
        made.append((x, p))
        return x ** p

    assert power(3) == power(3) == 9 and power(3, p=3) == power(3, p=3) == 27 and len(made) == 2
    power.cache_clear()
    assert power(3) == 9 and len(made) == 3


def test_every_in_memory_cache_of_course_lib_is_this_one():
    """No functools cache beside it (a source scan: an lru_cache added anywhere fails here), and the
    module-level caches that the demo and the loader keep are `caching.Cache`s of the stated size."""
    import re
    from pathlib import Path

    root = Path(caching.__file__).parent
    other = [f"{path.relative_to(root)}:{n}" for path in sorted(root.rglob("*.py")) if path.name != "caching.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"lru_cache|functools\.cache\b|^\s*@cache\b|from functools import .*\bcache\b", line)]
    assert not other, f"functools caches beside course_lib.caching: {other}"
    assert isinstance(model._LOADED, caching.Cache) and isinstance(inputs._IDF, caching.Cache)
    assert scoring._TEXTS.maxsize == scoring._PAIRS.maxsize == scoring.CACHE_SIZE
