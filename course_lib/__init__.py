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
    bertscore/          the metric as taught: embeddings, similarity, matching, idf, baseline,
                        inputs (checks shared by every entry point), pair (one pair's view),
                        reference (reference_bertscore)
    engine/             the fast engine, built from bertscore/: scorer (score, the steps in order),
                        store (each sentence embedded once), pairs (greedy_match in batches),
                        packing, streaming, fast_tokenizer, bertscorer (BERTScorer), baseline
                        (computing one), long_text
    lexical/            BLEU (and its 13a tokenizer), ROUGE, perplexity, from scratch
    evaluation/         correlation with human judgments, datasets, metric (BERTScoreMetric), signature
    teaching/, demo/, course/   plots and notebook helpers, the live demo, exercises and checks
"""
from course_lib.model import DEFAULT_LAYER, EMBEDDED_MODEL, ModelNotAvailableError, load
from course_lib.bertscore.reference import reference_bertscore
from course_lib.engine.bertscorer import BERTScorer
from course_lib.engine.scorer import score

__all__ = ["score", "BERTScorer", "reference_bertscore", "load", "DEFAULT_LAYER", "EMBEDDED_MODEL",
           "ModelNotAvailableError"]
