"""Write the results chapter 10 reads from WMT16 into data/wmt16_da/vectors/ (see learned.cache):

    python -m course_lib.learned.precompute          (all; or `... precompute held-out`: only the
                                                      heads' held-out predictions; then `... ridge`)

the pooled vectors of the hypotheses, references and sources at the shipped heads' layer,
BERTScore P, R, F at every layer of each (hypothesis, reference) pair, and the shipped recipe's
leave-one-pair-out predictions (`metric.held_out`): what takes minutes to compute on a laptop's CPU. The files are named by the same hash `cached` looks them up by, so the
library finds them without being told. Run it again when the data, the model or the layer changes
(tests/test_learned.py recomputes a sample of each file and fails when they no longer agree),
then `python -m course_lib.learned.precompute ridge`: the shipped ridge metric's weights,
course_lib/resources/learned/ridge.json, fitted on those results (tests/test_learned_ridge.py
fits them afresh and compares).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from course_lib import paths
from course_lib.learned import cache


def compute_all() -> None:
    """Every shipped result, computed through the library's own cached functions."""
    from course_lib.evaluation.datasets import wmt16
    from course_lib.learned.baseline import bertscore_all_layers
    from course_lib.learned.features import pooled
    from course_lib.learned.metric import Recipe

    df, layer = wmt16(), Recipe().layer
    for column in ("mt", "ref", "src"):
        pooled(df[column].tolist(), layer)
    bertscore_all_layers(df.mt.tolist(), df.ref.tolist())
    held_out_heads()


def held_out_heads() -> None:
    """The shipped recipe's leave-one-pair-out heads on WMT16 (`metric.held_out`): six trainings,
    half a minute, which chapter 10 reads instead of waiting for them."""
    from course_lib.learned.metric import held_out

    held_out()
    held_out(without_shared_references=True)


def main() -> None:
    import sys

    if sys.argv[1:] == ["ridge"]:  # only the ridge metric's weights, from the shipped vectors (seconds)
        from course_lib.learned.ridge_metric import write_shipped

        print(write_shipped())
        return
    only_heads = sys.argv[1:] == ["held-out"]  # only the heads' held-out predictions (half a minute)
    target = cache.SHIPPED
    target.mkdir(parents=True, exist_ok=True)
    for old in target.glob("heads-held-out-*.pt" if only_heads else "*.pt"):  # else `cached` reads them back
        old.unlink()
    with tempfile.TemporaryDirectory() as folder:
        os.environ[paths.CACHE_ENV] = folder
        held_out_heads() if only_heads else compute_all()
        for made in sorted(Path(folder, "learned").glob("*.pt")):
            shutil.move(made, target / made.name)
            print(f"{target / made.name}  {(target / made.name).stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
