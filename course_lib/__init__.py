"""course_lib: BERTScore from scratch, for the course's notebooks.

    import course_lib
    P, R, F = course_lib.score(["The cat sat on the mat."], ["A cat rested on a mat."])

Modules, one concept each: model (loading, offline), embeddings (tokens -> layer vectors),
similarity (cosine matrix), matching (greedy P/R/F), idf, baseline (rescaling), scorer
(end to end), bleu / rouge / perplexity (lexical metrics), plots, notebook (set-up).
"""
from course_lib.model import DEFAULT_LAYER, EMBEDDED_MODEL, ModelNotAvailableError, load
from course_lib.engine.scorer import score

__all__ = ["score", "load", "DEFAULT_LAYER", "EMBEDDED_MODEL", "ModelNotAvailableError"]
