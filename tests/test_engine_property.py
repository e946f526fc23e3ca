"""The fast engine equals the definition: `score` = `reference_bertscore` on random real inputs.

`course_lib.reference_bertscore` (`course_lib.bertscore.reference.reference_scores` behind
bert-score's arguments) scores one pair at a time with the functions the chapters teach (one forward pass per text, no padding). The engine deduplicates, sorts by
length, batches under a token budget, runs only the layers it needs and packs the vectors: none of
that may move a score. Each case draws (seeded) real sentences from data/ (WMT16, STS-B, PAWS) of
mixed lengths, with repeats, empty strings and texts over the model's 512 tokens, and random
options: layer 0..6, idf False / True / a dict, rescaling, exclude_special, several references per candidate, the
engine's batch size 1..64. Tolerance: max |ΔP|, |ΔR|, |ΔF| ≤ 1e-6 (float32 sums in another order).
"""
import random

import pytest
import torch

from course_lib.bertscore.idf import idf_weights
from course_lib.call.reference import reference_bertscore
from course_lib.engine.scorer import score
from course_lib.evaluation import datasets
from course_lib.model import load
from compare import max_diff  # NaN-aware

TOL = 1e-6
SEEDS = range(10)
DIFFS: list[float] = []  # every case's max |Δ|, printed at the end


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """One torch thread: the reference runs hundreds of tiny forward passes, which several
    threads only slow down on a busy 2-core machine. Both sides run under the same setting."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
    if DIFFS:  # shown with pytest -s
        print(f"\nengine vs reference: {len(DIFFS)} cases, max |ΔP|, |ΔR|, |ΔF| = {max(DIFFS):.1e}")


@pytest.fixture(scope="module")
def pool():
    """Real sentences, short to long, and two texts over 512 word pieces."""
    wmt = datasets.wmt16().sample(400, random_state=0)
    sts = datasets.stsb("dev").sample(200, random_state=0)
    paws = datasets.paws().sample(100, random_state=0)
    sentences = wmt.mt.tolist() + wmt.ref.tolist() + sts.sentence1.tolist() + paws.sentence2.tolist()
    refs = datasets.wmt16().ref.tolist()
    long_texts = [" ".join(refs[:30]), " ".join(refs[30:60])]  # ~700 word pieces each
    tokenizer, _ = load()
    assert all(len(tokenizer.tokenize(t)) > 600 for t in long_texts)
    return {"sentences": sentences, "long": long_texts, "empty": ["", "  "]}


def draw(pool, rng: random.Random, n: int, multi: bool, long: bool, empty: bool):
    """n candidates and their references (one each, or 1-3 each when `multi`), with repeats."""
    texts = rng.sample(pool["sentences"], 2 * n)
    cands, refs = texts[:n], texts[n:]
    if n >= 4:  # duplicates: a repeated pair, a sentence on both sides, a candidate equal to its reference
        cands[1], refs[1] = cands[0], refs[0]
        refs[2] = cands[3]
        cands[n - 1] = refs[n - 1]
    if long:
        cands[rng.randrange(n)] = pool["long"][0]
        refs[rng.randrange(n)] = pool["long"][1]
    if empty:
        cands[rng.randrange(n)] = pool["empty"][0]
        refs[rng.randrange(n)] = pool["empty"][1]
    if multi:
        refs = [[r] + rng.sample(texts, rng.randint(0, 2)) for r in refs]
    return cands, refs


def options(seed: int, corpus):
    """Every option in turn over the seeds: layer 0..6, idf False / True / dict, rescaling,
    [CLS]/[SEP] kept as match targets or not (exclude_special)."""
    idf = [False, True, "dict"][seed % 3]
    return dict(num_layers=seed % 7, idf=idf_weights(corpus, load()[0]) if idf == "dict" else idf,
                rescale_with_baseline=seed % 2 == 1, exclude_special=seed % 4 in (1, 2))


@pytest.mark.filterwarnings("ignore::UserWarning")  # empty and truncated texts are warned about
@pytest.mark.parametrize("seed", SEEDS)
def test_engine_equals_reference(pool, seed):
    rng = random.Random(seed)
    n = [1, 2, 3, 5, 8, 12][seed % 6]
    cands, refs = draw(pool, rng, n, multi=seed % 4 in (1, 2), long=seed in (2, 7), empty=seed % 3 != 1)
    kw = options(seed, corpus=rng.sample(pool["sentences"], 50))
    ours = score(cands, refs, batch_size=rng.randint(1, 64), **kw)
    ref = reference_bertscore(cands, refs, **kw)
    DIFFS.append(max_diff(ours, ref))
    assert DIFFS[-1] <= TOL, (kw, DIFFS[-1])


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_large_batch_equals_reference(pool):
    """40 pairs, 80 texts in model batches of up to 64: length sorting and padding at work."""
    rng = random.Random(100)
    cands, refs = draw(pool, rng, 40, multi=False, long=False, empty=True)
    kw = dict(num_layers=4, idf=True)
    ours = score(cands, refs, batch_size=64, **kw)
    DIFFS.append(max_diff(ours, reference_bertscore(cands, refs, **kw)))
    assert DIFFS[-1] <= TOL


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_all_layers_equals_one_call_per_layer_and_the_reference(pool):
    rng = random.Random(200)
    cands, refs = draw(pool, rng, 5, multi=True, long=False, empty=True)
    kw = dict(idf=True, rescale_with_baseline=True)
    every = score(cands, refs, all_layers=True, batch_size=rng.randint(1, 64), **kw)  # [7, N] each
    assert every[0].shape == (7, len(cands))
    for layer in range(7):
        one = score(cands, refs, num_layers=layer, **kw)
        assert max_diff([x[layer] for x in every], one) <= TOL
        DIFFS.append(max_diff([x[layer] for x in every], reference_bertscore(cands, refs, num_layers=layer, **kw)))
        assert DIFFS[-1] <= TOL, layer

