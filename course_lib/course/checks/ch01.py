"""Chapter 01's exercises as data (lexical metrics): each compared with course_lib's BLEU, ROUGE and perplexity
(which equal sacrebleu and rouge-score) on cases drawn when the check runs. `HOLIDAY_1_5` (read as
`HOLIDAY_REFERENCE` and `HOLIDAY_CANDIDATES`) and `SYSTEMS_METRIC` are the chapter's data: the published ones
here, others drawn with the grading secret in nbgrader's runs (`hidden_data`)."""
from __future__ import annotations

import math

import numpy as np

from course_lib.lexical.bleu import brevity_penalty, closest_reference_length, modified_precision
from course_lib.lexical.bleu import sentence_bleu, tokenize_13a
from course_lib.lexical.rouge import lcs_length, rouge_n, tokenize

from .exercise import Choice, Exercise, Function, Judge, Mismatch, Slip, Value, checker

PUBLISHED = {
    # 1.5: a pair the chapter never prints: (reference, candidate A, candidate B)
    "HOLIDAY_1_5": ("students enjoy long summer holidays", "Pupils enjoy vacations.",
                    "Students enjoy visiting old castles in spring."),
    # 1.7: six systems' metric scores the chapter never prints (one tie); the student picks the ratings
    "SYSTEMS_METRIC": [0.42, 0.35, 0.51, 0.35, 0.60, 0.28],
}
GAP_TOLERANCE = 5.01e-5  # gap_1_7 may be rounded to 4 decimals (the prompt says so)
KINDS = ("concordant", "discordant", "tied in x", "tied in y", "tied in both")


def _datum(name):
    from .state import grading

    if grading():
        from .grading import hidden

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


def _candidates(holiday) -> dict[str, str]:
    return {"A": holiday[1], "B": holiday[2]}


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


def _close(got, want, tol=1e-9) -> bool:
    return math.isclose(float(got), float(want), rel_tol=tol, abs_tol=tol)


def _number(got, case: str):
    """`got` as a float, or Mismatch naming what it is instead."""
    if isinstance(got, str):
        raise Mismatch(f"{case}: you return text ({got!r}): return a number")
    if isinstance(got, (tuple, list)):
        raise Mismatch(f"{case}: you return {type(got).__name__} {got!r}; return one number")
    try:
        value = float(got)
    except (TypeError, ValueError):
        raise Mismatch(f"{case}: you return {type(got).__name__} {got!r}: return a number") from None
    if math.isnan(value):
        raise Mismatch(f"{case}: you return NaN")
    return value


# ------------------------------------------------------------------ 1.1 clipped n-gram precision

# (candidate, [references]): none of them is printed in the chapter; the last, for n = 3, is shorter than n
MULTI_REF = [
    ("a a a a a b b b c d", ["a b b", "a a a b c"]),  # every way of clipping gives another number here
    ("the the the the cat cat on the mat", ["the cat is on the mat", "there is a cat on the mat the cat"]),
    ("a cat sat on a mat on a mat", ["a cat sat on the mat", "the cat was on a mat on a rug"]),
    ("it is raining hard today and it is cold", ["today it is raining hard", "it is cold and it is wet today"]),
    ("b a b a b a c", ["a a b c c", "b b a c"]),
    ("consumers prefer imported cars", ["people like foreign cars"]),
    ("cats purr", ["cats purr loudly", "the cats purr"]),
]


def _clipped_cases(rng):
    """Each fixed pair for n = 1, 2, 3, then random token lists over a small vocabulary (repeats are likely)."""
    cases = [(cand.split(), [r.split() for r in refs], n) for n in (1, 2, 3) for cand, refs in MULTI_REF]
    vocab = "a b c the cat mat".split()
    for _ in range(12):
        cand = [rng.choice(vocab) for _ in range(rng.randint(1, 10))]
        refs = [[rng.choice(vocab) for _ in range(rng.randint(1, 10))] for _ in range(rng.randint(1, 3))]
        cases.append((cand, refs, rng.randint(1, 3)))
    return cases


def _clipped(cand_tokens, refs_tokens, n):
    """The clipped precision; 0.0 for a candidate shorter than n (it has no n-grams)."""
    matches, total = modified_precision(cand_tokens, refs_tokens, n)
    return matches / total if total else 0.0


def _grams(tokens, n):
    """A Counter of the n-gram tuples (not course_lib's `ngrams`: the slips are run as students' answers, where
    it is forbidden)."""
    from collections import Counter

    return Counter(zip(*(tokens[k:] for k in range(n))))


def _clipped_at(limit):
    """A clipped precision whose clip `limit(gram, ref_counts)` is some other number than the largest count."""
    def answer(cand_tokens, refs_tokens, n):
        cand, refs = _grams(cand_tokens, n), [_grams(r, n) for r in refs_tokens]
        total = sum(cand.values())
        return sum(min(k, limit(g, refs)) for g, k in cand.items()) / total if total else 0.0
    return answer


def _unclipped(cand_tokens, refs_tokens, n):
    cand, refs = _grams(cand_tokens, n), [_grams(r, n) for r in refs_tokens]
    total = sum(cand.values())
    return sum(k for g, k in cand.items() if any(r[g] for r in refs)) / total if total else 0.0


def _distinct(cand_tokens, refs_tokens, n):
    cand, refs = _grams(cand_tokens, n), [_grams(r, n) for r in refs_tokens]
    return sum(1 for g in cand if any(r[g] for r in refs)) / len(cand) if cand else 0.0


def _no_guard(cand_tokens, refs_tokens, n):
    cand, refs = _grams(cand_tokens, n), [_grams(r, n) for r in refs_tokens]
    return sum(min(k, max(r[g] for r in refs)) for g, k in cand.items()) / sum(cand.values())  # 0 n-grams: 1/0


def _same_precision(got, want, args):
    cand, refs, n = args
    case = f"n={n}, {' '.join(cand)!r} against {[' '.join(r) for r in refs]}"
    if isinstance(got, (tuple, list)):
        raise Mismatch(f"{case}: you return {type(got).__name__} {got!r}; return one number, the precision (the "
                       "clipped matches divided by the candidate's n-grams)")
    value = _number(got, case)
    if not _close(value, want):
        raise Mismatch(f"{case}: you return {value:.4f}, expected {want:.4f}")


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

# (c, reference lengths): a tie first lies between two references of which neither is the shortest or the longest
BP_CASES = [(10, [8, 12, 30]), (7, [10, 4]), (5, [3, 7, 9]), (9, [7, 12]), (8, [6, 10, 2]), (7, [9, 11, 20]),
            (12, [11, 13, 40]), (4, [12, 30, 9]), (1, [2]), (20, [21, 19]), (9, [5, 10]), (11, [3, 12]),
            (6, [2, 7, 30])]


def _bp_cases(rng):
    cases = [(c, list(lengths)) for c, lengths in BP_CASES]
    for _ in range(10):
        cases.append((rng.randint(1, 25), [rng.randint(1, 30) for _ in range(rng.randint(1, 4))]))
    return cases


def _bp(c, ref_lengths):
    return brevity_penalty(c, closest_reference_length(c, ref_lengths))


def _closest(c, lengths):
    return min(lengths, key=lambda r: (abs(c - r), r))


def _bp_swapped(c, r) -> float:
    return 1.0 if c >= r else math.exp(1 - c / r)


def _same_bp(got, want, args):
    c, lengths = args
    case = f"multi_ref_bp(c={c}, ref_lengths={lengths})"
    value = _number(got, case)
    if not _close(value, want):
        raise Mismatch(f"{case} = {value:.4f}, expected {want:.4f}")


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

# token lists never printed in the chapter; the first defeats a greedy first-match walk, the second a common
# substring (the longest common subsequence skips tokens there), then repeats and no common token at all
LCS_CASES = [("x a b c".split(), "a b c x".split()),
             ("the old man quickly sold his small red car".split(), "the man sold his car".split()),
             ("the police arrested the thief".split(), "the thief arrested the police".split()),
             ("a b a b a b c".split(), "a a b c c".split()),
             ("cats purr".split(), "dogs bark loudly".split())]


def _lcs_cases(rng):
    cases = [(list(c), list(r)) for c, r in LCS_CASES]
    vocab = "a b c d e".split()
    for _ in range(8):
        cases.append(([rng.choice(vocab) for _ in range(rng.randint(1, 9))],
                      [rng.choice(vocab) for _ in range(rng.randint(1, 9))]))
    return cases


def _table(cand, ref):
    table = [[0] * (len(ref) + 1) for _ in range(len(cand) + 1)]
    for i in range(1, len(cand) + 1):
        for j in range(1, len(ref) + 1):
            table[i][j] = (table[i - 1][j - 1] + 1 if cand[i - 1] == ref[j - 1]
                           else max(table[i - 1][j], table[i][j - 1]))
    return table


def _lcs_backwards(cand, ref):
    """One longest common subsequence, last token first (as a walk back from the table's last cell finds it)."""
    L, found, i, j = _table(cand, ref), [], len(cand), len(ref)
    while i and j:
        if cand[i - 1] == ref[j - 1]:
            found.append(cand[i - 1])
            i, j = i - 1, j - 1
        elif L[i - 1][j] >= L[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return found


def _lcs(cand, ref):
    return _lcs_backwards(cand, ref)[::-1]


def _greedy(cand, ref):
    """The first match met: each candidate token taken at its first occurrence after the last one taken."""
    found, start = [], 0
    for token in cand:
        if token in ref[start:]:
            start = ref.index(token, start) + 1
            found.append(token)
    return found


def _substring(cand, ref):
    best = []
    for i in range(len(cand)):
        for j in range(len(ref)):
            k = 0
            while i + k < len(cand) and j + k < len(ref) and cand[i + k] == ref[j + k]:
                k += 1
            best = cand[i:i + k] if k > len(best) else best
    return best


def _is_subsequence(seq, of) -> bool:
    it = iter(of)
    return all(any(token == other for other in it) for token in seq)


def _is_run(seq, of) -> bool:
    """`seq` occurs in `of` as neighbouring tokens."""
    return any(list(of[k:k + len(seq)]) == list(seq) for k in range(len(of) - len(seq) + 1))


def _same_lcs(got, want, args):
    """Any longest common subsequence passes; `want` is one (a slip's output when a slip is tried)."""
    cand, ref = args
    case = f"for {cand} and {ref}"
    if isinstance(got, str):
        raise Mismatch(f"{case} you return text ({got!r}): return the list of tokens")
    if not isinstance(got, (list, tuple)):
        raise Mismatch(f"{case} you return {type(got).__name__} {got!r}: return the tokens themselves, a list (the "
                       "length is lcs_length's job)")
    got = list(got)
    if got == list(want):
        return
    n = lcs_length(cand, ref)
    if len(got) == n > 1 and _is_subsequence(got[::-1], cand) and _is_subsequence(got[::-1], ref) \
            and not _is_subsequence(got, cand):
        raise Mismatch(f"{case} you return {got}: the right tokens, last first. A walk back from the table's last "
                       "cell collects them in reverse: turn the list round")
    if not _is_subsequence(got, cand):
        raise Mismatch(f"{case} you return {got}, which is not a subsequence of the candidate: its tokens in the "
                       "candidate's order, each used once")
    if not _is_subsequence(got, ref):
        raise Mismatch(f"{case} you return {got}, which is not in the reference's order: a common subsequence keeps "
                       "the order of both texts")
    if 1 < len(got) < n and _is_run(got, cand) and _is_run(got, ref):
        raise Mismatch(f"{case} you return {got}, neighbouring tokens in both (a common substring); a subsequence "
                       f"may skip tokens, and the longest here has {n}")
    if len(got) != n:
        raise Mismatch(f"{case} you return {got}, a common subsequence of {len(got)} tokens, but the longest has "
                       f"{n}: taking the first match you meet can block a longer chain")


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

def _corpus_cases(rng):
    """(texts, n_words) cases: texts are lists of token probabilities; a text has at least as many tokens as
    words (a tokenizer cuts words into pieces), and the texts differ in length."""
    texts = [[0.99, 0.85, 0.89, 0.99, 0.99, 0.99, 0.99, 0.99], [0.99, 0.65, 0.13, 0.05, 0.21, 0.99, 0.99, 0.99]]
    cases = [(texts, [6, 5]), ([[0.5], [0.25] * 9], [1, 4]), ([[0.9] * 3, [0.1] * 2, [0.6] * 10], [2, 2, 7]),
             ([[1.0, 1.0], [0.2]], [1, 1])]
    for _ in range(3):
        lengths = [rng.randint(1, 18) for _ in range(rng.randint(2, 4))]
        cases.append(([[round(rng.uniform(0.01, 1.0), 3) for _ in range(k)] for k in lengths],
                      [rng.randint(1, k) for k in lengths]))
    return cases


def _word_perplexity(texts, n_words):
    return math.exp(-sum(math.log(p) for text in texts for p in text) / sum(n_words))


def _logs(texts):
    return [[math.log(p) for p in text] for text in texts]


def _same_perplexity(got, want, args):
    texts, n_words = args
    case = f"for {len(texts)} texts of {[len(t) for t in texts]} tokens and {list(n_words)} words"
    value = _number(got, case)
    if not _close(value, want):
        raise Mismatch(f"{case} you return {value:.4f}, expected {want:.4f}")


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

def _preferences(holiday, ties: bool = False) -> dict[str, str]:
    """The label ("A" or "B") each metric prefers: ROUGE-1 F1 and sentence BLEU ({} with ties=True where one
    metric scores the two alike)."""
    reference, cands = holiday[0], _candidates(holiday)
    r1 = {k: rouge_n(c, reference, 1).fmeasure for k, c in cands.items()}
    bleu = {k: sentence_bleu(c, reference) for k, c in cands.items()}
    if ties and (math.isclose(r1["A"], r1["B"]) or math.isclose(bleu["A"], bleu["B"])):
        return {}
    return {"ROUGE-1": max(r1, key=r1.get), "BLEU": max(bleu, key=bleu.get)}


def _rouge_only_matches(holiday) -> set[str]:
    """Reference words that ROUGE-1 matches in some candidate but BLEU's 13a tokens do not."""
    reference = holiday[0]
    ref13 = set(tokenize_13a(reference))
    words = set()
    for cand in _candidates(holiday).values():
        rouge_shared = set(tokenize(cand)) & set(tokenize(reference))
        words |= {w for w in rouge_shared if w not in set(tokenize_13a(cand)) or w not in ref13}
    return words


def _pick(metric, name):
    def compare(got, want, holiday):
        said = str(got).strip().upper()
        if said not in ("A", "B"):
            raise Mismatch(f"answer {name} with \"A\" or \"B\"")
        if said != want:
            raise Mismatch(f"{metric} prefers the other candidate")
    return compare


def _word(holiday) -> str:
    return sorted(w for w in _rouge_only_matches(holiday) if w in tokenize_13a(holiday[0]))[0]


def _same_word(got, want, holiday):
    if not isinstance(got, str):
        raise Mismatch(f"set word_1_5 to a word, as text, not {type(got).__name__} {got!r}")
    if got.strip().lower() not in _rouge_only_matches(holiday):
        raise Mismatch("word_1_5 is not a word that ROUGE-1 matches and BLEU misses: compare the two tokenizations "
                       "of each text")
    if got.strip() not in tokenize_13a(holiday[0]):
        raise Mismatch(f"{got.strip()!r} is a candidate's spelling: give the word as the reference writes it. That "
                       "the two spellings differ is the point: which metric lowercases, which compares them as "
                       "written?")


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

def _pair_counts(x, y) -> tuple[int, int, int, int, int]:
    """Over all pairs i < j: (concordant, discordant, tied in x only, tied in y only, tied in both)."""
    c = d = tx = ty = txy = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                txy += 1
            elif dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                c += 1
            else:
                d += 1
    return c, d, tx, ty, txy


def _tied_pairs(x) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, with x[i] == x[j]."""
    return [(i, j) for i in range(len(x)) for j in range(i + 1, len(x)) if x[i] == x[j]]


def colleague_tau_b(x, y):
    """A colleague's fast Kendall tau-b (numpy, no loop over pairs). It has one bug, planted for exercise 1.7."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    i, j = np.triu_indices(len(x), k=1)  # every pair i < j once
    dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    c, d = np.sum(dx * dy > 0), np.sum(dx * dy < 0)
    n0 = len(i)
    n_x = np.sum((dx == 0) & (dy != 0))  # pairs tied in x
    n_y = np.sum((dy == 0) & (dx != 0))  # pairs tied in y
    return (c - d) / np.sqrt((n0 - n_x) * (n0 - n_y))


def _taus(metric, ratings) -> tuple[float, float]:
    """(the right tau-b, the colleague's) of `ratings` against `metric`."""
    from scipy.stats import kendalltau

    y = [float(r) for r in ratings]
    return float(kendalltau(metric, y).statistic), float(colleague_tau_b(metric, y))


def _judge_ratings(ratings, metric):
    n = len(metric)
    if not isinstance(ratings, (list, tuple)) or len(ratings) != n:
        raise Mismatch(f"ratings_1_7 must be a list of {n} numbers, one per system, in the systems' order")
    texts = [r for r in ratings if isinstance(r, str)]
    if texts:
        raise Mismatch(f"you gave text ({texts[0]!r}), not a number: give ratings such as 3, not '3'")
    try:
        values = [float(r) for r in ratings]
    except (TypeError, ValueError):
        raise Mismatch(f"ratings_1_7 must hold numbers, not {[type(r).__name__ for r in ratings]}") from None
    if any(math.isnan(v) for v in values):
        raise Mismatch("a rating is NaN: people gave every system a number")
    outside = [r for r, v in zip(ratings, values) if not 1 <= v <= 5]
    if outside:
        raise Mismatch(f"a rating of {outside[0]!r} is off the scale: people rate from 1 to 5")
    right, theirs = _taus(metric, values)
    if math.isnan(right):
        raise Mismatch("your ratings are all equal: people ordered no pair, so tau-b is not defined (0 / 0). Rate "
                       "the systems differently")
    if _close(right, theirs):
        c, d, _, _, both = _pair_counts(metric, values)
        if both and c == d:
            raise Mismatch(f"your ratings tie {both} pair(s) on both sides, but C = D = {c}: the numerator C - D is "
                           "0, so every denominator gives 0. Make C differ from D")
        raise Mismatch(f"on your ratings the colleague's tau-b is right ({theirs:.4f} = scipy's). Sort the 15 pairs "
                       "into section 6's kinds and compare the colleague's n_x and n_y with the definition's: the "
                       "kind it counts wrong must occur in your ratings")


def _judge_gap(gap, metric, ratings):
    if isinstance(gap, str):
        raise Mismatch(f"you gave text ({gap!r}), not a number: set gap_1_7 to a number")
    try:
        gap = float(gap)
    except (TypeError, ValueError):
        raise Mismatch(f"set gap_1_7 to a number, not {type(gap).__name__}") from None
    right, theirs = _taus(metric, ratings)
    if math.isclose(gap, right - theirs, abs_tol=GAP_TOLERANCE, rel_tol=0):
        raise Mismatch("gap_1_7 has the wrong sign: the colleague's tau-b minus the right one")
    if math.isclose(gap, theirs - right, abs_tol=GAP_TOLERANCE, rel_tol=0):
        return
    if math.isclose(gap, theirs - right, abs_tol=0.005, rel_tol=0) and math.isclose(gap, round(gap, 3), abs_tol=1e-12):
        raise Mismatch(f"gap_1_7 = {gap} is the gap rounded too coarsely: give it to 4 decimals or more")
    raise Mismatch("gap_1_7 is not the colleague's tau-b minus the right (scipy's) tau-b, both on ch01.SYSTEMS_METRIC "
                   "and your ratings")


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
