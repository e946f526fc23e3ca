"""Chapter 04's test cases for the code exercises 4.1 and 4.2: padded similarity matrices and weighted
ones, random and from real pairs, with what a planted slip would return; 4.3's reading of a weights dictionary;
and 4.5's slips in the gain of R. `checks.ch04` imports these names."""
from __future__ import annotations

import torch

from course_lib.caching import cached

# Section 5: the candidate has no final full stop; the reference has one.
SPECIAL_PAIR = ("people like foreign cars", "Consumers prefer imported cars.")


@cached()
def _padded_matrices():
    """Matrices [cand_len, ref_len] of one pair cut out of a padded batch: -inf in every cell whose
    candidate or reference token is padding (trailing rows / columns). Random cosines in [-1, 1]
    (one real row all negative, where a 0 would win), and two real pairs padded by hand."""
    from course_lib.teaching.plots import pair_view

    g = torch.Generator().manual_seed(4)
    mats = []
    for n_c, n_r, pad_c, pad_r in [(3, 5, 0, 0), (6, 4, 2, 0), (5, 5, 0, 3), (4, 7, 3, 2), (1, 7, 4, 1)]:
        sim = torch.rand(n_c + pad_c, n_r + pad_r, generator=g) * 2 - 1
        sim[0, :n_r] = -torch.rand(n_r, generator=g) * 0.5 - 0.05  # a real token with no positive cosine
        sim[n_c:, :] = float("-inf")
        sim[:, n_r:] = float("-inf")
        mats.append(sim)
    for (cand, ref), (pad_c, pad_r) in zip([("It is freezing today.", "The weather is cold today."), SPECIAL_PAIR],
                                           [(5, 0), (2, 6)]):
        real = pair_view(cand, ref).sim[1:-1, 1:-1]  # real tokens only
        sim = torch.full((real.shape[0] + pad_c, real.shape[1] + pad_r), float("-inf"))
        sim[:real.shape[0], :real.shape[1]] = real
        mats.append(sim)
    return tuple(mats)


@cached()
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
        sim[:, -1] = sim.max() + 0.01  # ... that is the best match of every candidate token
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


BETAS = (1.0, 2.0, 0.5, 3.0)


def _f_beta(P, R, beta):
    return (1 + beta ** 2) * P * R / (beta ** 2 * P + R)


def _without_weight0_targets(sim, cw, rw):
    """P, R when weight-0 tokens ([CLS]/[SEP]) are also removed as match *targets* (the slip)."""
    rows = sim.masked_fill((rw <= 0)[None, :], float("-inf")).max(dim=1).values.masked_fill(cw <= 0, 0.0)
    cols = sim.masked_fill((cw <= 0)[:, None], float("-inf")).max(dim=0).values.masked_fill(rw <= 0, 0.0)
    return (rows * cw).sum().item() / cw.sum().item(), (cols * rw).sum().item() / rw.sum().item()


def _slip_4_2(sim, cw, rw, beta, got) -> str | None:
    """The common mistake a wrong (P, R, F_beta) of exercise 4.2 shows, named; None when it is none
    of them. `got`: the student's three floats."""
    def near(a, b):
        return abs(float(a) - float(b)) < 1e-5

    row, col = sim.max(dim=1).values, sim.max(dim=0).values
    P, R = ((row * cw).sum() / cw.sum()).item(), ((col * rw).sum() / rw.sum()).item()
    p_wrong, r_wrong = not near(got[0], P), not near(got[1], R)
    if p_wrong or r_wrong:
        if near(got[0], R) and near(got[1], P):
            return "P and R are swapped: P averages the row maxima (candidate tokens), R the column maxima"
        if ((p_wrong and near(got[0], (row * cw).sum() / len(cw)))
                or (r_wrong and near(got[1], (col * rw).sum() / len(rw)))):
            return (f"your weighted mean divides by the number of tokens ({len(cw)} candidate tokens); a weighted "
                    f"mean divides by the sum of the weights (here {cw.sum().item():.2f}): .mean() of w·x is not it")
        if (p_wrong and near(got[0], row.mean())) or (r_wrong and near(got[1], col.mean())):
            return "your P or R leaves the weights out: multiply each maximum by its token's weight"
        return None
    if near(got[2], _f_beta(P, R, beta)):
        return None
    if beta != 1 and near(got[2], 2 * P * R / (P + R)):
        return f"your F is the plain harmonic mean (beta = 1) whatever beta is; here beta = {beta}"
    if beta != 1 and near(got[2], (1 + beta) * P * R / (beta * P + R)):
        return "R counts beta² times as much as P, not beta times: square beta"
    if not near(P, R) and near(got[2], _f_beta(R, P, beta)):
        return ("your F_beta leans towards P; with beta > 1 it must lean towards R (beta² multiplies P in the "
                "denominator: 1/F_beta = (1/P + beta²/R) / (1 + beta²))")
    return None


# Exercise 4.3: all three differences exactly 0 -- each pair scored alone (or no idf at all)
_SWAP_ZEROS = ("your three differences are all exactly 0. Scored one pair at a time with idf=True, the single "
               "reference is the whole corpus: every token of it is in M = 1 of 1 references and weighs "
               "ln(2/2) = 0, so R is 0/0 and F = 0 both ways. Score the three pairs together, one call per "
               "direction, with idf=True (without idf F is symmetric, which is 0 too)")


def _positions(items) -> list[int]:
    """The integer positions a 4.5 answer lists where tokens are asked for (ints or 0-d integer tensors; a
    token is a string, even "20"); [] when it lists anything else."""
    try:
        items = [items] if isinstance(items, str) else list(items)
    except TypeError:
        return []
    out = []
    for t in items:
        if isinstance(t, torch.Tensor) and t.dim() == 0 and not t.is_floating_point():
            t = int(t)
        if isinstance(t, int) and not isinstance(t, bool):
            out.append(t)
        else:
            return []
    return out


def _gain_slips(v) -> dict[str, float]:
    """Exercise 4.5's common slips in the gain of R on the view `v`, each by what it computes: the strict R that
    drops the reference's [CLS]/[SEP] columns instead of the candidate's rows, the one that averages every column
    with weight 1, the one that keeps the candidate's first row, and the one that puts 0 in the rows it drops."""
    w = v.ref_weights
    columns = v.sim[:, 1:-1].max(dim=0).values
    zeroed = v.sim.clone()
    zeroed[[0, -1]] = 0.0
    return {"you dropped the reference's [CLS]/[SEP] columns; the special *targets* are the candidate's first and last "
            "rows: take each column's maximum over the candidate's real rows":
            float(v.R - (columns * w[1:-1]).sum() / w[1:-1].sum()),
            "your strict R averages every column with weight 1, the reference's [CLS]/[SEP] included; R is the "
            "weighted mean over the reference's real tokens (their weights), as before":
            float(v.R - v.sim[1:-1].max(dim=0).values.mean()),
            "your strict R still lets a column pick the candidate's [CLS] (its first row): [CLS] is a special "
            "target too, like [SEP]": float(v.R - (v.sim[:-1].max(dim=0).values * w).sum() / w.sum()),
            "you put 0 in the special rows: a 0 still beats a column whose real cosines are all negative, so the "
            "special rows keep a say in the maximum": float(v.R - (zeroed.max(dim=0).values * w).sum() / w.sum())}


def _bent_view(candidate, reference, model_type=None, layer=None, weights=None, exclude_special=False,
               _embed=None, _view_of=None, _uniform=None, _load=None):
    """pair_view of a pair whose candidate vectors the check bends (4.5 runs the student's function once with this
    in place of pair_view): the candidate's real tokens point away from the reference's (a column's real cosines
    are all negative) and its [CLS] is the reference's first word (a column's best match is [CLS])."""
    if exclude_special:
        from . import ForbiddenCall
        raise ForbiddenCall("exclude_special=True computes the strict R this exercise asks for: call "
                            "pair_view(candidate, reference) and take each column's maximum yourself")
    tokenizer = _load(model_type)[0]
    batch = _embed([candidate, reference], model_type, layer)
    n_c, n_r = int(batch.mask[0].sum()), int(batch.mask[1].sum())
    cand, ref = batch.embeddings[0, :n_c].clone(), batch.embeddings[1, :n_r]
    cand[1:-1] = -cand[1:-1]
    cand[0] = ref[1]
    return _view_of(tokenizer, batch.input_ids[0, :n_c].tolist(), batch.input_ids[1, :n_r].tolist(), cand, ref,
                    _uniform(tokenizer) if weights is None else weights, False)


def _bent_view_run(answer, candidate, reference):
    """(what `answer(candidate, reference)` returns with pair_view bent as `_bent_view` does, the bent view)."""
    import functools
    import sys

    from course_lib.bertscore.embeddings import embed
    from course_lib.bertscore.idf import uniform_weights
    from course_lib.bertscore.pair import view_of
    from course_lib.model import load
    from course_lib.teaching import plots

    from . import _unwrap

    bent = functools.partial(_bent_view, _embed=embed, _view_of=view_of, _uniform=uniform_weights, _load=load)
    view = bent(candidate, reference)
    namespaces = [vars(m) for name, m in list(sys.modules.items()) if m is not None and name.startswith("course_lib")]
    namespaces.append(getattr(_unwrap(answer), "__globals__", {}))
    saved = [(ns, key) for ns in namespaces for key, value in list(ns.items()) if value is plots.pair_view]
    original = plots.pair_view
    for ns, key in saved:
        ns[key] = bent
    try:
        return answer(candidate, reference), view
    finally:
        for ns, key in saved:
            ns[key] = original


def _weights_on_texts(weights, texts) -> set[float]:
    """The distinct weights `weights` gives the real tokens of `texts`, read as the scorer reads them
    (a defaultdict's default for an unseen id), without adding a key to a defaultdict."""
    from course_lib.bertscore.embeddings import encode
    from course_lib.bertscore.idf import weight_of
    from course_lib.model import load

    tokenizer, _ = load()
    ids = {i for t in texts for i in encode(tokenizer, t)} - {tokenizer.cls_token_id, tokenizer.sep_token_id}
    missing = sorted(i for i in ids if not _has_weight(weights, i))
    assert not missing, (f"weights_4_3 has no weight for {len(missing)} token(s) of these texts, e.g. "
                         f"{tokenizer.convert_ids_to_tokens(missing[:3])}: every token of a and b needs one")
    return {round(weight_of(weights, i), 9) for i in ids}


def _has_weight(weights, i) -> bool:
    from course_lib.bertscore.idf import weight_of

    try:
        weight_of(weights, i)
    except (KeyError, IndexError):
        return False
    return True
