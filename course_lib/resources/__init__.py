"""Files the library itself reads, shipped inside the package (so `pip install .` works outside
the course folder): the course's baseline for the embedded model, and the Rob Halford example
that chapter 06 and the live demo use. Read with importlib.resources."""
from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

BASELINES = Path(str(files(__name__) / "baselines"))


def halford() -> dict:
    """The RAG blog post's example (rag_halford/halford.json, see its PROVENANCE.md): the
    question, the expected answer, three candidates and the post's published table."""
    return json.loads((files(__name__) / "rag_halford" / "halford.json").read_text(encoding="utf-8"))
