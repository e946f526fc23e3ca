"""Checkers for chapter 01 (lexical metrics). Expected values come from course_lib's BLEU, ROUGE and
perplexity (which equal sacrebleu and rouge-score), computed on several cases each time."""
from __future__ import annotations

import math

from course_lib.lexical.bleu import brevity_penalty, closest_reference_length, modified_precision
from course_lib.lexical.bleu import sentence_bleu, tokenize_13a
from course_lib.lexical.rouge import lcs_length, rouge_n, tokenize

from . import close, forbid, grading, hidden_rng, hidden_rows, run
from .ch01_cases import (LCS_CASES, WORD_PERPLEXITY_HINTS, _bp_slip, _corpus_cases, _is_run, _is_subsequence,
                         _pair_counts, _tied_pairs, _without_rouge_score_readout, _word_perplexity_slips,
                         colleague_tau_b)

# (candidate, [references]) for 1.1: none of them is printed in the chapter
MULTI_REF = [
    ("the the the the cat cat on the mat", ["the cat is on the mat", "there is a cat on the mat the cat"]),
    ("a cat sat on a mat on a mat", ["a cat sat on the mat", "the cat was on a mat on a rug"]),
    ("it is raining hard today and it is cold", ["today it is raining hard", "it is cold and it is wet today"]),
    ("b a b a b a c", ["a a b c c", "b b a c"]),
    ("consumers prefer imported cars", ["people like foreign cars"]),
    ("cats purr", ["cats purr loudly", "the cats purr"]),  # for n = 3: shorter than n, no n-grams at all
]


def _clipped(cand_tokens, refs_tokens, n):
    """The clipped precision; 0.0 for a candidate shorter than n (it has no n-grams)."""
    matches, total = modified_precision(cand_tokens, refs_tokens, n)
    return matches / total if total else 0.0


def check_1_1(clipped_precision, hint: int = 1) -> bool:
    """clipped_precision(cand_tokens, refs_tokens, n) -> clipped n-gram precision (float in [0, 1])
    of a candidate token list against a list of reference token lists."""
    clipped_precision = forbid(clipped_precision, "course_lib.lexical.bleu.modified_precision",
                               "course_lib.lexical.bleu.max_reference_counts", "course_lib.lexical.bleu.ngrams",
                               "course_lib.lexical.bleu.bleu_details", "course_lib.lexical.bleu.sentence_stats")

    def test():
        for n in (1, 2, 3):
            for cand, refs in MULTI_REF:
                c, rs = cand.split(), [r.split() for r in refs]
                case = f"n={n}, {cand!r} against {refs}"
                try:
                    got = clipped_precision(c, rs, n)
                except ZeroDivisionError:
                    if len(c) < n:
                        raise AssertionError(f"{case}: the candidate has fewer than n tokens, so no n-grams; you "
                                             "divide by their number, 0. Its precision is 0.0") from None
                    raise
                want = _clipped(c, rs, n)
                assert not isinstance(got, (tuple, list)), (
                    f"{case}: you return {type(got).__name__} {got!r}; return one number, the precision (the "
                    "clipped matches divided by the candidate's n-grams)")
                assert close(got, want), f"{case}: you return {float(got):.4f}, expected {want:.4f}"
    return run("1.1", test, "count the candidate's n-grams (tuples of n neighbouring tokens); clip each one at "
                            "the largest count it has in any *one* reference (not the sum over references); "
                            "divide by the number of candidate n-grams.",
               code="grams = lambda t: Counter(tuple(t[i:i + n]) for i in range(len(t) - n + 1)); "
                    "cand = grams(cand_tokens); best = {g: max(grams(other)[g] for other in refs_tokens) "
                    "for r in refs_tokens for g in grams(r)}; "
                    "return sum(min(k, best.get(g, 0)) for g, k in cand.items()) / max(1, sum(cand.values()))  "
                    "# no n-grams (fewer than n tokens): 0.0", level=hint)


def check_1_2(multi_ref_bp, hint: int = 1) -> bool:
    """multi_ref_bp(c, ref_lengths) -> the brevity penalty of a candidate of c tokens against
    several references: r is the reference length closest to c (a tie: the shorter one)."""
    cases = [(10, [8, 12]), (9, [7, 12]), (8, [6, 10]), (7, [10, 4]), (7, [9, 11, 20]), (5, [3, 7]),
             (12, [11, 13]), (4, [12, 30, 9]), (1, [2]), (20, [21, 19]), (9, [5, 10]), (11, [3, 12]),
             (6, [2, 7, 30])]
    multi_ref_bp = forbid(multi_ref_bp, "course_lib.lexical.bleu.closest_reference_length",
                          "course_lib.lexical.bleu.bleu_details", "course_lib.lexical.bleu.sentence_stats",
                          "course_lib.lexical.bleu.sentence_bleu")

    def test():
        slip = _bp_slip(multi_ref_bp, cases)
        assert slip is None, slip
        for c, lengths in cases:
            want = brevity_penalty(c, closest_reference_length(c, lengths))
            got = multi_ref_bp(c, list(lengths))
            assert close(got, want), f"multi_ref_bp(c={c}, ref_lengths={lengths}) = {float(got):.4f}, " \
                                     f"expected {want:.4f}"
    return run("1.2", test, "with several references BLEU compares the candidate with ONE reference length: the "
                            "one closest to c (on a tie, the shorter), not the shortest, the longest or the mean; "
                            "then BP = 1 if c >= r, else exp(1 - r/c).",
               code="r = min(ref_lengths, key=lambda length: (abs(c - length), length)); "
                    "return 1.0 if c >= r else math.exp(1 - r / c)", level=hint)


def check_1_3(lcs_words, hint: int = 1) -> bool:
    """lcs_words(cand_tokens, ref_tokens) -> one longest common subsequence, a list of tokens."""
    def test():
        for cand, ref in LCS_CASES:
            with _without_rouge_score_readout():
                got = lcs_words(list(cand), list(ref))
            case = f"for {cand} and {ref}"
            assert not isinstance(got, str), f"{case} you return text ({got!r}): return the list of tokens"
            assert isinstance(got, (list, tuple)), (f"{case} you return {type(got).__name__} {got!r}: return the "
                                                    "tokens themselves, a list (the length is lcs_length's job)")
            got, n = list(got), lcs_length(cand, ref)
            if len(got) == n > 1 and _is_subsequence(got[::-1], cand) and _is_subsequence(got[::-1], ref) \
                    and not _is_subsequence(got, cand):
                raise AssertionError(f"{case} you return {got}: the right tokens, last first. A walk back from the "
                                     "table's last cell collects them in reverse: turn the list round")
            assert _is_subsequence(got, cand), (f"{case} you return {got}, which is not a subsequence of the "
                                                "candidate: its tokens in the candidate's order, each used once")
            assert _is_subsequence(got, ref), (f"{case} you return {got}, which is not in the reference's order: a "
                                               "common subsequence keeps the order of both texts")
            if 1 < len(got) < n and _is_run(got, cand) and _is_run(got, ref):
                raise AssertionError(f"{case} you return {got}, neighbouring tokens in both (a common substring); "
                                     f"a subsequence may skip tokens, and the longest here has {n}")
            assert len(got) == n, (f"{case} you return {got}, a common subsequence of {len(got)} tokens, but the "
                                   f"longest has {n}: taking the first match you meet can block a longer chain")
    return run("1.3", test, "the table that lcs_length fills holds, in L[i][j], the LCS length of the first i "
                            "candidate and the first j reference tokens: it knows which choice keeps the longest "
                            "chain. Read the tokens back out of it, from its last cell.",
               code="L = [[lcs_length(cand_tokens[:i], ref_tokens[:j]) for j in range(len(ref_tokens) + 1)] for i "
                    "in range(len(cand_tokens) + 1)]; back = lambda i, j: [] if i == 0 or j == 0 else (back(i - 1, "
                    "j - 1) + [cand_tokens[i - 1]] if cand_tokens[i - 1] == ref_tokens[j - 1] else back(i - 1, j) "
                    "if L[i - 1][j] >= L[i][j - 1] else back(i, j - 1)); return back(len(cand_tokens), "
                    "len(ref_tokens))", level=hint)


def check_1_4(word_perplexity, hint: int = 1) -> bool:
    """word_perplexity(texts, n_words) -> the perplexity per word of a corpus: `texts` a list of texts,
    each the list of the probabilities a model gave its tokens; n_words[k] the number of words of text k."""
    word_perplexity = forbid(word_perplexity, "course_lib.lexical.perplexity")

    def test():
        for texts, n_words in _corpus_cases():
            logs = [math.log(p) for text in texts for p in text]
            want = math.exp(-sum(logs) / sum(n_words))
            got = word_perplexity([list(t) for t in texts], list(n_words))
            case = f"for {len(texts)} texts of {[len(t) for t in texts]} tokens and {list(n_words)} words"
            assert not isinstance(got, str), f"{case} you return text ({got!r}): return a number"
            assert not (isinstance(got, float) and math.isnan(got)), f"{case} you return NaN"
            if close(got, want, 1e-9):
                continue
            for slip, value in _word_perplexity_slips(texts, n_words).items():
                if close(got, value, 1e-9):
                    raise AssertionError(f"{case}: {WORD_PERPLEXITY_HINTS[slip]}")
            raise AssertionError(f"{case} you return {float(got):.4f}, expected {want:.4f}")
    return run("1.4", test, "perplexity is exp(minus the mean log-probability), and the mean is a total divided "
                            "by a count. Per word, the count is the words, which every tokenizer shares.",
               code="logs = [math.log(p) for text in texts for p in text]; "
                    "return math.exp(-sum(logs) / sum(n_words))", level=hint)


# 1.5: a pair the chapter never prints
HOLIDAY_REFERENCE = "students enjoy long summer holidays"
HOLIDAY_CANDIDATES = {"A": "Pupils enjoy vacations.", "B": "Students enjoy visiting old castles in spring."}


def _preferences() -> dict[str, str]:
    """The label ("A" or "B") each metric prefers for HOLIDAY_REFERENCE: ROUGE-1 F1 and sentence BLEU."""
    r1 = {k: rouge_n(c, HOLIDAY_REFERENCE, 1).fmeasure for k, c in HOLIDAY_CANDIDATES.items()}
    bleu = {k: sentence_bleu(c, HOLIDAY_REFERENCE) for k, c in HOLIDAY_CANDIDATES.items()}
    return {"ROUGE-1": max(r1, key=r1.get), "BLEU": max(bleu, key=bleu.get)}


def _rouge_only_matches(reference: str | None = None, candidates: dict | None = None) -> set[str]:
    """Reference words that ROUGE-1 matches in some candidate but BLEU's 13a tokens do not
    (HOLIDAY_REFERENCE and HOLIDAY_CANDIDATES unless given)."""
    reference = HOLIDAY_REFERENCE if reference is None else reference
    candidates = HOLIDAY_CANDIDATES if candidates is None else candidates
    ref13 = set(tokenize_13a(reference))
    words = set()
    for cand in candidates.values():
        rouge_shared = set(tokenize(cand)) & set(tokenize(reference))
        words |= {w for w in rouge_shared if w not in set(tokenize_13a(cand)) or w not in ref13}
    return words


def _label(answer, name):
    assert answer is not None, f"set {name} to \"A\" or \"B\""
    assert str(answer).strip().upper() in HOLIDAY_CANDIDATES, f"answer {name} with \"A\" or \"B\""
    return str(answer).strip().upper()


def check_1_5(rouge_pick, bleu_pick=None, word=None, hint: int = 1) -> bool:
    """rouge_pick, bleu_pick: "A" or "B", the candidate ROUGE-1 F1 and sentence BLEU prefer;
    word: the reference word ROUGE-1 matches and BLEU does not."""
    def test():
        want = _preferences()
        assert _label(rouge_pick, "rouge_pick_1_5") == want["ROUGE-1"], "ROUGE-1 F1 prefers the other candidate"
        assert _label(bleu_pick, "bleu_pick_1_5") == want["BLEU"], "sentence BLEU prefers the other candidate"
        assert word is not None, "set word_1_5 to the word ROUGE-1 matches and BLEU does not"
        assert str(word).strip().lower() in _rouge_only_matches(), \
            "not a word that ROUGE-1 matches and BLEU misses: compare the two tokenizations of each text"
        assert str(word).strip() in tokenize_13a(HOLIDAY_REFERENCE), (
            f"{str(word).strip()!r} is a candidate's spelling: give the word as the reference writes it. That the "
            "two spellings differ is the point: which metric lowercases, which compares them as written?")
    return run("1.5", test, "compute both metrics (rouge_n, sentence_bleu); for the word, tokenize each text the "
                            "way each metric does (rouge.tokenize and tokenize_13a) and compare.",
               code="for k, c in ch01.HOLIDAY_CANDIDATES.items(): print(k, rouge_n(c, ch01.HOLIDAY_REFERENCE, 1)"
                    ".fmeasure, sentence_bleu(c, ch01.HOLIDAY_REFERENCE), tokenize_13a(c), rouge.tokenize(c))",
               level=hint)


# 1.7: six systems' metric scores the chapter never prints (one tie); the student picks the ratings
SYSTEMS_METRIC = [0.42, 0.35, 0.51, 0.35, 0.60, 0.28]
GAP_TOLERANCE = 5.01e-5  # gap_1_7 may be rounded to 4 decimals (the prompt says so)
KINDS = ("concordant", "discordant", "tied in x", "tied in y", "tied in both")


def _ratings(ratings) -> list[float]:
    assert ratings is not None, f"set ratings_1_7 to a list of {len(SYSTEMS_METRIC)} ratings, one per system"
    assert isinstance(ratings, (list, tuple)) and len(ratings) == len(SYSTEMS_METRIC), \
        f"ratings_1_7 must be a list of {len(SYSTEMS_METRIC)} numbers, one per system, in the systems' order"
    texts = [r for r in ratings if isinstance(r, str)]
    assert not texts, f"you gave text ({texts[0]!r}), not a number: give ratings such as 3, not '3'"
    try:
        values = [float(r) for r in ratings]
    except (TypeError, ValueError):
        raise AssertionError(f"ratings_1_7 must hold numbers, not {[type(r).__name__ for r in ratings]}") from None
    assert not any(math.isnan(v) for v in values), "a rating is NaN: people gave every system a number"
    outside = [r for r, v in zip(ratings, values) if not 1 <= v <= 5]
    assert not outside, f"a rating of {outside[0]!r} is off the scale: people rate from 1 to 5"
    return values


def check_1_7(ratings, gap=None, kind=None, hint: int = 1) -> bool:
    """ratings_1_7: people's ratings of the systems of SYSTEMS_METRIC on which colleague_tau_b is wrong;
    gap_1_7: colleague_tau_b minus the right tau-b on them; kind_1_7: the kind of pair (one of KINDS) that
    colleague_tau_b counts wrong."""
    from scipy.stats import kendalltau

    def test():
        y = _ratings(ratings)
        x = SYSTEMS_METRIC
        right, theirs = float(kendalltau(x, y).statistic), float(colleague_tau_b(x, y))
        assert not math.isnan(right), ("your ratings are all equal: people ordered no pair, so tau-b is not "
                                       "defined (0 / 0). Rate the systems differently")
        if close(right, theirs, 1e-9):
            c, d, _, _, both = _pair_counts(x, y)
            if both and c == d:
                raise AssertionError(f"your ratings tie {both} pair(s) on both sides, but C = D = {c}: the "
                                     "numerator C - D is 0, so every denominator gives 0. Make C differ from D")
            raise AssertionError(f"on your ratings the colleague's tau-b is right ({theirs:.4f} = scipy's). Sort "
                                 "the 15 pairs into section 6's kinds and compare the colleague's n_x and n_y "
                                 "with the definition's: the kind it counts wrong must occur in your ratings")
        assert gap is not None, "ratings_1_7 expose the bug. Now set gap_1_7 (and then kind_1_7)"
        assert not isinstance(gap, str), f"you gave text ({gap!r}), not a number: set gap_1_7 to a number"
        if close(gap, right - theirs, GAP_TOLERANCE):
            raise AssertionError("gap_1_7 has the wrong sign: the colleague's tau-b minus the right one")
        if not close(gap, theirs - right, GAP_TOLERANCE) and close(gap, theirs - right, 0.005) \
                and close(float(gap), round(float(gap), 3), 1e-12):
            raise AssertionError(f"gap_1_7 = {gap} is the gap rounded too coarsely: give it to 4 decimals or more")
        assert close(gap, theirs - right, GAP_TOLERANCE), (
            "gap_1_7 is not the colleague's tau-b minus the right (scipy's) tau-b, both on ch01.SYSTEMS_METRIC "
            "and your ratings")
        assert kind is not None, f"ratings_1_7 and gap_1_7 are right. Now set kind_1_7 to one of {list(KINDS)}"
        said = " ".join(str(kind).strip().lower().replace("_", " ").split())
        assert said in KINDS or said == "both", f"answer kind_1_7 with one of {list(KINDS)}, not {kind!r}"
        assert said in ("tied in both", "both"), (
            f"pairs {said!r} are counted as the definition counts them: read the lines that compute n_x and "
            "n_y, and ask which pairs belong in each")
    return run("1.7", test, "tau-b's denominator counts, on each side, the pairs that side could order (n0 minus "
                            "the pairs tied on that side). A bug in a count shows only on data that contains the "
                            "pairs it miscounts, and only when C - D is not 0.",
               code="i, j = the two systems with the same metric score; ratings_1_7 = [3 if k in (i, j) else 5 "
                    "if ch01.SYSTEMS_METRIC[k] > ch01.SYSTEMS_METRIC[i] else 1 for k in range(6)]; gap_1_7 = "
                    "ch01.colleague_tau_b(ch01.SYSTEMS_METRIC, ratings_1_7) - kendalltau(ch01.SYSTEMS_METRIC, "
                    "ratings_1_7).statistic; kind_1_7 = 'tied in both'", level=hint)


def _hidden_data():
    """In grading mode the value exercises (1.5, 1.7) run on data drawn with the grading seed, which no
    release holds: answers copied from the solutions do not pass, the right code does.
    1.5: a WMT16 reference (lowercased, no final mark, as the published one) and two candidates: that
    row's system output and the reference's first words, capitalised as a sentence starts (so ROUGE-1,
    which lowercases, matches a word that BLEU's 13a tokens miss). Drawn again while a published
    answer word is among the answers. 1.7: six systems' metric scores with one tie, on another pair of
    systems than the published one: copied ratings then rarely expose the bug, and where they do, the
    copied gap_1_7 (computed on the published scores) does not match."""
    published_metric = list(SYSTEMS_METRIC)
    published_words = _rouge_only_matches()
    k = 0
    while True:
        row = hidden_rows(f"1.5:{k}", 1, where=lambda r: 5 <= len(r["ref"].split()))[0]
        k += 1
        words = row["ref"].rstrip(".!?").split()
        reference = " ".join(words).lower()
        short = " ".join(words[:max(2, len(words) // 2)]).lower().capitalize() + "."
        found = _rouge_only_matches(reference, {"A": row["mt"], "B": short})
        if found and not found & published_words:
            break
    rng = hidden_rng("1.7")
    while True:
        metric = [round(rng.uniform(0.2, 0.7), 2) for _ in range(6)]
        a, b = sorted(rng.sample(range(6), 2))
        metric[b] = metric[a]  # one tie in the metric, on another pair than the published one
        if _tied_pairs(metric) == [(a, b)] != _tied_pairs(published_metric):
            break
    return (reference, {"A": row["mt"], "B": short}), metric


if grading():
    (HOLIDAY_REFERENCE, HOLIDAY_CANDIDATES), SYSTEMS_METRIC = _hidden_data()
