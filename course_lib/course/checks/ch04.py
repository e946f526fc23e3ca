"""Checkers for chapter 04 (greedy matching: precision, recall, F1). Expected values come from
course_lib's matching, plots (pair_view) and scorer with the embedded model, on several cases."""
from __future__ import annotations

from functools import lru_cache

import torch

from course_lib.bertscore.matching import best_matches, f1, weighted_mean

from . import close, forbid, run

# The red-shoes example of Comet's article: one reference, two candidates.
RED_SHOES_REFERENCE = "The red shoes cost $20.00"
RED_SHOES_CANDIDATES = ["The rouge slippers cost $20", "The blue socks cost $20"]
# Exercise 4.3: a pair to score both ways.
SWAP_PAIR = ("A man is slicing a tomato in the kitchen.", "Someone cuts a tomato.")
# Exercise 4.5: the candidate has no final full stop; the reference has one.
SPECIAL_PAIR = ("people like foreign cars", "Consumers prefer imported cars.")


@lru_cache(maxsize=None)
def _matrices():
    """Similarity matrices [cand_len, ref_len]: random (non-square and square) and real ones."""
    from course_lib.teaching.plots import pair_view

    g = torch.Generator().manual_seed(4)
    mats = [torch.rand(n_c, n_r, generator=g) * 2 - 1 for n_c, n_r in [(3, 5), (6, 4), (5, 5), (1, 7)]]
    for cand, ref in [("It is freezing today.", "The weather is cold today."), SPECIAL_PAIR]:
        mats.append(pair_view(cand, ref).sim[1:-1, 1:-1])  # real tokens only
    return tuple(mats)


def _as_floats(result, n: int, what: str):
    assert isinstance(result, (tuple, list)) and len(result) == n, f"return a tuple {what}"
    return [float(x) for x in result]


def check_4_1(greedy_precision_recall, hint: int = 1) -> bool:
    """greedy_precision_recall(sim [cand_len, ref_len]) -> (P, R), every token weighing 1."""
    greedy_precision_recall = forbid(greedy_precision_recall, "course_lib.bertscore.matching")

    def test():
        for sim in _matrices():
            for_cand, for_ref = best_matches(sim)
            want = (for_cand.mean().item(), for_ref.mean().item())
            got = _as_floats(greedy_precision_recall(sim.clone()), 2, "(P, R)")
            shape = f"a {sim.shape[0]}x{sim.shape[1]} matrix"
            assert close(got[0], want[0], 1e-5), f"{shape}: P should be {want[0]:.4f}, yours {got[0]:.4f}"
            assert close(got[1], want[1], 1e-5), f"{shape}: R should be {want[1]:.4f}, yours {got[1]:.4f}"
    return run("4.1", test, "rows are candidate tokens: P averages each candidate token's best match "
                            "(its row's maximum), R each reference token's best match (its column's maximum).",
               code="P = sim.max(dim=1).values.mean(); R = sim.max(dim=0).values.mean()", level=hint)


@lru_cache(maxsize=None)
def _weighted_cases():
    """(sim, cand_weights, ref_weights, (P, R, F) or None): random weights, and real pairs whose
    expected P, R, F come from course_lib.teaching.plots.pair_view (bert-score's rule, idf weights)."""
    from course_lib.bertscore.idf import idf_weights
    from course_lib.model import load
    from course_lib.teaching.plots import pair_view

    g = torch.Generator().manual_seed(5)
    cases = []
    for n_c, n_r in [(4, 6), (7, 3), (5, 5)]:
        sim = torch.rand(n_c, n_r, generator=g)
        cw, rw = torch.rand(n_c, generator=g) * 3, torch.rand(n_r, generator=g) * 3
        cw[0] = rw[-1] = 0.0  # a weight-0 token, like [CLS]/[SEP]
        cases.append((sim, cw, rw, None))
    tokenizer, _ = load()
    corpus = ["The weather is cold today.", "It is warm today.", "Cars are expensive.", SPECIAL_PAIR[1],
              "The red shoes cost $20.00", "People like cars."]
    idf = idf_weights(corpus, tokenizer)
    for cand, ref in [("It is freezing today.", "The weather is cold today."), SPECIAL_PAIR]:
        for weights in (None, idf):
            v = pair_view(cand, ref, weights=weights)
            cases.append((v.sim, v.cand_weights, v.ref_weights, (v.P, v.R, v.F)))
    return tuple(cases)


def check_4_2(weighted_bertscore, hint: int = 1) -> bool:
    """weighted_bertscore(sim [cand_len, ref_len], cand_weights [cand_len], ref_weights [ref_len])
    -> (P, R, F) with P = Σ w·rowmax / Σ w, R likewise over columns, F = 2PR/(P+R)."""
    weighted_bertscore = forbid(weighted_bertscore, "course_lib.bertscore.matching", "course_lib.teaching.plots")

    def test():
        for sim, cw, rw, scores in _weighted_cases():
            for_cand, for_ref = best_matches(sim)
            P, R = weighted_mean(for_cand, cw).item(), weighted_mean(for_ref, rw).item()
            want = (P, R, f1(torch.tensor(P), torch.tensor(R)).item())
            if scores is not None:  # the same numbers as course_lib's own pair_view
                assert all(close(a, b, 1e-5) for a, b in zip(want, scores))
            got = _as_floats(weighted_bertscore(sim.clone(), cw.clone(), rw.clone()), 3, "(P, R, F)")
            for name, a, b in zip("PRF", got, want):
                assert close(a, b, 1e-5), (f"{name} should be {b:.4f}, yours {a:.4f} (weights of the "
                                           f"candidate tokens: {[round(x, 2) for x in cw.tolist()]})")
    return run("4.2", test, "P is the weighted mean of the row maxima (divide by the sum of the weights, not "
                            "by the number of tokens), R the same over columns with the reference weights, "
                            "F their harmonic mean (not the arithmetic mean).",
               code="P = (sim.max(dim=1).values * cand_weights).sum() / cand_weights.sum(); R = (sim.max(dim=0)"
                    ".values * ref_weights).sum() / ref_weights.sum(); F = 2 * P * R / (P + R)", level=hint)


@lru_cache(maxsize=None)
def _swap_scores():
    from course_lib.engine.scorer import score

    c, r = SWAP_PAIR
    forward = [x.item() for x in score([c], [r])]
    backward = [x.item() for x in score([r], [c])]
    return tuple(forward), tuple(backward)


def check_4_3(answer, hint: int = 1) -> bool:
    """answer_4_3: "P", "R" or "F" -- the score that does not change when SWAP_PAIR is swapped."""
    def test():
        forward, backward = _swap_scores()
        unchanged = [name for name, a, b in zip("PRF", forward, backward) if close(a, b, 1e-6)]
        assert isinstance(answer, str) and answer.strip().upper() in ("P", "R", "F"), \
            'set answer_4_3 to "P", "R" or "F"'
        assert answer.strip().upper() in unchanged, \
            f"{answer.strip().upper()} changes from {forward['PRF'.index(answer.strip().upper())]:.4f}"
    return run("4.3", test, "score the pair both ways and compare P, R and F.",
               code="c, r = ch04.SWAP_PAIR; compare course_lib.score([c], [r]) with course_lib.score([r], [c])",
               level=hint)


@lru_cache(maxsize=None)
def red_shoes_scores(layer=None) -> list[float]:
    """F of each candidate of RED_SHOES_CANDIDATES against the reference (default layer)."""
    from course_lib.engine.scorer import score

    _, _, F = score(RED_SHOES_CANDIDATES, [RED_SHOES_REFERENCE] * 2, num_layers=layer)
    return tuple(F.tolist())


def check_4_4(answer, hint: int = 1) -> bool:
    """answer_4_4: the candidate of RED_SHOES_CANDIDATES with the higher F (embedded model, layer 4)."""
    def test():
        scores = red_shoes_scores()
        want = RED_SHOES_CANDIDATES[max(range(2), key=lambda k: scores[k])]
        assert answer in RED_SHOES_CANDIDATES, \
            f"set answer_4_4 to one of the two candidate sentences: {RED_SHOES_CANDIDATES}"
        assert answer == want, "measure it: course_lib.score(candidates, [reference] * 2)"
    return run("4.4", test, "measure F for both candidates against the reference and pick the larger.",
               code="course_lib.score(ch04.RED_SHOES_CANDIDATES, [ch04.RED_SHOES_REFERENCE] * 2)[2]", level=hint)


@lru_cache(maxsize=None)
def tokens_matching_special(candidate: str, reference: str) -> list[str]:
    """Reference tokens (not [CLS]/[SEP]) whose best candidate token is [CLS] or [SEP]."""
    from course_lib.teaching.plots import pair_view

    v = pair_view(candidate, reference)
    n_c = len(v.cand_tokens)
    return tuple(v.ref_tokens[j] for j, i in enumerate(v.sim.argmax(dim=0).tolist())
                 if v.ref_weights[j] > 0 and i in (0, n_c - 1))


def check_4_5(answer, hint: int = 1) -> bool:
    """answer_4_5: the reference token of SPECIAL_PAIR whose best match is a special token."""
    def test():
        want = tokens_matching_special(*SPECIAL_PAIR)
        got = [answer] if isinstance(answer, str) else list(answer) if isinstance(answer, (list, tuple)) else None
        assert got is not None, "set answer_4_5 to a token string, e.g. \"cars\""
        assert sorted(got) == sorted(want), "not that one"
    return run("4.5", test, "a reference token's best match is the row of its column's maximum: look for a "
                            "reference token whose best row is [CLS] or [SEP].",
               code="v = pair_view(*ch04.SPECIAL_PAIR); v.sim.argmax(dim=0) gives each column's best row "
                    "(0 and len(v.cand_tokens) - 1 are [CLS] and [SEP])", level=hint)
