"""Checkers for chapter 07b (neighbours, pitfalls and testing): exercises 7.4-7.7.

`ch07` re-exports them, so a notebook calls `ch07.check_7_4` like the checks of chapter 07a. Expected
answers come from course_lib and bert-score (idf from a fixed set of texts, its hash function, course_lib's input
checks), computed on cases the chapter never prints -- never typed in.
"""
from __future__ import annotations

import re

import torch

from course_lib.caching import cached
from . import close, grading, hidden_rng, hidden_rows, run


def batches_7_4() -> dict[str, list[str]]:
    """Two batches of 15 WMT16 pairs the chapter never scores (cs-en, then fi-en, in file order):
    {"a_cands", "a_refs", "b_cands", "b_refs"}. In grading mode, hidden batches: 15 cs-en and 15 fi-en
    pairs from seeded places past the published ones (drawn with the grading seed)."""
    from course_lib.evaluation import datasets

    wmt = datasets.wmt16()
    a, b = wmt[wmt.lp == "cs-en"], wmt[wmt.lp == "fi-en"]
    if grading():
        rng = hidden_rng("7.4")
        a, b = (x.iloc[15:].sample(15, random_state=rng.randrange(2 ** 31)) for x in (a, b))
    a, b = a.head(15), b.head(15)
    return {"a_cands": a.mt.tolist(), "a_refs": a.ref.tolist(), "b_cands": b.mt.tolist(), "b_refs": b.ref.tolist()}


def _batchings_7_4() -> list[list[tuple[list[str], list[str]]]]:
    """The same 30 pairs of batches_7_4() as a script could meet them: batch A then B, B then A, and
    regrouped into two other batches."""
    d = batches_7_4()
    a, b = (d["a_cands"], d["a_refs"]), (d["b_cands"], d["b_refs"])
    mixed = ([*a[0][:8], *b[0][:7]], [*a[1][:8], *b[1][:7]]), ([*a[0][8:], *b[0][7:]], [*a[1][8:], *b[1][7:]])
    return [[a, b], [b, a], list(mixed)]


@cached()
def _expected_7_4(idf: bool | str = True) -> dict[tuple[str, str], float]:
    """F of each pair (candidate, reference) with idf weights computed once from all references of
    the 30 pairs (course_lib.score; bert-score with those idf_sents gives the same); idf=False: plain F;
    idf="candidates": idf from all the candidates instead (the mistake the check names)."""
    import course_lib
    from course_lib.bertscore.idf import idf_weights
    from course_lib.model import load

    d = batches_7_4()
    cands, refs = d["a_cands"] + d["b_cands"], d["a_refs"] + d["b_refs"]
    weights = idf_weights(cands if idf == "candidates" else refs, load()[0]) if idf else False
    return dict(zip(zip(cands, refs), course_lib.score(cands, refs, idf=weights)[2].tolist()))


def check_7_4(fixed_idf_F, hint: int = 1) -> bool:
    """Exercise 7.4: `fixed_idf_F(batches)` -> one F tensor per batch, for batches [(cands, refs), ...]
    met in any order or grouping, each pair scored with idf weights from a fixed set of references (all the
    references of all the batches, as bert-score's idf=True on the whole test set, or another fixed choice)."""
    def test():
        want = _expected_7_4()
        got = []
        for batches in _batchings_7_4():
            out = fixed_idf_F([(list(c), list(r)) for c, r in batches])
            assert isinstance(out, (list, tuple)) and len(out) == len(batches), (
                f"return a list with one F per batch ({len(batches)} batches in, "
                f"{len(out) if isinstance(out, (list, tuple)) else type(out).__name__} out)")
            scores = {}
            for (cands, refs), F in zip(batches, out):
                F = torch.as_tensor(F, dtype=torch.float64).reshape(-1)
                assert len(F) == len(cands), f"one F per pair: a batch of {len(cands)} pairs got {len(F)} numbers"
                scores.update(zip(zip(cands, refs), F.tolist()))
            got.append(scores)
        moved = lambda x, y: max(abs(x[k] - y[k]) for k in want)  # noqa: E731
        assert moved(got[0], got[1]) < 1e-5, (
            "a pair's F changes when the two batches come in the other order: its idf weights depend on which "
            "batch came first (as a scorer kept from the first call does)")
        assert moved(got[0], got[2]) < 1e-5, (
            "a pair's F changes when the pairs are grouped into other batches: idf from each batch's own "
            "references makes a pair's score depend on its batchmates")
        if moved(got[0], _expected_7_4(idf=False)) < 1e-5:
            raise AssertionError("these are F without idf weights: the script scores with idf")
        assert moved(got[0], _expected_7_4(idf="candidates")) > 1e-4, (
            "your idf comes from the candidates: BERTScore's idf says how rare a word is among the references "
            "(the texts a candidate should cover), so take it from a fixed set of references, such as all the "
            "references of all the batches")

    return run("7.4", test, "idf weights that depend neither on the order of the calls nor on how the pairs are "
                            "grouped are computed once, from a fixed set of references chosen in advance.",
               code="refs = [r for _, rs in batches for r in rs]; weights = idf_weights(refs, tokenizer); "
                    "return [course_lib.score(c, r, idf=weights)[2] for c, r in batches]", level=hint)


PAPER_HASH = "roberta-large_L17_no-idf_version=0.3.12(hug_trans=4.57.1)-rescaled_fast-tokenizer"
HASH_KEYS = ("model", "layer", "idf", "rescaled", "custom_baseline", "fast_tokenizer")


@cached()
def _hashes_7_5() -> tuple[tuple[str, tuple], ...]:
    """(hash, settings) cases for read_hash: the paper's, then eight built with bert-score's get_hash from
    settings drawn with a seed (the grading seed in grading mode): models it knows, a model folder whose
    name holds "_" and "_L", every kind of baseline, both tokenizers."""
    from bert_score.utils import get_hash, model2layers

    rng = hidden_rng("7.5")
    models = sorted(model2layers) + ["/home/me/models/my_model_L2", "./bert_tiny"]
    settings = [("roberta-large", 17, False, True, False, True)]
    for k in range(8):
        model = models[-1 - k % 2] if k < 2 else rng.choice(models)
        rescaled = k in (2, 3) or rng.random() < 0.5
        settings.append((model, rng.randint(0, 24), rng.random() < 0.5, rescaled, rescaled and k != 2
                         and rng.random() < 0.6 or k == 3, rng.random() < 0.5))
    return tuple((get_hash(*x), x) for x in settings)


def check_7_5(read_hash, hint: int = 1) -> bool:
    """read_hash(h) -> {"model", "layer" (int), "idf", "rescaled", "custom_baseline", "fast_tokenizer"
    (bools)} for any hash bert-score's get_hash makes; run on _hashes_7_5()."""
    def test():
        for h, want in _hashes_7_5():
            got = read_hash(h)
            assert isinstance(got, dict) and all(k in got for k in HASH_KEYS), (
                f"return a dict with the keys {HASH_KEYS}")
            if isinstance(got["layer"], str):
                raise AssertionError(f"{h!r}: the layer is a number (an int), not the text {got['layer']!r}")
            for key, w in zip(HASH_KEYS, want):
                g = got[key]
                if key == "model" and g != w:
                    raise AssertionError(f"{h!r}: the model is {w!r}, not {g!r}. A model name or folder may "
                                         "itself hold '_' or '_L': the model is everything before the "
                                         "last _L<layer>_ that precedes the idf part")
                assert g == w and type(g) is type(w), (
                    f"{h!r}: {key} is {w!r}, yours {g!r}" + (" (-rescaled alone is bert-score's own baseline "
                                                             "file; -custom-rescaled is one you supplied)"
                                                             if key in ("rescaled", "custom_baseline") else ""))
    return run("7.5", test, "a hash reads left to right: the model, _L<layer>, _idf or _no-idf, the versions in "
                            "_version=...(...), then -rescaled or -custom-rescaled when rescaled, then "
                            "_fast-tokenizer when the fast tokenizer was used (chapter 07a, section 3.2).",
               code=r"m = re.fullmatch(r'(.*)_L(\d+)_(idf|no-idf)_version=[^)]*\)(-custom-rescaled|-rescaled)?"
                    r"(_fast-tokenizer)?', h); return {'model': m[1], 'layer': int(m[2]), 'idf': m[3] == 'idf', "
                    r"'rescaled': m[4] is not None, 'custom_baseline': m[4] == '-custom-rescaled', "
                    r"'fast_tokenizer': m[5] is not None}", level=hint)


def _frames_7_6():
    """Small (question, answer, reference) frames with bad rows of every kind, non-default index."""
    import pandas as pd

    good = ("Water boils at 100 °C.", "Water boils at 100 degrees Celsius at sea level.")
    rows = [good, ("", good[1]), (good[0], "   "), (None, good[1]), (good[0], float("nan")),
            ("\t\n", good[1]), (42, good[1]), ("Jane Austen.", "Pride and Prejudice is by Jane Austen."),
            (good[0], ["a list"])]
    df = pd.DataFrame(rows, columns=["answer", "reference"], index=[f"q{k}" for k in range(len(rows))])
    df.insert(0, "question", "?")
    clean = df.iloc[[0, 7]]
    return [(df, "answer", "reference"), (clean, "answer", "reference"),
            (df.rename(columns={"answer": "output", "reference": "expected"}).iloc[::-1], "output", "expected")]


def _expected_7_6(df, answer_col, reference_col):
    from course_lib.evaluation.metric import validate_text

    rejected = []
    for label, a, r in zip(df.index, df[answer_col], df[reference_col]):
        try:
            validate_text(a, "answer")
            validate_text(r, "reference")
        except (TypeError, ValueError):
            rejected.append(label)
    return df.drop(index=rejected), rejected


def check_7_6(split_valid, hint: int = 1) -> bool:
    """split_valid(df, answer_col, reference_col) -> (rows that can be scored, labels of the others)."""
    # forbids nothing: validate_text (shown in section 5) judges one text, not a frame; calling it on each
    # cell is a good answer -- the split then agrees with score_frame by construction

    def test():
        for df, a_col, r_col in _frames_7_6():
            before = df.copy()
            got = split_valid(df, a_col, r_col)
            assert isinstance(got, tuple) and len(got) == 2, "return a tuple (valid_rows, rejected_labels)"
            valid, rejected = got
            assert df.equals(before), ("your function changed the frame it was given (a column added, a cell "
                                       "rewritten): a split leaves its input as it was; work on a copy or a mask")
            want_valid, want_rejected = _expected_7_6(df, a_col, r_col)
            assert list(rejected) == want_rejected, (
                f"rejected {list(rejected)}, expected {want_rejected} (in the frame's order)")
            assert list(valid.index) == list(want_valid.index), "valid rows: keep every other row, in order"
            assert list(valid.columns) == list(df.columns), "keep all the columns of the valid rows"
    return run("7.6", test, "a row is rejected when its answer or its reference is not a string (None, NaN, "
               "a number, a list) or is empty after .strip(); use the column names you are given.",
               code="ok = pd.Series([isinstance(a, str) and bool(a.strip()) and isinstance(r, str) and "
                    "bool(r.strip()) for a, r in zip(df[answer_col], df[reference_col])], index=df.index); "
                    "return df[ok], list(df.index[~ok])", level=hint)


@cached()
def _vectors(text: str) -> torch.Tensor:
    """A sentence's token vectors [len, dim] (the embedded model, default layer), scaled to length 1."""
    from course_lib.bertscore.embeddings import embed

    e = embed([text])
    v = e.embeddings[0][e.mask[0]]
    return v / v.norm(dim=-1, keepdim=True)


def _pair_f1(c: torch.Tensor, r: torch.Tensor) -> float:
    sim = c @ r.T
    P, R = sim.max(dim=1).values.mean(), sim.max(dim=0).values.mean()
    return float(2 * P * R / (P + R))


def _length_order(texts) -> list[int]:
    return sorted(range(len(texts)), key=lambda k: len(texts[k]))


@cached()
def _batches_7_7() -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """Three batches of five WMT16 pairs (one per language pair of three) whose candidates and references
    are in different length orders, so that re-sorting with s a second time mis-pairs at least two rows
    (and whose candidates are not already in length order, so that scores left in that order show).
    Drawn with a fixed seed; in grading mode with the grading seed (hidden_rows)."""
    batches = []
    for k in range(3):
        for attempt in range(50):
            rows = hidden_rows(f"7.7:{k}:{attempt}", 5, max_words=30)
            cands, refs = [r["mt"] for r in rows], [r["ref"] for r in rows]
            s_c, s_r = _length_order(cands), _length_order(refs)
            wrong = sum(s_c[s_c[j]] != s_r[s_r[j]] for j in range(5))
            if wrong >= 2 and s_c != list(range(5)):  # mis-paired, and not already in length order
                batches.append((tuple(cands), tuple(refs)))
                break
    return tuple(batches)


def check_7_7(batch_f1, hint: int = 1) -> bool:
    """batch_f1(cands, refs, embed_one) -> one F per aligned pair, each list embedded in its own length
    order (the batcher's order) and the results put back where they belong."""
    def test():
        for cands, refs in _batches_7_7():
            n, calls = len(cands), []

            def embed_one(text):
                calls.append(text)
                return _vectors(text).clone()

            got = batch_f1(list(cands), list(refs), embed_one)
            assert got is not None and len(got) == n, f"return one F per pair: {n} numbers for {n} pairs"
            got = [float(x) for x in got]
            for side, texts in (("candidates", cands), ("references", refs)):
                order = [t for t in calls if t in texts]
                assert order == [texts[i] for i in _length_order(texts)], (
                    f"keep the batching: embed the {side} once each, in their length order (embed_one in "
                    "the order the batcher sorts them). The point is to undo the sort, not to drop it")
            table = [[_pair_f1(_vectors(cands[a]), _vectors(refs[b])) for b in range(n)] for a in range(n)]
            found = {}  # row -> (candidate's pair, reference's pair) that its number is the F of
            for k, g in enumerate(got):
                if abs(g - table[k][k]) >= 1e-5:
                    hits = [(a, b) for a in range(n) for b in range(n) if abs(g - table[a][b]) < 1e-5]
                    assert hits, (f"row {k}: {g:.4f} is the F of no candidate/reference combination of this "
                                  "batch (keep pair_f1 as given)")
                    found[k] = hits[0]
            mixed = [(k, a, b) for k, (a, b) in found.items() if a != b]
            assert not mixed, (f"row {mixed[0][0]} compares the candidate of pair {mixed[0][1]} with the reference "
                               f"of pair {mixed[0][2]} ({len(mixed)} of {n} rows): the two lists are still "
                               "mis-paired")
            assert not found, (f"row {min(found)} holds the right score of pair {found[min(found)][0]}: the pairs "
                               "are right but the scores stay in length order; put each back at its own pair's "
                               "position")
    return run("7.7", test, "sorted position j holds sentence s[j]. To undo the sort, what sits at j goes back to "
                            "position s[j] (the inverse permutation); indexing with s a second time, as "
                            "torchmetrics 1.9.0 does, puts s[s[j]] there instead and pairs a candidate with "
                            "another pair's reference.",
               code="emb_c = [emb_c[s_c.index(k)] for k in range(len(cands))]; "
                    "emb_r = [emb_r[s_r.index(k)] for k in range(len(refs))]", level=hint)
