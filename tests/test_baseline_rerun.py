"""A small re-run of the course's baseline agrees with the saved file (course_lib/resources/baselines/).

The saved file is the mean P, R, F of 10,000 random pairs (seed 0) for every layer of the embedded model; its
standard errors are in all-MiniLM-L6-v2.stderr.tsv. Here 1,000 *other* random pairs (seed 1) are scored. The two
means estimate the same b, so they may differ by sampling noise only:

    tolerance = 4 x combined standard error = 4 * sqrt(se_small^2 + se_saved^2)

(about 0.010 for F at layer 4). For scale: the baselines of single corpora (news, captions, Wikipedia; chapter 06)
differ from the pooled file by 0.03-0.19 at layer 4, and most neighbouring layers by 0.01-0.34.
"""
import pytest
import torch

from course_lib import EMBEDDED_MODEL
from course_lib.engine.baseline import compute_baseline
from course_lib.bertscore.baseline import default_baseline_path, read_baseline
from course_lib.evaluation.datasets import baseline_corpus

N_PAIRS, SEED, N_SIGMA = 1000, 1, 4.0


@pytest.fixture(scope="module")
def rerun():
    return compute_baseline(baseline_corpus(), n_pairs=N_PAIRS, seed=SEED)


def saved():
    path = default_baseline_path(EMBEDDED_MODEL)
    return read_baseline(path), read_baseline(path.with_name(path.stem + ".stderr.tsv"))


def test_small_rerun_agrees_with_saved_baseline(rerun):
    mean, stderr = saved()
    assert rerun.mean.shape == mean.shape == stderr.shape == (7, 3)  # layers 0..6 x (P, R, F)
    tolerance = N_SIGMA * torch.sqrt(rerun.stderr ** 2 + stderr ** 2)
    gap = (rerun.mean - mean).abs()
    worst = (gap / tolerance).max().item()
    assert (gap <= tolerance).all(), (
        f"re-run differs from the saved baseline by more than {N_SIGMA} combined standard errors "
        f"(worst: {worst:.2f} x tolerance)\nre-run F: {rerun.mean[:, 2]}\nsaved F:  {mean[:, 2]}")


def test_saved_standard_errors_match_the_rerun_spread(rerun):
    # se = std / sqrt(n): the file's (n = 10,000) times sqrt(10) should be close to the re-run's (n = 1,000)
    _, stderr = saved()
    ratio = rerun.stderr / (stderr * (10_000 / N_PAIRS) ** 0.5)
    assert ((ratio > 0.8) & (ratio < 1.25)).all(), ratio
