"""The course's one cache: results computed once and kept, safe across threads.

`Cache` maps a key to a value computed on the first request and kept (with `maxsize`, the least
recently used is dropped beyond it). One re-entrant lock per cache is held while a value is
computed, so two threads asking at once for the same key share one computation: a model is
loaded once, a corpus's idf counted once. `cached` wraps a function in one, keyed by its
arguments (hashable; objects such as a model count by identity and are kept alive by the key,
so an id is never reused for another object). It is `functools.lru_cache` with that lock (every
in-memory cache of course_lib is one of these), and with what lru_cache cannot do: say whether a
key is held (`in`), list its entries, take a value computed elsewhere (`put`: a batch embedded at
once) and forget one key (`pop`).
"""
from __future__ import annotations

import functools
import threading
from collections import OrderedDict


class Cache:
    """key -> value, computed once per key (see the module's docstring)."""

    def __init__(self, maxsize: int | None = None):
        self.maxsize = maxsize
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.RLock()

    def get(self, key, compute=None):
        """The value kept for `key`; when there is none, `compute()` (under the lock, so once) is
        kept and returned, or None without `compute`."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
            return None if compute is None else self.put(key, compute())

    def put(self, key, value):
        """Keep `value` for `key` (the most recently used now) and return it."""
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while self.maxsize is not None and len(self._data) > self.maxsize:
                self._data.popitem(last=False)
        return value

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._data

    def pop(self, key) -> None:
        with self._lock:
            self._data.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def items(self) -> list:
        with self._lock:
            return list(self._data.items())


def cached(maxsize: int | None = None):
    """Decorator: fn(*args, **kwargs) computed once per arguments and kept in a `Cache` (fn.cache;
    fn.cache_clear() forgets them all): the course's `functools.lru_cache`, with a lock."""
    def wrap(fn):
        cache = Cache(maxsize)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
            return cache.get(key, lambda: fn(*args, **kwargs))

        call.cache, call.cache_clear = cache, cache.clear
        return call
    return wrap
