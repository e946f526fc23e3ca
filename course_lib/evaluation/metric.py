"""BERTScore as an LLM-evaluation metric: validated inputs, one pair or a DataFrame of rows.

The shape of an evaluation-framework metric (such as a custom metric in Opik): an object built
once with its settings, whose `score(answer, reference)` refuses empty, whitespace-only or
non-string text with a clear error instead of returning a meaningless number, and which can
score a whole table of (question, answer, reference) rows. It holds one `BERTScorer` (the model
loaded and checked once, idf weights computed once); the numbers are `course_lib.score`'s:

    P = mean over answer tokens of the best cosine to a reference token
    R = mean over reference tokens of the best cosine to an answer token
    F = 2 P R / (P + R)
"""
from __future__ import annotations

import pandas as pd

from course_lib.call.inputs import check_text
from course_lib.engine.bertscorer import BERTScorer
from course_lib.evaluation.signature import signature


def validate_text(value, what: str) -> str:
    """Return `value` if it is a non-empty string; else raise TypeError / ValueError naming `what`
    (the course's one check of a text, `course_lib.call.inputs.check_text`)."""
    return check_text(value, what, nonempty=True)


class BERTScoreMetric:
    """BERTScore of answers against reference answers, with checked inputs.

    Settings as in `course_lib.score` (None = the embedded model at its default layer), checked
    here, at construction: a bad `num_layers` or baseline file fails now, not at the first score.
    idf: False; a list of texts (the corpus the weights are computed from, once); or a dict
    {token id: weight}. idf=True is refused: computed from the references being scored, idf
    would make a pair's score depend on the rows scored with it (and on one pair every token
    gets idf log(2/2) = 0, so R = NaN).
    `signature` records the settings with the library versions (`course_lib.evaluation.signature`).
    """

    name = "bertscore"

    def __init__(self, model_type=None, num_layers=None, idf=False, rescale_with_baseline=False):
        if idf is True:
            raise ValueError("BERTScoreMetric(idf=True) needs a corpus: pass idf=<list of reference texts> "
                             "(weights computed once from them) or idf={token id: weight}")
        if isinstance(idf, (list, tuple)) and not idf:
            raise ValueError("BERTScoreMetric(idf=[]): the idf corpus is empty")
        corpus = isinstance(idf, (list, tuple))  # else False/None or a dict, checked by BERTScorer
        self.scorer = BERTScorer(model_type, num_layers, idf=True if corpus else idf,
                                 idf_sents=list(idf) if corpus else None,
                                 rescale_with_baseline=rescale_with_baseline)
        self.signature = signature(model_type, num_layers, idf=idf is not False and idf is not None,
                                   rescale_with_baseline=rescale_with_baseline)

    def __repr__(self) -> str:
        return f"BERTScoreMetric({self.signature})"

    def _scores(self, answers: list[str], references: list[str]):
        P, R, F = self.scorer.score(answers, references)
        return P.tolist(), R.tolist(), F.tolist()

    def score(self, answer, reference) -> dict[str, float]:
        """One pair -> {"P": precision, "R": recall, "F": F1} as floats."""
        validate_text(answer, "answer")
        validate_text(reference, "reference")
        (p,), (r,), (f,) = self._scores([answer], [reference])
        return {"P": p, "R": r, "F": f}

    def score_frame(self, df: pd.DataFrame, answer_col: str = "answer",
                    reference_col: str = "reference") -> pd.DataFrame:
        """A copy of `df` with columns P, R, F: each row's answer scored against its reference.

        Every row is validated before any scoring; an error names the row's index label.
        All rows are scored in one batched call (the same numbers as one at a time).
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"score_frame expects a pandas DataFrame, got {type(df).__name__}")
        missing = [c for c in (answer_col, reference_col) if c not in df.columns]
        if missing:
            raise KeyError(f"column(s) {missing} not in the DataFrame (columns: {list(df.columns)})")
        for label, answer, reference in zip(df.index, df[answer_col], df[reference_col]):
            validate_text(answer, f"row {label!r}: {answer_col}")
            validate_text(reference, f"row {label!r}: {reference_col}")
        out = df.copy()
        if len(df) == 0:
            P = R = F = []
        else:
            P, R, F = self._scores(df[answer_col].tolist(), df[reference_col].tolist())
        out["P"], out["R"], out["F"] = pd.Series(P, index=df.index, dtype=float), \
            pd.Series(R, index=df.index, dtype=float), pd.Series(F, index=df.index, dtype=float)
        return out
