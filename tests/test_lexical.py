"""Lexical metrics of course_lib (BLEU, ROUGE, perplexity) against the reference packages.

BLEU must equal sacrebleu 2.5.1 and ROUGE must equal rouge-score 0.1.2 on real
sentence pairs (WMT16 DA to-English, STS-B) and on hand-made edge cases.
The last section plants bugs and checks that these comparisons catch them.
"""

import csv
import itertools
import logging
from pathlib import Path

import pytest
import sacrebleu
from rouge_score import rouge_scorer
from sacrebleu.metrics.bleu import BLEU

from course_lib.lexical import bleu, rouge
from course_lib.lexical.bleu import (bleu_details, brevity_penalty, corpus_bleu, modified_precision,
                             sentence_bleu, tokenize_13a)
from course_lib.lexical.perplexity import perplexity
from course_lib.lexical.rouge import lcs_length, rouge_l, rouge_n, rouge_s

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

DATA = Path(__file__).parent.parent / "data"
BLEU_TOL = 1e-6
ROUGE_TOL = 1e-9


def _read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# Every 5th WMT row: 672 (mt, ref) pairs from all six language pairs.
WMT = _read_csv(DATA / "wmt16_da" / "wmt16_da_seg_to_en.csv")[::5]
# Every 25th STS-B row: 346 (sentence1, sentence2) pairs from all genres.
STSB = _read_csv(DATA / "stsb" / "stsb_all.csv")[::25]

REAL_PAIRS = [(row["mt"], row["ref"]) for row in WMT] + \
             [(row["sentence1"], row["sentence2"]) for row in STSB]

EDGE_STRINGS = [
    "",
    "   ",
    "...",
    "?!",
    "The cat is on the mat.",
    "the cat is on the mat",
    "The cat, which was black, sat on the very old mat near the door today.",
    "It costs $20.00, or 1,000.5 yen (2-3 times more).",
    "e-mail me at a.b@c.com & say \"hi\" &amp; &quot;bye&quot;",
    "Café naïve résumé — “quoted” ‘text’ 東京 😀",
    "hyphen-\nated line <skipped> end -\n",
    "The the THE the",
    "2016. 5.5 .5 5. ,5 5,",
]
EDGE_PAIRS = list(itertools.product(EDGE_STRINGS, repeat=2))
ALL_PAIRS = REAL_PAIRS + EDGE_PAIRS

SCORER = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=False)


def test_enough_real_data():
    assert len(WMT) >= 500 and len(STSB) >= 300


# ---------------------------------------------------------------------------
# BLEU
# ---------------------------------------------------------------------------

def test_tokenizer_matches_sacrebleu():
    preprocess = BLEU()._preprocess_segment  # sacrebleu: rstrip, then 13a
    for text in {t for pair in ALL_PAIRS for t in pair}:
        assert tokenize_13a(text) == preprocess(text).split(), repr(text)


def test_tokenizer_examples():
    assert tokenize_13a("It costs $20.00.") == ["It", "costs", "$", "20.00", "."]
    assert tokenize_13a("1,000 e-mails, 2-3 days") == ["1,000", "e-mails", ",", "2", "-", "3", "days"]
    assert tokenize_13a("don't") == ["don't"]
    assert tokenize_13a("") == []


def test_sentence_bleu_single_reference():
    for cand, ref in ALL_PAIRS:
        expected = sacrebleu.sentence_bleu(cand, [ref]).score
        assert sentence_bleu(cand, ref) == pytest.approx(expected, abs=BLEU_TOL), (cand, ref)
        assert sentence_bleu(cand, [ref]) == pytest.approx(expected, abs=BLEU_TOL)


def test_sentence_bleu_two_references():
    # second reference: the reference of the next pair (a different length and vocabulary)
    refs2 = [r for _, r in REAL_PAIRS[1:]] + [REAL_PAIRS[0][1]]
    for (cand, ref), ref2 in zip(REAL_PAIRS, refs2):
        refs = [ref, ref2]
        expected = sacrebleu.sentence_bleu(cand, refs).score
        assert sentence_bleu(cand, refs) == pytest.approx(expected, abs=BLEU_TOL), (cand, refs)


def test_closest_reference_length_ties_go_to_the_shorter_reference():
    cand = "a b c d e"                      # 5 tokens
    refs = ["a b c d", "a b c d e f"]       # 4 and 6 tokens: both at distance 1
    details = bleu_details(cand, refs)
    assert details.ref_len == 4 and details.bp == 1.0
    for order in (refs, refs[::-1]):
        assert sentence_bleu(cand, order) == pytest.approx(sacrebleu.sentence_bleu(cand, order).score, abs=BLEU_TOL)


def test_bleu_details_match_sacrebleu_internals():
    cand, ref = "The cat sat on the mat today.", "The cat is on the mat."
    mine, theirs = bleu_details(cand, ref), sacrebleu.sentence_bleu(cand, [ref])
    assert mine.matches == theirs.counts and mine.totals == theirs.totals
    assert (mine.cand_len, mine.ref_len) == (theirs.sys_len, theirs.ref_len)
    assert mine.bp == pytest.approx(theirs.bp)
    assert [100 * p for p in mine.precisions] == pytest.approx(theirs.precisions[:mine.order])
    assert mine.score == pytest.approx(theirs.score, abs=BLEU_TOL)


def test_effective_order_short_candidate():
    # 2 tokens: no 3-grams or 4-grams, so the geometric mean uses n = 1, 2 only
    details = bleu_details("the cat", "the cat")
    assert details.order == 2 and details.score == pytest.approx(100.0)
    assert corpus_bleu(["the cat"], ["the cat"]) == 0.0 == sacrebleu.corpus_bleu(["the cat"], [["the cat"]]).score


def test_corpus_bleu_single_reference():
    cands, refs = zip(*REAL_PAIRS)
    expected = sacrebleu.corpus_bleu(list(cands), [list(refs)]).score
    assert corpus_bleu(list(cands), list(refs)) == pytest.approx(expected, abs=BLEU_TOL)
    assert corpus_bleu(list(cands), [[r] for r in refs]) == pytest.approx(expected, abs=BLEU_TOL)


def test_corpus_bleu_per_language_pair():
    for lp in sorted({row["lp"] for row in WMT}):
        rows = [row for row in WMT if row["lp"] == lp]
        cands, refs = [r["mt"] for r in rows], [r["ref"] for r in rows]
        expected = sacrebleu.corpus_bleu(cands, [refs]).score
        assert corpus_bleu(cands, refs) == pytest.approx(expected, abs=BLEU_TOL), lp


def test_corpus_bleu_two_references_and_edge_cases():
    cands = [c for c, _ in EDGE_PAIRS[1:]] + [c for c, _ in REAL_PAIRS[:50]]
    stream_a = [r for _, r in EDGE_PAIRS[1:]] + [r for _, r in REAL_PAIRS[:50]]
    stream_b = stream_a[1:] + stream_a[:1]
    expected = sacrebleu.corpus_bleu(cands, [stream_a, stream_b]).score
    per_candidate = [list(refs) for refs in zip(stream_a, stream_b)]
    assert corpus_bleu(cands, per_candidate) == pytest.approx(expected, abs=BLEU_TOL)


def test_corpus_bleu_rejects_misaligned_input():
    with pytest.raises(ValueError):
        corpus_bleu(["a", "b"], ["a"])


@pytest.mark.parametrize("call, message", [
    (lambda: sentence_bleu(None, "the cat"), "candidate must be a string, got NoneType"),
    (lambda: sentence_bleu(3.5, ["the cat"]), "candidate must be a string, got float"),
    (lambda: sentence_bleu("the cat", None), "references must be a string or a list of strings, got NoneType"),
    (lambda: sentence_bleu("the cat", ["the cat", None]), "each of references must be a string, got NoneType"),
    (lambda: bleu_details(["the", "cat"], "the cat"), "candidate must be a string, got list"),
    (lambda: corpus_bleu("the cat", "the cat"), "candidates must be a list .*wrap a single sentence"),
    (lambda: corpus_bleu(["the cat"], "the cat"), "references must be a list"),
    (lambda: corpus_bleu(["the cat", None], ["a", "b"]), r"candidates\[1\] must be a string, got NoneType"),
    (lambda: corpus_bleu(["the cat"], [7]), r"references\[0\] must be a string or a list of strings, got int"),
    (lambda: rouge_n(None, "the cat", 1), "candidate must be a string, got NoneType"),
    (lambda: rouge_n("the cat", b"the cat", 2), "reference must be a string, got bytes"),
    (lambda: rouge_l(float("nan"), "the cat"), "candidate must be a string, got float"),
    (lambda: rouge_l("the cat", None), "reference must be a string, got NoneType"),
    (lambda: rouge_s(["the", "cat"], "the cat"), "candidate must be a string, got list"),
    (lambda: rouge.tokenize(None), "text must be a string, got NoneType"),
])
def test_bad_input_is_a_clear_type_error(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_bad_sizes_are_clear_value_errors():
    with pytest.raises(ValueError, match="at least one reference"):
        sentence_bleu("the cat", [])
    with pytest.raises(ValueError, match="max_n must be a positive integer"):
        sentence_bleu("the cat", "the cat", max_n=0)
    with pytest.raises(ValueError, match="n must be a positive integer"):
        rouge_n("the cat", "the cat", 1.5)


def test_sequences_other_than_lists_are_accepted():
    import pandas as pd

    cands, refs = [c for c, _ in REAL_PAIRS[:20]], [r for _, r in REAL_PAIRS[:20]]
    assert corpus_bleu(pd.Series(cands), tuple(refs)) == corpus_bleu(cands, refs)
    assert sentence_bleu(cands[0], (refs[0],)) == sentence_bleu(cands[0], refs[0])


def test_bleu_building_blocks():
    # Papineni et al. (2002): the clipped unigram precision is 2/7, not 7/7
    cand, ref = "the the the the the the the".split(), "the cat is on the mat".split()
    assert modified_precision(cand, [ref], 1) == (2, 7)
    assert modified_precision(cand, [ref, "the the the cat".split()], 1) == (3, 7)
    assert brevity_penalty(10, 8) == 1.0
    assert brevity_penalty(8, 10) == pytest.approx(0.7788007830714049)  # exp(1 - 10/8)
    assert brevity_penalty(0, 5) == 0.0


# ---------------------------------------------------------------------------
# ROUGE
# ---------------------------------------------------------------------------

def test_rouge_matches_rouge_score():
    for cand, ref in ALL_PAIRS:
        expected = SCORER.score(ref, cand)  # rouge-score takes (target, prediction)
        mine = {"rouge1": rouge_n(cand, ref, 1), "rouge2": rouge_n(cand, ref, 2), "rougeL": rouge_l(cand, ref)}
        for key, score in mine.items():
            assert tuple(score) == pytest.approx(tuple(expected[key]), abs=ROUGE_TOL), (key, cand, ref)


def test_rouge_tokenizer_and_score_type():
    assert rouge.tokenize("It costs $20.00, OK?") == ["it", "costs", "20", "00", "ok"]
    score = rouge_n("the cat", "the cat sat", 1)
    assert score.precision == 1.0 and score.recall == pytest.approx(2 / 3)
    assert score._fields == ("precision", "recall", "fmeasure")


def test_lcs_and_rouge_s():
    assert lcs_length("the cat sat".split(), "the black cat sat".split()) == 3
    assert lcs_length([], ["a"]) == 0
    assert lcs_length(list("ABCBDAB"), list("BDCABA")) == 4  # CLRS example
    # skip-bigrams of "a b c": (a,b) (a,c) (b,c); of "a c b": (a,c) (a,b) (c,b) -> 2 of 3 shared
    s = rouge_s("a b c", "a c b")
    assert s.precision == pytest.approx(2 / 3) and s.recall == pytest.approx(2 / 3)
    assert rouge_s("", "a b") == (0.0, 0.0, 0.0)


# ---------------------------------------------------------------------------
# Perplexity
# ---------------------------------------------------------------------------

def test_perplexity_examples():
    confident = [0.99, 0.85, 0.89, 0.99, 0.99, 0.99, 0.99, 0.99]
    unsure = [0.99, 0.65, 0.13, 0.05, 0.21, 0.99, 0.99, 0.99]
    assert round(perplexity(confident), 3) == 1.043
    assert round(perplexity(unsure), 3) == 2.419
    assert perplexity([1.0, 1.0]) == 1.0
    assert perplexity([0.25] * 5) == pytest.approx(4.0)


@pytest.mark.parametrize("probs", [[], [0.5, 0.0], [1.2], [-0.1], [float("nan")]])
def test_perplexity_rejects_bad_input(probs):
    with pytest.raises(ValueError):
        perplexity(probs)


# ---------------------------------------------------------------------------
# Sensitivity: planted bugs must make the comparisons above fail
# ---------------------------------------------------------------------------

def _unclipped_precision(cand_tokens, ref_tokens_list, n):
    """Bug: count every candidate n-gram that occurs in some reference, without clipping."""
    cand_counts = bleu.ngrams(cand_tokens, n)
    ref_grams = set().union(*(bleu.ngrams(r, n) for r in ref_tokens_list))
    matches = sum(count for gram, count in cand_counts.items() if gram in ref_grams)
    return matches, sum(cand_counts.values())


def _bag_of_words_lcs(a, b):
    """Bug: count shared tokens, ignoring their order."""
    return sum((rouge.Counter(a) & rouge.Counter(b)).values())


PLANTED_BUGS = [
    # (module, attribute, buggy replacement, metric, candidate, reference)
    (bleu, "modified_precision", _unclipped_precision, "bleu",
     "the the the the the the the", "the cat is on the mat"),
    (bleu, "brevity_penalty", lambda c, r: 1.0, "bleu",
     "the cat", "the cat is on the mat"),
    (bleu, "tokenize_13a", str.split, "bleu",
     "It costs $20.00.", "It costs $20.00 ."),
    (bleu, "closest_reference_length", lambda c, lens: lens[0], "bleu",
     "a b c d e", ["a b c d e f g h", "a b c d"]),
    (bleu, "smoothed_precisions", lambda m, t: [x / y if x else 1 / (2 * y) for x, y in zip(m, t) if y],
     "bleu",  # smoothing without the growing 2^k: two zero orders below
     "the cat sat on a mat", "the cat is on the mat"),
    (rouge, "lcs_length", _bag_of_words_lcs, "rougeL",
     "mat the on sat cat the", "the cat sat on the mat"),
]


def _reference_value(metric, cand, ref):
    refs = [ref] if isinstance(ref, str) else ref
    if metric == "bleu":
        return sacrebleu.sentence_bleu(cand, refs).score
    return SCORER.score(refs[0], cand)[metric].fmeasure


def _our_value(metric, cand, ref):
    return sentence_bleu(cand, ref) if metric == "bleu" else rouge_l(cand, ref).fmeasure


@pytest.mark.parametrize("module, name, buggy, metric, cand, ref", PLANTED_BUGS,
                         ids=[bug[1] for bug in PLANTED_BUGS])
def test_planted_bug_is_detected(monkeypatch, module, name, buggy, metric, cand, ref):
    expected = _reference_value(metric, cand, ref)
    assert _our_value(metric, cand, ref) == pytest.approx(expected, abs=BLEU_TOL)
    monkeypatch.setattr(module, name, buggy)
    assert _our_value(metric, cand, ref) != pytest.approx(expected, abs=BLEU_TOL)
