"""The demo's settings and inputs: one `BERTScorer` per idf corpus (its idf weights computed
once, the rescaling baseline read once), and the checks that turn bad input into a message for
the audience (`InputProblem`)."""
from __future__ import annotations

import threading

import torch

from course_lib.bertscore.embeddings import model_limit
from course_lib.model import check_layer as check_model_layer, load, num_layers_of

# ---------------------------------------------------------------------------------------------
# idf corpora and the rescaling baseline: held by one BERTScorer per corpus
# ---------------------------------------------------------------------------------------------


def _wmt16_references() -> list[str]:
    from course_lib.evaluation import datasets

    return sorted({t.strip() for t in datasets.wmt16()["ref"] if isinstance(t, str) and t.strip()})


def _stsb_sentences() -> list[str]:
    from course_lib.evaluation import datasets

    df = datasets.stsb()
    texts = df["sentence1"].tolist() + df["sentence2"].tolist()
    return sorted({t.strip() for t in texts if isinstance(t, str) and t.strip()})


IDF_CORPORA = {"WMT16 references": _wmt16_references, "STS-B sentences": _stsb_sentences}
_SCORERS: dict = {}  # idf corpus name (None: no idf) -> BERTScorer
_SCORERS_LOCK = threading.Lock()  # two threads asking at once build it once


def corpus_size(name: str) -> int:
    """Number of (unique) texts in an idf corpus."""
    return len(IDF_CORPORA[name]())


def idf_ready(name: str | None) -> bool:
    """True when `scorer_for(name)` returns at once (no idf, or its idf computed before)."""
    return name is None or name in _SCORERS


def scorer_for(name: str | None):
    """The demo's settings as a `course_lib.BERTScorer` (embedded model, every layer, the
    course's baseline), with idf from the named corpus (None: no idf). Built once per corpus:
    the idf over its M unique texts, idf(w) = log((M + 1) / (df(w) + 1)), is computed then.
    The demo reads its settings (`idf_dict`, `baseline_vals`); it scores from its own cache of
    embedded texts (`demo.scoring`), tested equal to this scorer's `.score()`."""
    from course_lib.engine.bertscorer import BERTScorer

    if name is not None and name not in IDF_CORPORA:
        raise ValueError(f"unknown idf corpus {name!r}; choose one of {sorted(IDF_CORPORA)}")
    with _SCORERS_LOCK:
        if name not in _SCORERS:
            sents = IDF_CORPORA[name]() if name is not None else None
            _SCORERS[name] = BERTScorer(all_layers=True, idf=name is not None, idf_sents=sents,
                                        rescale_with_baseline=True)
        return _SCORERS[name]


def forget_idf(name: str) -> None:
    """Forget the idf weights of a corpus: the next `idf_for(name)` computes them again."""
    with _SCORERS_LOCK:
        _SCORERS.pop(name, None)


def idf_for(name: str | None):
    """idf weights {token id: weight} of the named corpus (None: no idf): `scorer_for(name)`'s."""
    return None if name is None else scorer_for(name).idf_dict


def baseline_for(layer: int) -> torch.Tensor:
    """The course's (P, R, F) baseline [3] of the embedded model at `layer` (the scorer's)."""
    return scorer_for(None).baseline_vals[layer, 0]


# ---------------------------------------------------------------------------------------------
# Input checks: bad input becomes a friendly message, never a traceback
# ---------------------------------------------------------------------------------------------

MAX_CHARS = 20_000  # beyond this, do not even tokenize: it is certainly over the token limit


class InputProblem(ValueError):
    """Input the demo cannot score; str(err) is a message meant for the audience."""


def check_text(text, role: str = "candidate") -> str:
    """Return the stripped text, or raise InputProblem with a message saying what to change."""
    if not isinstance(text, str):
        raise InputProblem(f"The {role} must be text, not {type(text).__name__}.")
    text = text.strip()
    if not text:
        raise InputProblem(f"The {role} box is empty: type a sentence (or pick a preset).")
    tokenizer, _ = load()
    limit = model_limit(tokenizer)  # word pieces the model reads, [CLS] and [SEP] included
    if len(text) > MAX_CHARS:
        raise InputProblem(
            f"The {role} is very long ({len(text):,} characters). The model reads at most "
            f"{limit - 2} word pieces (plus [CLS] and [SEP]); paste a shorter text.")
    tokenizer, _ = load()
    n = len(tokenizer.tokenize(text))
    if n == 0:
        raise InputProblem(f"The {role} has no word the tokenizer can read: type some words.")
    if n + 2 > limit:
        raise InputProblem(
            f"The {role} is too long: {n} word pieces, and the model reads at most {limit - 2} "
            "(plus [CLS] and [SEP]). BERTScore would silently cut the tail; shorten the text.")
    return text


def check_layer(layer) -> int:
    """`course_lib.model.check_layer`'s rule, its error worded for the audience."""
    _, model = load()
    n = num_layers_of(model)
    try:
        return check_model_layer(layer, None, n)
    except ValueError:
        raise InputProblem(f"The layer must be a whole number from 0 to {n}, got {layer!r}.") from None
