"""course_lib.caching: the one cache helper (the model loader, the fast tokenizer, the layer views,
the demo's idf corpora, texts and pairs all keep their results in it)."""
import threading

from course_lib import caching, model
from course_lib.demo import inputs, scoring
from course_lib.engine import fast_tokenizer, packing


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


def test_the_caches_of_the_course_are_this_one():
    assert isinstance(model._LOADED, caching.Cache) and isinstance(inputs._IDF, caching.Cache)
    assert isinstance(scoring._TEXTS, caching.Cache) and isinstance(scoring._PAIRS, caching.Cache)
    assert scoring._TEXTS.maxsize == scoring._PAIRS.maxsize == scoring.CACHE_SIZE
    assert isinstance(packing.first_layers.cache, caching.Cache)
    assert isinstance(fast_tokenizer.fast_tokenizer.cache, caching.Cache)
