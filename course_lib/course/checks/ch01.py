"""Chapter 01's exercises as data (lexical metrics): each compared with course_lib's BLEU, ROUGE and perplexity
(which equal sacrebleu and rouge-score) on cases drawn when the check runs. `HOLIDAY_1_5` (read as
`HOLIDAY_REFERENCE` and `HOLIDAY_CANDIDATES`) and `SYSTEMS_METRIC` are the chapter's data: the published ones
here, others drawn with the grading secret in nbgrader's runs (`hidden_data`). The cases and comparisons of 1.1-1.4
are in ch01_cases, the judges of 1.5 and 1.7 (and the colleague's tau-b) in ch01_values; the slips and their hints
are here, with each exercise."""
from __future__ import annotations

import math

import numpy as np

from course_lib.lexical.bleu import brevity_penalty

from .ch01_cases import (MULTI_REF, _bp, _bp_cases, _bp_swapped, _clipped, _clipped_at, _clipped_cases,  # noqa: F401
                         _closest, _corpus_cases, _distinct, _greedy, _lcs, _lcs_backwards, _lcs_cases, _logs,
                         _no_guard, _same_bp, _same_lcs, _same_perplexity, _same_precision, _substring, _unclipped,
                         _word_perplexity)
from .ch01_values import (GAP_TOLERANCE, _candidates, _judge_gap, _judge_ratings, _pick,  # noqa: F401
                          _preferences, _rouge_only_matches, _same_word, _tied_pairs, _word, colleague_tau_b)
from .assemble import checker
from .exercise import Choice, Exercise, Function, Judge, Slip, Value

PUBLISHED = {
    # 1.5: a pair the chapter never prints: (reference, candidate A, candidate B)
    "HOLIDAY_1_5": ("students enjoy long summer holidays", "Pupils enjoy vacations.",
                    "Students enjoy visiting old castles in spring."),
    # 1.7: six systems' metric scores the chapter never prints (one tie); the student picks the ratings
    "SYSTEMS_METRIC": [0.42, 0.35, 0.51, 0.35, 0.60, 0.28],
}
KINDS = ("concordant", "discordant", "tied in x", "tied in y", "tied in both")


def _datum(name):
    from .state import grading

    if grading():
        from .recording import hidden

        return hidden(name)
    return PUBLISHED[name]


def __getattr__(name):  # the chapter's data, read when asked (never drawn at import)
    if name == "HOLIDAY_REFERENCE":
        return _datum("HOLIDAY_1_5")[0]
    if name == "HOLIDAY_CANDIDATES":
        return _candidates(_datum("HOLIDAY_1_5"))
    if name in PUBLISHED:
        return list(_datum(name)) if name == "SYSTEMS_METRIC" else _datum(name)
    raise AttributeError(name)


def hidden_data(rng) -> dict:
    """Other data of the same kind, for grading (answers copied from the solutions do not pass, the right code
    does). 1.5: a short WMT16 reference (lowercased, no final mark, as the published one) and two candidates: that
    row's system output and the reference's first words, capitalised as a sentence starts (so ROUGE-1, which
    lowercases, matches a word that BLEU's 13a tokens miss); drawn again while a published answer word is among
    the answers or a metric ties. 1.7: six metric scores with one tie, on another pair of systems than the
    published one: copied ratings then rarely expose the bug, and where they do, a copied gap does not match."""
    from course_lib.evaluation.datasets import wmt16

    rows = [r for r in wmt16().to_dict("records") if 5 <= len(r["ref"].split()) <= 14 and len(r["mt"]) > 0
            and r["mt"] != r["ref"]]
    published_words = _rouge_only_matches(PUBLISHED["HOLIDAY_1_5"])
    while True:
        row = rng.choice(rows)
        words = row["ref"].rstrip(".!?").split()
        reference = " ".join(words).lower()
        short = " ".join(words[:max(2, len(words) // 2)]).lower().capitalize() + "."
        holiday = (reference, row["mt"], short)
        found = _rouge_only_matches(holiday)
        if found and not found & published_words and _preferences(holiday, ties=True):
            break
    published_ties = _tied_pairs(PUBLISHED["SYSTEMS_METRIC"])
    while True:
        metric = [round(rng.uniform(0.2, 0.7), 2) for _ in range(6)]
        a, b = sorted(rng.sample(range(6), 2))
        metric[b] = metric[a]  # one tie in the metric, on another pair than the published one
        if _tied_pairs(metric) == [(a, b)] != published_ties:
            break
    return {"HOLIDAY_1_5": holiday, "SYSTEMS_METRIC": metric}


# ------------------------------------------------------------------ 1.1 clipped n-gram precision

EX_1_1 = Exercise(
    "1.1", chapter="01",
    idea="count the candidate's n-grams (tuples of n neighbouring tokens); clip each one at the largest count it "
         "has in any *one* reference (not the sum over references); divide by the number of candidate n-grams.",
    answers=[Function("clipped_precision", _clipped_cases, _clipped, _same_precision, forbid=(
        "course_lib.lexical.bleu.modified_precision", "course_lib.lexical.bleu.max_reference_counts",
        "course_lib.lexical.bleu.ngrams", "course_lib.lexical.bleu.bleu_details",
        "course_lib.lexical.bleu.sentence_stats"), slips=[
        Slip("no n-grams", _no_guard,
             "the candidate has fewer than n tokens, so no n-grams; you divide by their number, 0. Its precision "
             "is 0.0"),
        Slip("summed", _clipped_at(lambda g, refs: sum(r[g] for r in refs)),
             "you clipped each n-gram at its count summed over the references: clip at the largest count it has "
             "in any ONE reference"),
        Slip("unclipped", _unclipped,
             "you did not clip: a candidate n-gram counts at most as often as it occurs in one reference (\"the the "
             "the the\" against one \"the\" is one match, not four)"),
        Slip("smallest", _clipped_at(lambda g, refs: min(r[g] for r in refs)),
             "you clipped at the smallest count among the references: take the largest"),
        Slip("first reference", _clipped_at(lambda g, refs: refs[0][g]),
             "you compared with the first reference only: every reference counts, each n-gram clipped at its "
             "largest count in any one of them"),
        Slip("distinct", _distinct,
             "you counted each distinct n-gram once: count every occurrence (a Counter), clipped, and divide by "
             "all the candidate's n-grams"),
        Slip("unigrams", lambda c, rs, n: _clipped_at(lambda g, refs: max(r[g] for r in refs))(c, rs, 1),
             "your function ignores n: an n-gram is a tuple of n neighbouring tokens")])],
    after="The library's version: `modified_precision` (with `ngrams` and `max_reference_counts`) in "
          "course_lib.lexical.bleu.")


# ------------------------------------------------------------------ 1.2 the brevity penalty, several references

EX_1_2 = Exercise(
    "1.2", chapter="01",
    idea="with several references BLEU compares the candidate with ONE reference length: the one closest to c (on "
         "a tie, the shorter), not the shortest, the longest or the mean; then BP = 1 if c >= r, else exp(1 - r/c).",
    answers=[Function("multi_ref_bp", _bp_cases, _bp, _same_bp, forbid=(
        "course_lib.lexical.bleu.closest_reference_length", "course_lib.lexical.bleu.bleu_details",
        "course_lib.lexical.bleu.sentence_stats", "course_lib.lexical.bleu.sentence_bleu"), slips=[
        Slip("shortest", lambda c, lengths: brevity_penalty(c, min(lengths)),
             "you took the shortest reference; BLEU takes the one closest to c"),
        Slip("longest", lambda c, lengths: brevity_penalty(c, max(lengths)),
             "you took the longest reference; BLEU takes the one closest to c"),
        Slip("mean", lambda c, lengths: brevity_penalty(c, sum(lengths) / len(lengths)),
             "you averaged the reference lengths; BLEU takes ONE length, the one closest to c"),
        Slip("tie longer", lambda c, lengths: brevity_penalty(c, min(lengths, key=lambda r: (abs(c - r), -r))),
             "on a tie you took the longer reference; BLEU takes the shorter"),
        Slip("no cap", lambda c, lengths: math.exp(1 - _closest(c, lengths) / c),
             "your BP goes above 1: r and c are swapped in exp(1 - r/c), or the penalty applies to long candidates "
             "too"),
        Slip("swapped", lambda c, lengths: _bp_swapped(c, _closest(c, lengths)),
             "your BP goes above 1: r and c are swapped in exp(1 - r/c)")])],
    after="The library's version: `closest_reference_length` and `brevity_penalty` in course_lib.lexical.bleu.")


# ------------------------------------------------------------------ 1.3 which words ROUGE-L counts

EX_1_3 = Exercise(
    "1.3", chapter="01",
    idea="the table that lcs_length fills holds, in L[i][j], the LCS length of the first i candidate and the first "
         "j reference tokens: it knows which choice keeps the longest chain. Read the tokens back out of it, from "
         "its last cell.",
    answers=[Function("lcs_words", _lcs_cases, _lcs, _same_lcs, forbid=(
        "rouge_score.rouge_scorer.lcs_ind", "rouge_score.rouge_scorer._backtrack_norec"), slips=[
        Slip("reversed", _lcs_backwards,
             "you return the right tokens, last first. A walk back from the table's last cell collects them in "
             "reverse: turn the list round"),
        Slip("in the reference", lambda cand, ref: [w for w in cand if w in ref],
             "you kept every candidate token that occurs in the reference: a common subsequence keeps the "
             "reference's order too, and uses each reference token once"),
        Slip("first match", _greedy,
             "you took the first match you met, which can block a longer chain: the table knows which choice "
             "keeps the longest one"),
        Slip("substring", _substring,
             "you return neighbouring tokens in both (a common substring); a subsequence may skip tokens")])],
    after="rouge-score reads the tokens out of the same table: `rouge_scorer.lcs_ind` (shown below).")


# ------------------------------------------------------------------ 1.4 perplexity per word, over a corpus

EX_1_4 = Exercise(
    "1.4", chapter="01",
    idea="perplexity is exp(minus the mean log-probability), and the mean is a total divided by a count. Per word, "
         "the count is the words, which every tokenizer shares.",
    answers=[Function("word_perplexity", _corpus_cases, _word_perplexity, _same_perplexity,
                      forbid=("course_lib.lexical.perplexity",), slips=[
        Slip("tokens", lambda texts, n_words: math.exp(-sum(map(sum, _logs(texts))) / sum(map(len, texts))),
             "you divided by the number of tokens: that is the perplexity per token, the number that differs "
             "between tokenizers. Keep the same total of log-probabilities and divide by the words"),
        Slip("mean of texts", lambda texts, n_words: float(np.mean(
            [math.exp(-sum(lg) / w) for lg, w in zip(_logs(texts), n_words)])),
             "you averaged the texts' perplexities, so a text of 1 word weighs as much as one of 100. A corpus is "
             "one long text: one total over every token of every text, divided once"),
        Slip("geometric mean of texts", lambda texts, n_words: math.exp(float(np.mean(
            [-sum(lg) / w for lg, w in zip(_logs(texts), n_words)]))),
             "you averaged per-text values, so a text of 1 word weighs as much as one of 100. A corpus is one long "
             "text: one total over every token of every text, divided once"),
        Slip("no minus", lambda texts, n_words: math.exp(sum(map(sum, _logs(texts))) / sum(n_words)),
             "a perplexity is at least 1 (the probabilities are at most 1, so their logs are negative): you left "
             "out the minus sign")])],
    after="The library's version (per token, of one text): `perplexity` in course_lib.lexical.perplexity.")


# ------------------------------------------------------------------ 1.5 which candidate each metric prefers

EX_1_5 = Exercise(
    "1.5", chapter="01",
    idea="compute both metrics (rouge_n, sentence_bleu); for the word, tokenize each text the way each metric does "
         "(rouge.tokenize and tokenize_13a) and compare.",
    answers=[Value("rouge_pick_1_5", "HOLIDAY_1_5", lambda h: _preferences(h)["ROUGE-1"],
                   _pick("ROUGE-1 F1", "rouge_pick_1_5")),
             Value("bleu_pick_1_5", "HOLIDAY_1_5", lambda h: _preferences(h)["BLEU"],
                   _pick("sentence BLEU", "bleu_pick_1_5")),
             Value("word_1_5", "HOLIDAY_1_5", _word, _same_word)],
    after="Compute, don't type: grading runs your cell on another reference and other candidates.")


# ------------------------------------------------------------------ 1.7 find the bug in a colleague's tau-b

_COUNTED_RIGHT = ("pairs {kind!r} are counted as the definition counts them: read the lines that compute n_x and "
                  "n_y, and ask which pairs belong in each")

EX_1_7 = Exercise(
    "1.7", chapter="01",
    idea="tau-b's denominator counts, on each side, the pairs that side could order (n0 minus the pairs tied on "
         "that side). A bug in a count shows only on data that contains the pairs it miscounts, and only when "
         "C - D is not 0.",
    answers=[Judge("ratings_1_7", "SYSTEMS_METRIC", _judge_ratings),
             Judge("gap_1_7", "SYSTEMS_METRIC", _judge_gap, uses=("ratings_1_7",)),
             Choice("kind_1_7", "tied in both",
                    wrong={kind: _COUNTED_RIGHT.format(kind=kind) for kind in KINDS[:-1]},
                    aliases={"both": "tied in both", "tied_in_both": "tied in both", "tied_in_x": "tied in x",
                             "tied_in_y": "tied in y", "tied  in both": "tied in both"})],
    after="Compute, don't type: grading runs your cell on other metric scores.")


EXERCISES = {ex.id: ex for ex in (EX_1_1, EX_1_2, EX_1_3, EX_1_4, EX_1_5, EX_1_7)}


def _data():
    return {name: _datum(name) for name in PUBLISHED}


check_1_1, check_1_2, check_1_3, check_1_4, check_1_5, check_1_7 = (checker(ex, _data) for ex in EXERCISES.values())
