"""A disk cache for slow, deterministic results (pooled vectors, BERTScore of a data set).

Files go to $BERTSCORE_COURSE_CACHE, else the user's cache folder (~/.cache/bertscore-course/learned,
or $XDG_CACHE_HOME / %LOCALAPPDATA% where set): never the course folder. A file is named by a hash
of everything that decides the result; delete the folder to start afresh.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import torch

CACHE_ENV = "BERTSCORE_COURSE_CACHE"


def cache_dir() -> Path:
    """The cache folder (see the module's docstring)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.environ.get("LOCALAPPDATA") or Path.home() / ".cache"
    return Path(base) / "bertscore-course" / "learned"


def _key(parts) -> str:
    digest = hashlib.sha256()
    for part in parts:
        items = part if isinstance(part, (list, tuple)) else [part]
        digest.update(f"{type(part).__name__}:{len(items)}|".encode())
        for item in items:
            digest.update(str(item).encode("utf-8") + b"\x00")
    return digest.hexdigest()[:24]


def cached(name: str, parts, compute):
    """compute() once for `parts` (a tuple of strings, numbers and lists of them), then read back
    from disk. The result is anything torch.save stores (tensors, tuples of tensors)."""
    path = cache_dir() / f"{name}-{_key(parts)}.pt"
    if path.is_file():
        try:
            return torch.load(path, weights_only=True)
        except Exception:  # a truncated or foreign file: compute again
            pass
    result = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    torch.save(result, tmp)
    os.replace(tmp, path)
    return result
