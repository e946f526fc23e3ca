"""The demo's settings and inputs: the idf weights of each corpus (computed once, as
`course_lib.BERTScorer` computes them), the rescaling baseline (read once, from the file
`course_lib.score` reads), and the checks that turn bad input into a message for the audience
(`InputProblem`)."""
from __future__ import annotations

import torch

from course_lib.bertscore.embeddings import model_limit
from course_lib.call.inputs import check_text as check_any_text
from course_lib.call.setting import Setting, resolve_setting
from course_lib.caching import Cache, cached
from course_lib.engine.store import corpus_idf
from course_lib.model import check_layer as check_model_layer

# ---------------------------------------------------------------------------------------------
# idf corpora and the rescaling baseline
# ---------------------------------------------------------------------------------------------


def wmt16_references() -> list[str]:
    from course_lib.evaluation import datasets

    return sorted({t.strip() for t in datasets.wmt16()["ref"] if isinstance(t, str) and t.strip()})


def stsb_sentences() -> list[str]:
    from course_lib.evaluation import datasets

    df = datasets.stsb()
    texts = df["sentence1"].tolist() + df["sentence2"].tolist()
    return sorted({t.strip() for t in texts if isinstance(t, str) and t.strip()})


IDF_CORPORA = {"WMT16 references": wmt16_references, "STS-B sentences": stsb_sentences}
_IDF = Cache()  # idf corpus name -> its weights {token id: weight}; two threads asking at once compute them once


def corpus_size(name: str) -> int:
    """Number of (unique) texts in an idf corpus."""
    return len(IDF_CORPORA[name]())


def idf_ready(name: str | None) -> bool:
    """True when `idf_for(name)` returns at once (no idf, or its idf computed before)."""
    return name is None or name in _IDF


def idf_for(name: str | None):
    """idf weights {token id: weight} of the named corpus (None: no idf), computed once over its
    M unique texts: idf(w) = log((M + 1) / (df(w) + 1)), as `BERTScorer(idf=True, idf_sents=...)`."""
    if name is None:
        return None
    if name not in IDF_CORPORA:
        raise ValueError(f"unknown idf corpus {name!r}; choose one of {sorted(IDF_CORPORA)}")
    return _IDF.get(name, lambda: corpus_idf(IDF_CORPORA[name](), demo_setting().tokenizer))


def forget_idf(name: str) -> None:
    """Forget the idf weights of a corpus: the next `idf_for(name)` computes them again."""
    _IDF.pop(name)


@cached()
def demo_setting() -> Setting:
    """The demo's setting, resolved once as `course_lib.score(..., rescale_with_baseline=True)`
    resolves its own: the embedded model and tokenizer, its default layer, the weights without idf,
    its baseline table. Every score the demo shows uses this setting's model, tokenizer and layer
    bounds; a layer or idf change picks its layer and weights."""
    return resolve_setting(rescale_with_baseline=True)


def baseline_for(layer: int) -> torch.Tensor:
    """The course's (P, R, F) baseline [3] of the embedded model at `layer`, from the file
    `course_lib.score(..., rescale_with_baseline=True)` reads."""
    return demo_setting().baselines[layer]


# ---------------------------------------------------------------------------------------------
# Input checks: bad input becomes a friendly message, never a traceback
# ---------------------------------------------------------------------------------------------

MAX_CHARS = 20_000  # beyond this, do not even tokenize: it is certainly over the token limit


class InputProblem(ValueError):
    """Input the demo cannot score; str(err) is a message meant for the audience."""


def check_text(text, role: str = "candidate") -> str:
    """Return the stripped text, or raise InputProblem with a message saying what to change: the
    course's check of a text (`course_lib.call.inputs.check_text`, a non-empty str) worded for the
    audience, then the demo's own rules (no text the model would truncate)."""
    try:
        text = check_any_text(text, role, nonempty=True).strip()
    except TypeError:
        raise InputProblem(f"The {role} must be text, not {type(text).__name__}.") from None
    except ValueError:
        raise InputProblem(f"The {role} box is empty: type a sentence (or pick a preset).") from None
    tokenizer = demo_setting().tokenizer
    limit = model_limit(tokenizer)  # word pieces the model reads, [CLS] and [SEP] included
    if len(text) > MAX_CHARS:
        raise InputProblem(
            f"The {role} is very long ({len(text):,} characters). The model reads at most "
            f"{limit - 2} word pieces (plus [CLS] and [SEP]); paste a shorter text.")
    n = len(tokenizer.tokenize(text))
    if n == 0:
        raise InputProblem(f"The {role} has no word the tokenizer can read: type some words.")
    if n + 2 > limit:
        raise InputProblem(
            f"The {role} is too long: {n} word pieces, and the model reads at most {limit - 2} "
            "(plus [CLS] and [SEP]). BERTScore would silently cut the tail; shorten the text.")
    return text


def check_layer(layer=None) -> int:
    """`course_lib.model.check_layer`'s rule (None: the setting's default layer), its error worded
    for the audience."""
    setting = demo_setting()
    n = setting.n_layers
    try:
        return check_model_layer(layer, setting.model, n)
    except ValueError:
        raise InputProblem(f"The layer must be a whole number from 0 to {n}, got {layer!r}.") from None
