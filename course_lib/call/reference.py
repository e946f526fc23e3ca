"""`reference_bertscore`: the taught definition (`course_lib.bertscore.reference`) behind
bert-score's arguments. It checks the inputs, resolves the setting once, runs the definition and says
which texts were empty, as every entry point does."""
from __future__ import annotations

from course_lib.bertscore.reference import reference_scores
from course_lib.call.inputs import check_inputs, empty_flags, warn_empty
from course_lib.call.setting import resolve_setting


def reference_bertscore(cands, refs, model_type=None, num_layers=None, idf=False,
                        rescale_with_baseline=False, baseline_path=None, lang=None, *, exclude_special=False):
    """BERTScore P, R, F of each candidate against its reference(s), one pair at a time: three tensors [N].

    cands: list of str; refs: list of str, or of lists of str (several references).
    model_type, lang: as in `course_lib.score` (None or lang="en": the embedded model).
    num_layers: the hidden state to use (0 = embedding output; None = the model's default).
    idf: False (every token weighs 1), True (idf from the references) or {token id: weight}.
    exclude_special=True: [CLS]/[SEP] are not match targets (bert-score keeps them).
    """
    cands, groups = check_inputs(cands, refs)
    all_refs = [r for group in groups for r in group]
    setting = resolve_setting(model_type, num_layers, idf, lang=lang, rescale_with_baseline=rescale_with_baseline,
                              baseline_path=baseline_path, idf_sents=all_refs if idf is True else None)
    setting.check_weights_cover(cands + all_refs)  # a plain idf dict weighs every token id
    prf = reference_scores(setting, cands, groups, exclude_special=exclude_special)
    warn_empty(*empty_flags(setting.tokenizer, cands, groups))  # bert-score's warning, naming each empty text
    return prf
