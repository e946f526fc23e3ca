"""course_lib: BERTScore from scratch, for the course's notebooks.

    import course_lib
    P, R, F = course_lib.score(["The cat sat on the mat."], ["A cat rested on a mat."])
    scorer = course_lib.BERTScorer(lang="en")        # bert-score's API: the model loaded once
    (P, R, F), setting = scorer.score(cands, refs, return_hash=True)

`score` and `BERTScorer` take bert-score 0.3.13's arguments in its order and return its
shapes (and hash); offline, the model is the embedded all-MiniLM-L6-v2 (`EMBEDDED_MODEL`, at
layer `DEFAULT_LAYER`). `reference_bertscore` is the same metric one pair at a time, built
only from what the chapters teach.

Packages, one concern each:
    model, paths        which model (every spelling of it, its layers) and loading it (offline,
                        checksum), where data and figures live
    bertscore/          the metric as taught, one formula a function: embeddings, similarity,
                        matching, idf, baseline, pair (one pair's view), reference (the definition
                        end to end, given a resolved setting); it imports nothing above it
    call/               a call resolved once: setting (the `Setting` every entry point takes),
                        inputs (the one validator, the empty-text warning), reference
                        (reference_bertscore: bert-score's arguments around the definition)
    engine/             the fast engine, built from bertscore/: scorer (score, the steps in order),
                        store (each sentence embedded once), pairs (greedy_match in batches),
                        packing, streaming, fast_tokenizer, bertscorer (BERTScorer), baseline
                        (computing one), long_text
    lexical/            BLEU (and its 13a tokenizer), ROUGE, perplexity, from scratch
    evaluation/         correlation with human judgments, datasets, metric (BERTScoreMetric), signature
    teaching/, demo/, course/   plots and notebook helpers, the live demo, exercises and checks
"""
import importlib
import importlib.util

__all__ = ["score", "BERTScorer", "reference_bertscore", "load", "DEFAULT_LAYER", "EMBEDDED_MODEL",
           "ModelNotAvailableError"]


def __getattr__(name: str):
    """Import on first use (PEP 562): `import course_lib` stays cheap, and a chapter that never
    scores (chapter 01's BLEU and ROUGE) never loads torch or transformers. `from course_lib import
    score` and `course_lib.model.load` work as if everything had been imported up front."""
    if name in ("DEFAULT_LAYER", "EMBEDDED_MODEL", "ModelNotAvailableError", "load"):
        from course_lib import model as module
    elif name == "reference_bertscore":
        from course_lib.call import reference as module
    elif name == "BERTScorer":
        from course_lib.engine import bertscorer as module
    elif name == "score":
        from course_lib.engine import scorer as module
    elif not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")  # a subpackage: course_lib.model, ...
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # looked up each time, never cached here: while an exercise check switches a function off in its
    # module (course_lib.course.checks.forbid), `course_lib.score` must see that, and the original after
    return getattr(module, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
