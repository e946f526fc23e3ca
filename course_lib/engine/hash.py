"""bert-score's hash of a setting (`return_hash=True`, `BERTScorer.hash`), made by bert-score itself.

`course_lib.evaluation.signature` gives a hash-like string without machine paths instead.
"""
from __future__ import annotations

from course_lib.model import is_embedded


def bert_score_model_name(model_type) -> str:
    """The model as bert-score names it in its hash: `model_type` as given; for the embedded
    model (None or an alias) the directory it loads from, as bert-score prints it given that path."""
    from course_lib.model import embedded_model_path

    return str(embedded_model_path()) if is_embedded(model_type) else model_type


def bert_score_hash(model_type, num_layers: int, idf, rescale_with_baseline: bool,
                    use_custom_baseline: bool, use_fast_tokenizer: bool) -> str:
    """bert-score's hash of a setting, by `bert_score.utils.get_hash` itself:

        <model>_L<layer>_<idf|no-idf>_version=<bert_score version>(hug_trans=<transformers version>)
        [-custom-rescaled | -rescaled][_fast-tokenizer]

    <model>: `bert_score_model_name`, so the hash equals bert-score's for the same model and
    settings. -custom-rescaled: a `baseline_path` was given (bert-score's rule). Unlike
    `course_lib.evaluation.signature.signature`, it holds a machine path for a local model, as bert-score's does.
    """
    from bert_score.utils import get_hash

    return get_hash(bert_score_model_name(model_type), num_layers, idf, rescale_with_baseline,
                    use_custom_baseline, use_fast_tokenizer)
