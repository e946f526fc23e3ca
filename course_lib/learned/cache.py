"""A disk cache for slow, deterministic results (pooled vectors, BERTScore of a data set).

A result is named by a hash of everything that decides it (the model, the layer, the texts):
`<name>-<hash>.pt`. `cached` looks for that file

  1. in the user's cache folder, `course_lib.paths.user_cache_dir() / "learned"` ($COURSE_CACHE
     overrides it): never the course folder;
  2. among the files the course ships, `data/wmt16_da/vectors/` (read only): WMT16's pooled vectors
     and BERTScore at every layer, made by `python -m course_lib.learned.precompute` because
     embedding WMT16's 10,080 texts takes minutes on a laptop's CPU;

and computes (then writes to 1.) only when neither has it. Delete the user folder to start afresh.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import torch

from course_lib import paths

SHIPPED = paths.DATA / "wmt16_da" / "vectors"


def cache_dir() -> Path:
    """The user's folder for computed results (see the module's docstring)."""
    return paths.user_cache_dir() / "learned"


def file_name(name: str, parts) -> str:
    """`<name>-<hash of parts>.pt`: parts is a tuple of strings, numbers and lists of them."""
    digest = hashlib.sha256()
    for part in parts:
        items = part if isinstance(part, (list, tuple)) else [part]
        digest.update(f"{type(part).__name__}:{len(items)}|".encode())
        for item in items:
            digest.update(str(item).encode("utf-8") + b"\x00")
    return f"{name}-{digest.hexdigest()[:24]}.pt"


def cached(name: str, parts, compute):
    """compute() once for `parts`, then read back from disk (the user's folder, else the shipped
    one). The result is anything torch.save stores (tensors, tuples of tensors)."""
    file = file_name(name, parts)
    for folder in (cache_dir(), SHIPPED):
        if (folder / file).is_file():
            try:
                return torch.load(folder / file, weights_only=True)
            except Exception:  # a truncated or foreign file: compute again
                pass
    result = compute()
    path = cache_dir() / file
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    torch.save(result, tmp)
    os.replace(tmp, path)
    return result
