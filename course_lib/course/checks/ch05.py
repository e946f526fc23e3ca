"""Checkers for chapter 05 (importance weighting with idf).

Every expected value is computed here with course_lib (idf, matching) on several cases.
"""
from __future__ import annotations

import math
import random
from functools import lru_cache


from . import close, forbid, run

# Token-id corpora with the traps: repeats inside a text, [CLS]=101/[SEP]=102 in every text.
_TOY_CORPORA = [
    [[101, 7, 8, 9, 102], [101, 7, 7, 7, 102], [101, 9, 10, 102]],
    [[101, 5, 102]],
    [[101, 1, 2, 3, 102], [101, 2, 3, 4, 102], [101, 3, 4, 5, 102], [101, 3, 3, 6, 102], [101, 102]],
]
_UNSEEN = 987_654  # an id no corpus contains


def _random_corpus(seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [[101] + [rng.randint(1000, 1040) for _ in range(rng.randint(1, 12))] + [102]
            for _ in range(rng.randint(5, 40))]


@lru_cache(maxsize=1)
def _all_tokenized_wmt16_refs() -> tuple[tuple[int, ...], ...]:
    """The 2,564 distinct WMT16 references, tokenized as the scorer does (computed once)."""
    from course_lib.evaluation.datasets import wmt16
    from course_lib.bertscore.embeddings import encode
    from course_lib.model import load

    tokenizer, _ = load()
    return tuple(tuple(encode(tokenizer, r)) for r in sorted(set(wmt16()["ref"])))


def _tokenized_wmt16_refs(n: int = 300) -> list[list[int]]:
    return [list(ids) for ids in _all_tokenized_wmt16_refs()[:n]]


def check_idf(student_idf, hint: int = 1) -> bool:
    """Exercise 5.1: `student_idf(token_ids)` must return bert-score's smoothed idf weights."""
    from course_lib.bertscore.idf import idf_from_ids

    student_idf = forbid(student_idf, "course_lib.bertscore.idf", "course_lib.engine.scorer")

    def test():
        corpora = _TOY_CORPORA + [_random_corpus(s) for s in range(3)] + [_tokenized_wmt16_refs()]
        for k, corpus in enumerate(corpora):
            expected = idf_from_ids(corpus)
            got = student_idf([list(ids) for ids in corpus])
            seen = sorted({i for ids in corpus for i in ids})
            for i in seen:
                assert i in got or _has_default(got), f"corpus {k}: token {i} is missing"
                assert close(got[i], expected[i]), (
                    f"corpus {k} (M = {len(corpus)} texts): token {i} should weigh "
                    f"{expected[i]:.4f}, yours {float(got[i]):.4f}")
            assert _has_default(got), "the result must give a weight to unseen tokens too (a defaultdict)"
            assert close(got[_UNSEEN], math.log(len(corpus) + 1)), (
                f"corpus {k}: an unseen token should weigh log(M + 1) = {math.log(len(corpus) + 1):.4f}, "
                f"yours {float(got[_UNSEEN]):.4f}")

    return run("5.1", test, "df(w) counts the texts that contain w (not every occurrence); "
               "idf(w) = log((M + 1) / (df(w) + 1)); an unseen token gets log(M + 1), so return a "
               "collections.defaultdict.",
               code="df = Counter(); for ids in token_ids: df.update(set(ids)); weights = defaultdict(lambda: "
                    "math.log(m + 1)); weights[w] = math.log((m + 1) / (c + 1)) for w, c in df.items()",
               level=hint)


def _has_default(weights) -> bool:
    try:
        weights[_UNSEEN]
    except (KeyError, IndexError, TypeError):
        return False
    return True


# Exercise 5.2: small test sets (candidates, references) whose idf is easy to get wrong.
IDF_TEST_SET = (
    ["The cat sat on the log.", "A bird sang on the mat.", "The the the dog."],  # candidates
    ["The cat sat on the mat.", "The dog sat on the log.", "The cat sat on the mat.",
     "A cat chased the dog."],                  # references (one twice: M counts every reference)
)


def _wmt16_test_set(n: int = 40) -> tuple[list[str], list[str]]:
    """The first n de-en segments of WMT16: (system translations, references)."""
    from course_lib.evaluation.datasets import wmt16

    de = wmt16().query("lp == 'de-en'").head(n)
    return de["mt"].tolist(), de["ref"].tolist()


def check_5_2(student_weights) -> bool:
    """Exercise 5.2: `student_weights(cands, refs, tokenizer)` -> the weight of every token of every
    candidate, as `bert_score.score(cands, refs, idf=True)` weighs it (idf from the references)."""
    from course_lib.bertscore.embeddings import encode
    from course_lib.bertscore.idf import idf_weights
    from course_lib.model import load

    def test():
        tokenizer, _ = load()
        for name, (cands, refs) in [("the toy test set", IDF_TEST_SET),
                                    ("40 WMT16 de-en segments", _wmt16_test_set())]:
            expected_idf = idf_weights(refs, tokenizer)  # the answer key: course_lib, fixed data
            got = student_weights(list(cands), list(refs), tokenizer)
            assert len(got) == len(cands), f"{name}: return one list of weights per candidate"
            for cand, weights in zip(cands, got):
                ids = encode(tokenizer, cand)
                weights = [float(w) for w in weights]
                assert len(weights) == len(ids), (
                    f"{name}: {cand!r} has {len(ids)} tokens with [CLS] and [SEP], you gave {len(weights)} weights")
                for token, i, w in zip(tokenizer.convert_ids_to_tokens(ids), ids, weights):
                    assert close(w, expected_idf[i]), (
                        f"{name}: token {token!r} of {cand!r} should weigh {expected_idf[i]:.4f}, yours {w:.4f}")

    return run("5.2", test, "idf=True takes idf from the references (M = number of references), never from "
               "the candidates; idf(w) = ln((M + 1) / (df(w) + 1)) with df counting references that contain w; "
               "a candidate token in no reference gets ln(M + 1).")


def check_single_reference_weight(answer, hint: int = 1) -> bool:
    """Exercise 5.3: the idf of every token when idf comes from one reference sentence."""
    from course_lib.bertscore.idf import idf_from_ids

    def test():
        values = set()
        for corpus in ([[101, 7, 8, 9, 102]], [_random_corpus(4)[0]], [_tokenized_wmt16_refs(1)[0]]):
            weights = idf_from_ids(corpus)
            values |= {round(weights[i], 12) for i in corpus[0]}
        assert len(values) == 1
        expected = values.pop()
        assert isinstance(answer, (int, float)) and not isinstance(answer, bool), "answer with a number"
        assert close(answer, expected), "with M = 1 text, every token of it has df = 1"

    return run("5.3", test, "with one text, M = 1 and every token of it has df(w) = 1.",
               code="math.log((1 + 1) / (1 + 1))", level=hint)


def check_unseen_and_rarest(answer, hint: int = 1) -> bool:
    """Exercise 5.4: (idf of a token never seen, idf of a token seen once) for the 2,564 WMT16 references."""
    from course_lib.bertscore.idf import document_frequency, idf_from_ids
    from course_lib.model import load

    def test():
        tokenizer, _ = load()
        ids = _tokenized_wmt16_refs(n=None)
        df, weights = document_frequency(ids), idf_from_ids(ids)
        once = next(i for i, c in sorted(df.items()) if c == 1)
        unseen = next(i for i in range(tokenizer.vocab_size) if i not in df)
        expected = (weights[unseen], weights[once])
        assert isinstance(answer, (tuple, list)) and len(answer) == 2, "answer with a pair (unseen, seen once)"
        assert close(answer[0], expected[0], 1e-3), "the unseen token: check its weight (M = number of references)"
        assert close(answer[1], expected[1], 1e-3), "the token seen once: df = 1"

    return run("5.4", test, "M is the number of unique WMT16 references (not of rows); an unseen token has "
               "df = 0, the rarest seen token df = 1.",
               code="m = len(set(wmt16()[\"ref\"])); answer_5_4 = (math.log(m + 1), math.log((m + 1) / 2))",
               level=hint)
