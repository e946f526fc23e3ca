"""Checkers for chapter 05 (importance weighting with idf).

Every expected value is computed here with course_lib (idf, matching) on several cases.
"""
from __future__ import annotations

import math
import random


from course_lib.caching import cached
from . import close, forbid, grading, hidden_rng, hidden_rows, run
from .ch05_cases import (SCORERS_5_3, SLIP_HINTS_5_3, _idf_slip, _reference_sets_5_3, _slip_5_3,
                         _slip_over_cases)

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


@cached(1)
def _all_tokenized_wmt16_refs() -> tuple[tuple[int, ...], ...]:
    """The 2,564 distinct WMT16 references, tokenized as the scorer does (computed once)."""
    from course_lib.evaluation.datasets import wmt16
    from course_lib.bertscore.embeddings import encode
    from course_lib.model import load

    tokenizer, _ = load()
    return tuple(tuple(encode(tokenizer, r)) for r in sorted(set(wmt16()["ref"])))


def _tokenized_wmt16_refs(n: int = 300) -> list[list[int]]:
    return [list(ids) for ids in _all_tokenized_wmt16_refs()[:n]]


def check_5_1(student_idf, hint: int = 1) -> bool:
    """Exercise 5.1: `student_idf(token_ids)` must return bert-score's smoothed idf weights."""
    from course_lib.bertscore.idf import idf_from_ids

    student_idf = forbid(student_idf, "course_lib.bertscore.idf.idf_from_ids",
                         "course_lib.bertscore.idf.document_frequency")

    def test():
        corpora = _TOY_CORPORA + [_random_corpus(s) for s in range(3)] + [_tokenized_wmt16_refs()]
        for k, corpus in enumerate(corpora):
            expected = idf_from_ids(corpus)
            got = student_idf([list(ids) for ids in corpus])
            seen = sorted({i for ids in corpus for i in ids})
            slip = _idf_slip(corpus, got, seen, expected)
            assert slip is None, f"corpus {k} (M = {len(corpus)} texts): {slip}"
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
               code="m = len(token_ids); df = Counter(w for ids in token_ids for w in set(ids)); "
                    "weights = defaultdict(lambda: math.log(m + 1)); "
                    "weights.update({w: math.log((m + 1) / (c + 1)) for w, c in df.items()}); return weights",
               level=hint)


def _has_default(weights) -> bool:
    try:
        weights[_UNSEEN]
    except (KeyError, IndexError, TypeError):
        return False
    return True


# Exercise 5.2: a small test set, one reference per candidate; candidates 0 and 3 are two systems'
# outputs for the same source, so their reference is passed twice (and counts twice in M).
IDF_TEST_SET = (
    ["The cat sat on the log.", "A bird sang on the mat.", "The the the dog.", "A cat sat on a mat."],
    ["The cat sat on the mat.", "The dog sat on the log.", "A cat chased the dog.", "The cat sat on the mat."],
)


def _wmt16_test_set(n: int = 40) -> tuple[list[str], list[str]]:
    """The first n de-en segments of WMT16: (system translations, references)."""
    from course_lib.evaluation.datasets import wmt16

    de = wmt16().query("lp == 'de-en'").head(n)
    return de["mt"].tolist(), de["ref"].tolist()


def check_5_2(student_weights, heaviest=None, hint: int = 1) -> bool:
    """Exercise 5.2: `student_weights(cands, refs, tokenizer)` -> the weight of every token of every
    candidate, as `bert_score.score(cands, refs, idf=True)` weighs it (idf from the references);
    heaviest_5_2: for each candidate of IDF_TEST_SET, a token with the largest weight."""
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
        cands, refs = IDF_TEST_SET
        expected_idf = idf_weights(refs, tokenizer)
        assert isinstance(heaviest, (list, tuple)) and len(heaviest) == len(cands), (
            f"candidate_weights is right. Now set heaviest_5_2 to a list of {len(cands)} tokens: the heaviest token "
            "of each candidate of ch05.IDF_TEST_SET")
        for cand, token in zip(cands, heaviest):
            ids = encode(tokenizer, cand)
            by_token = dict(zip(tokenizer.convert_ids_to_tokens(ids), (expected_idf[i] for i in ids)))
            top = max(by_token.values())
            assert token in by_token, f"{token!r} is not a token of {cand!r} (word pieces as tokens() lists them)"
            assert close(by_token[token], top), (
                f"in {cand!r}, {token!r} is not the heaviest: a token in fewer references weighs more, one in "
                "none weighs most, and a reference passed twice counts twice")

    return run("5.2", test, "idf=True takes idf from the references exactly as passed (M = number of "
               "references, a repeated one counted each time), never from the candidates; idf(w) = "
               "ln((M + 1) / (df(w) + 1)) with df counting references that contain w; a candidate token in no "
               "reference gets ln(M + 1).",
               code="def candidate_weights(cands, refs, tokenizer): weights = my_idf([encode(tokenizer, r) for r "
                    "in refs]); return [[weights[i] for i in encode(tokenizer, c)] for c in cands]  # then: "
                    "heaviest_5_2 = the token with the largest weight of each candidate", level=hint)


# Exercise 5.3: a small test set scored with idf=True (idf from these five references).
FEW_REFS = (
    ["A cat is sitting.", "A cat sits on a mat.", "A cat waits at the door.", "The cat is sitting.",
     "A cat sits in silence."],
    ["The cat sat.", "The cat sat on the mat.", "The cat sat by the door.", "The cat sat.",
     "The cat sat quietly."],
)


def check_5_3(weightless, hint: int = 1) -> bool:
    """Exercise 5.3: `weightless(refs, tokenizer)` -> the indices of the references whose idf weights, idf
    computed from `refs` as idf=True does, sum to 0 (their recall is NaN), without scoring: run on
    FEW_REFS[1] and on reference sets the chapter never prints, every scorer unavailable (SCORERS_5_3)."""
    from course_lib.model import load

    weightless = forbid(weightless, *SCORERS_5_3)

    def test():
        tokenizer, _ = load()
        cases = [("ch05.FEW_REFS[1]", list(FEW_REFS[1]))] + [
            (f"the references {refs}", refs) for refs in _reference_sets_5_3()]
        answers = [(refs, weightless(list(refs), tokenizer)) for _, refs in cases]
        for (name, refs), (_, got) in zip(cases, answers):
            problem = _slip_5_3(refs, got)
            if problem in SLIP_HINTS_5_3.values():  # a named slip: the one that fits every case
                problem = _slip_over_cases(answers) or problem
            assert problem is None, f"{name}: {problem}"

    return run("5.3", test, "recall divides by the total idf weight of the reference's tokens, and idf=True "
               "computes it from these references: a token weighs ln((M + 1) / (df + 1)), 0 exactly when it "
               "occurs in all M references. Which references have only such tokens?",
               code="ids = [set(encode(tokenizer, r)) for r in refs]; in_every = set.intersection(*ids); "
                    "return [k for k, s in enumerate(ids) if s <= in_every]  # df = M: ln((M + 1) / (M + 1)) "
                    "= 0; [CLS]/[SEP] are in every reference", level=hint)


# Exercise 5.4: the cs-en test set of WMT16, scored with idf=True; a candidate with an invented name.
INVENTED_CANDIDATE = "Prime Minister Zorbulak visited Prague on Tuesday."


def _hidden_data():
    """In grading mode the value exercises (5.2-5.4) run on texts drawn with the grading seed, which
    no release holds: numbers copied from the solutions do not pass, the right code does.
    5.2: four WMT16 pairs, the first reference passed twice. 5.3: five references that all contain
    one short sentence's words, the sentence itself at seeded places (its recall is NaN). 5.4: an
    invented name of seeded syllables."""
    rows = hidden_rows("5.2", 3)
    cands = [r["mt"] for r in rows] + [hidden_rows("5.2b", 1)[0]["mt"]]
    refs = [r["ref"] for r in rows] + [rows[0]["ref"]]
    rng = hidden_rng("5.3")
    base = rng.choice(["The dog ran", "A man smiled", "The sun rose", "A child laughed", "The bus left"])
    extra = rng.sample(["at noon", "in the park", "again", "very fast", "near the river", "after lunch",
                       "without a word", "on Monday"], 3)
    where = sorted(rng.sample(range(5), 2))
    few_refs, k = [], 0
    for i in range(5):
        if i in where:
            few_refs.append(f"{base}.")
        else:
            few_refs.append(f"{base} {extra[k]}.")
            k += 1
    few_cands = [f"{base.split()[0]} {w}." for w in rng.sample(["cat sat", "bird sang", "car stopped",
                                                               "girl waved", "train came", "boy ran"], 5)]
    syllables = ["zor", "bul", "kav", "meth", "quon", "dri", "plax", "vun", "esh", "tark"]
    name = "".join(rng.sample(syllables, 3)).capitalize()
    city = rng.choice(["Prague", "Lisbon", "Oslo", "Vienna", "Madrid"])
    return (cands, refs), (few_cands, few_refs), f"Prime Minister {name} visited {city} on Tuesday."


if grading():
    IDF_TEST_SET, FEW_REFS, INVENTED_CANDIDATE = _hidden_data()


@cached(1)
def _cs_en_ids() -> tuple[tuple[int, ...], ...]:
    from course_lib.bertscore.embeddings import encode
    from course_lib.evaluation.datasets import wmt16
    from course_lib.model import load

    tokenizer, _ = load()
    return tuple(tuple(encode(tokenizer, r)) for r in wmt16().query("lp == 'cs-en'")["ref"])


def _unseen_tokens(candidate: str) -> tuple[str, ...]:
    """Tokens of `candidate` in no cs-en reference (they get the weight log(M + 1))."""
    from course_lib.bertscore.embeddings import encode
    from course_lib.bertscore.idf import document_frequency
    from course_lib.model import load

    tokenizer, _ = load()
    df = document_frequency([list(ids) for ids in _cs_en_ids()])
    ids = encode(tokenizer, candidate)
    return tuple(t for t, i in zip(tokenizer.convert_ids_to_tokens(ids), ids) if df[i] == 0)


def _candidate_tokens(candidate: str) -> tuple[str, ...]:
    from course_lib.bertscore.embeddings import tokens
    from course_lib.model import load

    return tuple(tokens(load()[0], candidate))


def check_5_4(answer, unseen=None, hint: int = 1) -> bool:
    """Exercise 5.4: (idf of a token in no reference, idf of a token in exactly one) when the WMT16
    cs-en segments are scored with idf=True; and the tokens of INVENTED_CANDIDATE that get the first."""
    from course_lib.bertscore.idf import idf_from_ids

    def test():
        ids = [list(x) for x in _cs_en_ids()]
        m, weights = len(ids), idf_from_ids(ids)
        expected = (weights[987_654_321], math.log((m + 1) / 2))
        assert isinstance(answer, (tuple, list)) and len(answer) == 2, "answer with a pair (unseen, seen once)"
        try:
            got = [float(x) for x in answer]
        except (TypeError, ValueError):
            raise AssertionError("answer with a pair of numbers") from None
        if close(got[0], expected[1], 1e-4) and close(got[1], expected[0], 1e-4):
            raise AssertionError("wrong order: your pair is (seen once, unseen); give (unseen, seen once)")
        if all(abs(g - w) < 0.006 for g, w in zip(got, expected)) and not all(
                close(g, w, 1e-4) for g, w in zip(got, expected)):
            raise AssertionError("your numbers are right to two decimals: give them unrounded "
                                 "(math.log(...)), the check compares to 1e-4")
        distinct = len(set(map(tuple, ids)))
        if close(got[0], math.log(distinct + 1), 1e-4):
            raise AssertionError(f"you counted {distinct} distinct references; idf=True counts every "
                                 f"reference it is given, a repeated one each time (M = {m})")
        assert close(got[0], expected[0], 1e-4), "the unseen token: df = 0 (M = number of references passed)"
        assert close(got[1], expected[1], 1e-4), "the token seen once: df = 1"
        want = _unseen_tokens(INVENTED_CANDIDATE)
        assert isinstance(unseen, (list, tuple)) and all(isinstance(t, str) for t in unseen), (
            "the pair is right. Now set unseen_5_4 to the list of the candidate's tokens (word pieces) that "
            "get the first weight")
        got_t = [t.strip() for t in unseen]
        cand = _candidate_tokens(INVENTED_CANDIDATE)
        alien = [t for t in got_t if t not in cand]
        assert not alien, (f"{alien} is not a token of the candidate: the tokenizer splits words it does not "
                           "know into word pieces (## marks a continuation); list the pieces tokens() gives")
        assert not set(got_t) - set(want), (f"{sorted(set(got_t) - set(want))} occur in some cs-en reference "
                                            "(df > 0)")
        assert not set(want) - set(got_t), (f"you found {len(set(got_t))} of the {len(set(want))} unseen tokens: "
                                            "check every word piece, common words too")

    return run("5.4", test, "idf=True computes idf from the references passed, all M of them (a repeated "
               "reference counts each time); an unseen token has df = 0, the rarest seen token df = 1. A "
               "candidate token gets the unseen weight when no reference contains it: look it up token by token.",
               code="refs = datasets.wmt16().query(\"lp == 'cs-en'\")[\"ref\"].tolist(); m = len(refs); "
                    "answer_5_4 = (math.log(m + 1), math.log((m + 1) / 2)); df = idf_lib.document_frequency("
                    "[encode(tokenizer, r) for r in refs]); ids = encode(tokenizer, ch05.INVENTED_CANDIDATE); "
                    "unseen_5_4 = [t for t, i in zip(tokenizer.convert_ids_to_tokens(ids), ids) if df[i] == 0]",
               level=hint)
