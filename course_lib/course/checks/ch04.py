"""Checkers for chapter 04 (greedy matching: precision, recall, F1). Expected values come from
course_lib's matching, plots (pair_view) and scorer with the embedded model, on several cases."""
from __future__ import annotations

from collections.abc import Mapping

import torch

from course_lib.bertscore.matching import best_matches, f1, weighted_mean
from course_lib.caching import cached

from . import close, forbid, grading, hidden_rng, hidden_rows, run
from .ch04_cases import (BETAS, SPECIAL_PAIR, _SWAP_ZEROS, _f_beta, _gain_slips, _padded_matrices,  # noqa: F401
                         _positions, _weighted_cases, _weights_on_texts, _without_weight0_targets, _slip_4_2,
                         _bent_view_run)

# The red-shoes example of Comet's article: one reference, two candidates (section 4).
RED_SHOES_REFERENCE = "The red shoes cost $20.00"
RED_SHOES_CANDIDATES = ["The rouge slippers cost $20", "The blue socks cost $20"]
# Exercise 4.3: three (a, b) pairs, scored a -> b and b -> a with idf=True.
SWAP_PAIRS = [("A woman slices an onion.", "Someone is cutting an onion in the kitchen."),
              ("The train was delayed by heavy snow.", "Snow delayed the train."),
              ("Two dogs play in the yard.", "Two puppies are playing outside on the grass.")]
# Exercise 4.4: one reference, a paraphrase and a candidate with two wrong facts.
CAT_REFERENCE = "A small black cat sleeps on the sofa."
CAT_CANDIDATES = ["A tiny dark kitten naps on the couch.", "A small white dog sleeps on the sofa."]
# Exercise 4.5: the candidate has no punctuation; the reference has two marks.
PUNCTUATION_PAIR = ("the meeting was cancelled", "Sadly, the meeting was cancelled!")


def _hidden_data():
    """In grading mode the value exercises (4.3-4.5) run on WMT16 texts drawn with the grading seed,
    which no release holds: numbers copied from the solutions do not pass, the right code does."""
    import re

    swap = tuple((r["mt"], r["ref"]) for r in hidden_rows("4.3", 3))
    a, b = hidden_rows("4.4", 2)
    cat = (a["ref"], [a["mt"], b["mt"]])
    r = hidden_rows("4.5", 1, where=lambda r: "," in r["ref"])[0]["ref"]
    plain = " ".join(re.sub(r"[^\w\s]", " ", r).lower().split())
    return swap, cat, (plain, r)


if grading():
    SWAP_PAIRS, (CAT_REFERENCE, CAT_CANDIDATES), PUNCTUATION_PAIR = _hidden_data()


def _as_floats(result, n: int, what: str):
    assert isinstance(result, (tuple, list)) and len(result) == n, f"return a tuple {what}"
    assert not any(isinstance(x, torch.Tensor) for x in result), (
        f"return {what} as plain floats (float(t) or t.item()), not tensors: numbers a test can compare")
    return [float(x) for x in result]


def _real_shape(sim):
    real = torch.isfinite(sim)
    return int(real.any(dim=1).sum()), int(real.any(dim=0).sum())


def check_4_1(greedy_precision_recall, hint: int = 1) -> bool:
    """greedy_precision_recall(sim [cand_len, ref_len] with -inf at padding) -> (P, R) over the
    real tokens, every real token weighing 1."""
    greedy_precision_recall = forbid(greedy_precision_recall, "course_lib.bertscore.matching.best_matches",
                                     "course_lib.bertscore.matching.weighted_mean")

    def test():
        for sim in _padded_matrices():
            real = torch.isfinite(sim)
            rows, cols = real.any(dim=1), real.any(dim=0)
            for_cand, for_ref = best_matches(sim)
            want = (for_cand[rows].mean().item(), for_ref[cols].mean().item())
            got = _as_floats(greedy_precision_recall(sim.clone()), 2, "(P, R)")
            n_c, n_r = _real_shape(sim)
            shape = f"a {sim.shape[0]}x{sim.shape[1]} matrix"
            real = f"({n_c} real rows, {n_r} real columns, the rest -inf padding)"
            if not close(want[0], want[1], 1e-4) and close(got[0], want[1], 1e-5) and close(got[1], want[0], 1e-5):
                raise AssertionError(f"{shape}: your P and R are swapped. The rows are the candidate's tokens: P "
                                     "(precision) averages the row maxima, R (recall) the column maxima")
            assert close(got[0], want[0], 1e-5), f"{shape}: P should be {want[0]:.4f}, yours {got[0]:.4f} {real}"
            assert close(got[1], want[1], 1e-5), f"{shape}: R should be {want[1]:.4f}, yours {got[1]:.4f} {real}"
    return run("4.1", test, "P averages each real candidate token's best match (its row's maximum), R each "
                            "real reference token's best match (its column's maximum); a padding row or "
                            "column is all -inf and must be left out of the average (0 * -inf is NaN, and "
                            "replacing -inf by 0 before the max lets 0 beat negative cosines).",
               code="row = sim.max(dim=1).values; col = sim.max(dim=0).values; "
                    "return float(row[torch.isfinite(row)].mean()), float(col[torch.isfinite(col)].mean())",
               level=hint)


def check_4_2(weighted_bertscore, hint: int = 1) -> bool:
    """weighted_bertscore(sim [cand_len, ref_len], cand_weights [cand_len], ref_weights [ref_len], beta)
    -> (P, R, F_beta) with P = Σ w·rowmax / Σ w, R likewise over columns,
    F_beta = (1 + β²)PR / (β²P + R)."""
    weighted_bertscore = forbid(weighted_bertscore, "course_lib.bertscore.matching.weighted_mean",
                                "course_lib.teaching.plots.pair_view")

    def test():
        for sim, cw, rw, scores in _weighted_cases():
            for_cand, for_ref = best_matches(sim)
            P, R = weighted_mean(for_cand, cw).item(), weighted_mean(for_ref, rw).item()
            if scores is not None:  # the same numbers as course_lib's own pair_view
                assert all(close(a, b, 1e-5) for a, b in zip((P, R, f1(torch.tensor(P), torch.tensor(R)).item()),
                                                             scores))
            for beta in BETAS:
                want = (P, R, _f_beta(P, R, beta))
                got = _as_floats(weighted_bertscore(sim.clone(), cw.clone(), rw.clone(), beta), 3, "(P, R, F)")
                case = (f"beta = {beta}, a {sim.shape[0]}x{sim.shape[1]} matrix, candidate weights "
                        f"{[round(x, 2) for x in cw.tolist()]}")
                if not (close(got[0], P, 1e-5) and close(got[1], R, 1e-5)):
                    slip = _without_weight0_targets(sim, cw, rw)
                    assert not (close(got[0], slip[0], 1e-5) and close(got[1], slip[1], 1e-5)), (
                        f"{case}: you left the weight-0 tokens ([CLS]/[SEP]) out as match *targets*. Weight 0 "
                        "keeps them out of the averages only; a real token may still pick [CLS] or [SEP] as "
                        "its best match (bert-score's rule, section 5): take the maxima over the whole matrix")
                named = _slip_4_2(sim, cw, rw, beta, got)
                assert named is None, f"{case}: {named}"
                for name, a, b in zip("PRF", got, want):
                    assert close(a, b, 1e-5), f"{case}: {name} should be {b:.4f}, yours {a:.4f}"
    return run("4.2", test, "test each line against a case whose answer you know: P and R are *weighted* means "
                            "of the best matches (what must a weighted mean divide by?), and F_beta must lean "
                            "towards R when beta > 1 (the prompt's 1/F_beta).",
               code="P = (sim.max(dim=1).values * cand_weights).sum() / cand_weights.sum(); R = (sim.max(dim=0)"
                    ".values * ref_weights).sum() / ref_weights.sum(); F = (1 + beta ** 2) * P * R / "
                    "(beta ** 2 * P + R); return float(P), float(R), float(F)", level=hint)


def _numbers(answer, n: int, what: str) -> list[float]:
    assert isinstance(answer, (list, tuple)) and len(answer) == n, f"give a list of {n} numbers, {what}"
    try:
        return [float(x) for x in answer]
    except (TypeError, ValueError):
        raise AssertionError(f"give a list of {n} numbers, {what}") from None


@cached()
def _swap_shifts() -> tuple[float, ...]:
    """F(b, a) - F(a, b) of each pair of SWAP_PAIRS, both scored with idf=True (idf from the
    references of that direction)."""
    from course_lib.engine.scorer import score

    a, b = [p[0] for p in SWAP_PAIRS], [p[1] for p in SWAP_PAIRS]
    return tuple((score(b, a, idf=True)[2] - score(a, b, idf=True)[2]).tolist())


def check_4_3(answer, weights=None, hint: int = 1) -> bool:
    """answer_4_3: for each (a, b) of SWAP_PAIRS, F(b, a) - F(a, b), both with idf=True;
    weights_4_3: one idf dictionary with which F(a, b) = F(b, a) for every pair."""
    from course_lib.engine.scorer import score

    def test():
        want = _swap_shifts()
        got = _numbers(answer, len(want), "one F(b, a) - F(a, b) per pair")
        if all(x == 0 for x in got):
            raise AssertionError(_SWAP_ZEROS)
        if all(abs(x) < 1e-6 for x in got):
            raise AssertionError("your differences are ~0, as without idf, where F is symmetric; idf=True "
                                 "computes the weights from the references, which change when the texts swap "
                                 "roles: measure it with idf=True")
        for k, (g, w) in enumerate(zip(got, want)):
            if close(g, -w, 1e-4) and not close(g, w, 1e-4):
                raise AssertionError(f"pair {k}: wrong sign (subtract F(a, b) from F(b, a))")
            assert close(g, w, 1e-4), f"pair {k}: F(b, a) - F(a, b) is not {g:.4f}"
        assert isinstance(weights, Mapping), (
            "answer_4_3 is right. Now weights_4_3: give a dictionary {token id: weight} with which F is "
            "symmetric again (idf=True is what breaks the symmetry)")
        a, b = [p[0] for p in SWAP_PAIRS], [p[1] for p in SWAP_PAIRS]
        assert len(_weights_on_texts(weights, a + b)) > 1, (
            "weights_4_3 gives every token of these texts the same weight: that is no idf weighting (rare "
            "tokens should weigh more); keep idf, only fix where it comes from")
        gap = (score(a, b, idf=weights)[2] - score(b, a, idf=weights)[2]).abs().max().item()
        assert gap < 1e-6, f"with weights_4_3, F still changes by {gap:.4f} when a pair is swapped"
    return run("4.3", test, "idf=True takes its weights from whichever texts are the references: score the three "
                            "pairs a -> b and b -> a with idf=True, then ask what changes besides the roles when "
                            "the texts swap, and what F needs to stay the same both ways.",
               code="a = [p[0] for p in ch04.SWAP_PAIRS]; b = [p[1] for p in ch04.SWAP_PAIRS]; "
                    "answer_4_3 = (course_lib.score(b, a, idf=True)[2] - course_lib.score(a, b, idf=True)[2])"
                    ".tolist(); weights_4_3 = idf_weights(a + b, tokenizer)  # idf once, from a fixed set of "
                    "texts, passed as idf= both ways", level=hint)


@cached()
def _cat_scores() -> tuple[float, ...]:
    """F of each of CAT_CANDIDATES against CAT_REFERENCE (embedded model, default layer)."""
    from course_lib.engine.scorer import score

    return tuple(score(CAT_CANDIDATES, [CAT_REFERENCE] * len(CAT_CANDIDATES))[2].tolist())


@cached()
def _weakest_token(candidate: str, reference: str) -> str:
    """The weight-1 token of `candidate` whose best match in `reference` (its row maximum) is lowest."""
    from course_lib.teaching.plots import pair_view

    v = pair_view(candidate, reference)
    best = v.sim.max(dim=1).values.masked_fill(v.cand_weights <= 0, float("inf"))
    return v.cand_tokens[int(best.argmin())]


def check_4_4(answer, weakest=None, hint: int = 1) -> bool:
    """answer_4_4: the candidate of CAT_CANDIDATES with the higher F; weakest_4_4: the token of the
    *other* candidate whose best match is the lowest."""
    def test():
        scores = _cat_scores()
        k = max(range(len(scores)), key=lambda i: scores[i])
        assert answer in CAT_CANDIDATES, f"set answer_4_4 to one of the candidate sentences: {CAT_CANDIDATES}"
        assert answer == CAT_CANDIDATES[k], "measure it: score both candidates against the reference"
        loser = CAT_CANDIDATES[1 - k]
        want = _weakest_token(loser, CAT_REFERENCE)
        assert isinstance(weakest, str), (f"set weakest_4_4 to a token (a word piece as tokens() lists it) of "
                                          f"{loser!r}")
        assert weakest.strip() == want, (
            f"{weakest!r} is not the token of {loser!r} with the weakest best match: look at each token's row "
            "maximum (word pieces count on their own; [CLS]/[SEP] do not count)")
    return run("4.4", test, "score both candidates; then, in the losing candidate's matrix, find the token "
                            "whose best match (row maximum) is lowest: that is where it loses.",
               code="course_lib.score(ch04.CAT_CANDIDATES, [ch04.CAT_REFERENCE] * 2)[2]; v = pair_view(loser, "
                    "ch04.CAT_REFERENCE); v.sim.max(dim=1).values next to v.cand_tokens (skip [CLS]/[SEP])",
               level=hint)


@cached()
def _tokens_matching_special(candidate: str, reference: str) -> tuple[str, ...]:
    """Reference tokens (not [CLS]/[SEP]) whose best candidate token is [CLS] or [SEP]."""
    from course_lib.teaching.plots import pair_view

    v = pair_view(candidate, reference)
    n_c = len(v.cand_tokens)
    return tuple(v.ref_tokens[j] for j, i in enumerate(v.sim.argmax(dim=0).tolist())
                 if v.ref_weights[j] > 0 and i in (0, n_c - 1))


SPECIAL_TEST_PAIRS = [("A cat sat on the mat.", "A cat sat on the mat."),
                      ("prices rose sharply in march", "Consumer prices rose sharply in March, driven by energy!")]


@cached()
def _special_credit(candidate: str, reference: str) -> tuple[tuple[str, ...], float]:
    """(reference tokens whose best match is [CLS]/[SEP], R under bert-score's rule - R with
    exclude_special=True), from course_lib's pair_view."""
    from course_lib.teaching.plots import pair_view

    gain = pair_view(candidate, reference).R - pair_view(candidate, reference, exclude_special=True).R
    return _tokens_matching_special(candidate, reference), float(gain)


def _no_exclude_special(*args, **kwargs) -> bool:
    return not kwargs.get("exclude_special")


def check_4_5(special_credit, hint: int = 1) -> bool:
    """special_credit(candidate, reference) -> (the reference tokens whose best match is [CLS]/[SEP],
    R(bert-score's rule) - R(exclude_special=True)), on PUNCTUATION_PAIR, SPECIAL_PAIR and
    SPECIAL_TEST_PAIRS, with exclude_special=True unavailable."""
    special_credit = forbid(special_credit, "course_lib.teaching.plots", "course_lib.engine.scorer",
                            "course_lib.bertscore.reference", "course_lib.call.reference",
                            allow=_no_exclude_special,
                            refused="exclude_special=True computes the strict R this exercise asks for: call "
                                    "pair_view(candidate, reference) and take each column's maximum yourself")

    def test():
        from course_lib.teaching.plots import pair_view

        for cand, ref, bent in [(*p, False) for p in [PUNCTUATION_PAIR, SPECIAL_PAIR] + SPECIAL_TEST_PAIRS] + [
                (*PUNCTUATION_PAIR, True)]:  # last, a pair whose vectors the check bends (see _bent_view)
            out, v = _bent_view_run(special_credit, cand, ref) if bent else (special_credit(cand, ref), None)
            v = v or pair_view(cand, ref)
            want = tuple(v.ref_tokens[j] for j, i in enumerate(v.sim.argmax(dim=0).tolist())
                         if v.ref_weights[j] > 0 and i in (0, len(v.cand_tokens) - 1))
            gain = float(v.R - (v.sim[1:-1].max(dim=0).values * v.ref_weights).sum() / v.ref_weights.sum())
            assert isinstance(out, (tuple, list)) and len(out) == 2, "return a pair (credited tokens, gain of R)"
            got, g = out
            assert not _positions(got), (f"candidate {cand!r}, reference {ref!r}: you return positions "
                                         f"{_positions(got)}; return the reference tokens themselves (the text "
                                         "of each, as ref_tokens lists it)")
            got = [got] if isinstance(got, str) else list(got) if isinstance(got, (list, tuple)) else None
            case = (f"candidate {cand!r}, reference {ref!r}" + (" (the check bent the candidate's vectors: its real "
                    "tokens point away from the reference's, its [CLS] is a copy of a reference word)" if bent else ""))
            assert got is not None, f"{case}: the first item is a list of reference tokens, e.g. [\"meeting\"]"
            got = [str(t).strip() for t in got]
            own = {"[CLS]", "[SEP]"} & set(got)
            assert not (own and set(got) - own == set(want)), (
                f"{case}: you list the reference's own {sorted(own)}: they weigh 0 in R (not real words), so no "
                "credit goes through them; leave them out")
            assert not own, (
                f"{case}: [CLS]/[SEP] is the candidate token that gets matched; list the *reference* tokens whose "
                "best match it is")
            extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
            assert not extra, f"{case}: the best match of {extra} is a real token of the candidate"
            assert not missing, f"{case}: you found {len(set(got))} of the {len(set(want))} credited reference tokens"
            g = float(g)
            assert not (abs(g + gain) < 1e-5 < abs(gain)), f"{case}: wrong sign (R with the special targets minus R without)"
            slip = [why for why, value in _gain_slips(v).items() if abs(g - value) < 1e-5 < abs(g - gain)]
            assert not slip, f"{case}: {slip[0] if slip else ''}"
            assert abs(g - gain) < 1e-5, (f"{case}: R gains {gain:.4f} from the special targets, yours {g:.4f}. "
                                          "Without them, a column's maximum runs over the real candidate rows only; "
                                          "R is still the weighted mean over the reference's real tokens")
    return run("4.5", test, "a reference token's best match is the row of its column's maximum: the credited ones "
                            "are those whose best row is the candidate's [CLS] (first) or [SEP] (last). The strict R "
                            "takes each column's maximum over the real rows only, then the same weighted mean.",
               code="v = pair_view(candidate, reference); n = len(v.cand_tokens); credited = [v.ref_tokens[j] for "
                    "j, i in enumerate(v.sim.argmax(dim=0).tolist()) if v.ref_weights[j] > 0 and i in (0, n - 1)]; "
                    "strict = (v.sim[1:-1].max(dim=0).values * v.ref_weights).sum() / v.ref_weights.sum(); "
                    "return credited, float(v.R - strict)", level=hint)
