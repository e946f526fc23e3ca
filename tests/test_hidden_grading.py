"""Value exercises of chapters 02 and 06-08 are graded on hidden data (issue 30), without nbgrader (01, 03 and 05 are
data, checks.exercise: their `hidden_data` is tested in tests/test_ch01_exercises.py, test_ch03_exercises.py and
test_ch05_exercises.py). For
each exercise, the solution's code (as the solution notebook writes it, on the data the chapter's module
gives) is run twice in fresh processes: in learning mode, where it computes the numbers the solution
notebooks publish -- what a hard-coder types -- and in grading mode ($COURSE_GRADING, a grading seed),
where it computes the right answer on the hidden data. In grading mode the right answer must pass and
the published one must fail (CheckFailed). Chapter 04 is covered by tests/test_nbgrader.py with
nbgrader's real commands; chapter 10's exercises are functions (10.2's random table and 10.3's cases are drawn
with the grading seed: tests/test_ch10_exercises.py). 6.3's threshold (its baselines too) is drawn with the
grading seed, 7.8's five WMT16 pairs and 8.1's language pairs and margins too (their answers: the swap's gaps, a
frame built for them); 2.5, 7.3 (its calls: tests/test_ch07_exercises.py), 7.4, 7.5, 7.7, 8.2 and 4.5 are functions,
checked on the checker's cases (7.4's on hidden WMT16 pairs, 8.2's random table drawn with the grading seed), and so
are 6.1, 6.2, 9.4 and 9.5 (their hidden cases: tests/test_ch06_exercises.py, tests/test_ch09_exercises.py); 6.4 is a
design task, checked on the student's answer.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The solution notebooks' code for each value exercise, run on the module's data of the current mode.
# Each `answer_X()` returns the positional arguments of check_X after the student's function (if any).
SOLUTIONS = r'''
import math

import numpy as np
import torch

import course_lib
from course_lib.bertscore.embeddings import tokens
from course_lib.model import load




def answer_6_3():
    from course_lib.bertscore import baseline as B
    from course_lib.course.checks import ch06

    data = ch06.halford()
    b = B.layer_baseline(ch06._bert_score_baseline("roberta-large"), 17)
    raw_P = {c["id"]: b[0].item() + (1 - b[0].item()) * c["published"]["P"] for c in data["candidates"]}
    return [[k for k, p in raw_P.items() if p >= ch06.THRESHOLD_6_3]]


def rescaled_f(p_hat, r_hat, b):
    p, r = b[0] + (1 - b[0]) * p_hat, b[1] + (1 - b[1]) * r_hat
    f = 2 * p * r / (p + r)
    return (f - b[2]) / (1 - b[2])


def answer_7_8():
    import bert_score

    from course_lib.bertscore.baseline import default_baseline_path
    from course_lib.course.checks import ch07
    from course_lib.model import embedded_model_path

    cands, refs = ch07.pairs_7_8({k: (True, True) for k in ('plain', 'idf', 'rescaled')})
    baseline = str(default_baseline_path(None))
    settings = {"plain": {}, "idf": {"idf": True},
                "rescaled": {"rescale_with_baseline": True, "lang": "en", "baseline_path": baseline}}
    gaps = {}
    for setting, options in settings.items():
        P, R, F = bert_score.score(cands, refs, model_type=str(embedded_model_path()), num_layers=4, **options)
        P2, _, F2 = bert_score.score(refs, cands, model_type=str(embedded_model_path()), num_layers=4, **options)
        gaps[setting] = [(P2 - R).abs().max().item(), (F2 - F).abs().max().item()]
    return [{"plain": [True, True], "idf": [False, False], "rescaled": [False, True]}, gaps]


def answer_8_1():
    from course_lib.course.checks import ch08

    task = ch08.task_8_1()  # the pairs and margins of this mode: a grading run draws others
    (first, second), n = task["pairs"], task["rows"]
    x = np.linspace(0.55, 0.65, n)
    noise = np.random.default_rng(0).normal(0.0, 0.1, 2 * n)
    return [{"lp": [first] * n + [second] * n, "metric": np.r_[x, x + 0.25].tolist(),
             "human": (np.r_[-8 * x + 4.0, -8 * x + 6.5] + noise).tolist()}]


def answer_8_4():
    from course_lib.course.checks import ch08
    from course_lib.lexical.rouge import rouge_l

    s, r = ch08.order_test_data()
    rev = [" ".join(ch08.sentences(t)[::-1]) for t in s]
    before, after = course_lib.score(s, r)[2], course_lib.score(rev, r)[2]
    f_drop = float(((before - after) / before).mean())
    rb = np.array([rouge_l(a, b).fmeasure for a, b in zip(s, r)])
    ra = np.array([rouge_l(a, b).fmeasure for a, b in zip(rev, r)])
    return ["ROUGE-L" if float(((rb - ra) / rb).mean()) > f_drop else "BERTScore F", f_drop]


def answer_8_5():
    from scipy import stats

    from course_lib.course.checks import ch08

    x, y = ch08.data_8_5()
    transforms = {"rescale": lambda v: (v - 0.36) / (1 - 0.36), "exp": np.exp, "square": np.square}
    tests = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}
    return [{name: sorted(c for c, fn in tests.items() if abs(fn(f(x), y).statistic - fn(x, y).statistic) < 1e-9)
             for name, f in transforms.items()}]


def cluster_interval(values, clusters, n_resamples=5000, seed=0):
    values, clusters = np.asarray(values, dtype=float), np.asarray(clusters)
    names = np.unique(clusters)
    rows_of = [np.flatnonzero(clusters == name) for name in names]
    rng = np.random.default_rng(seed)
    means = [values[np.concatenate([rows_of[k] for k in rng.integers(0, len(names), size=len(names))])].mean()
             for _ in range(n_resamples)]
    low, high = np.quantile(means, [0.025, 0.975])
    return float(low), float(high)


def answer_8_6():
    from course_lib.course.checks import ch08

    df = ch08.data_8_6()
    a, b = cluster_interval(df["human"], df["src"]), cluster_interval(df["human"], np.arange(len(df)))
    return [(a[1] - a[0]) / (b[1] - b[0])]


FUNCTIONS = {"8.6": cluster_interval, "6.3": rescaled_f}  # the student's function, passed before the values
'''

RUN = r'''
import importlib, json, os, sys
exec(compile(open(sys.argv[1]).read(), "solutions", "exec"))
exercises = sys.argv[2].split(",")
if os.environ.get("COURSE_GRADING"):
    from course_lib.course.checks import CheckFailed
    published = json.loads(open(sys.argv[3]).read())
    out = {}
    for ex in exercises:
        chapter, _ = ex.split(".")
        module = importlib.import_module(f"course_lib.course.checks.ch{int(chapter):02d}")
        check = getattr(module, "check_" + ex.replace(".", "_"))
        head = [FUNCTIONS[ex]] if ex in FUNCTIONS else []
        right = check(*head, *globals()["answer_" + ex.replace(".", "_")]())
        try:
            check(*head, *published[ex])
            copied = "passed"
        except CheckFailed:
            copied = "failed"
        out[ex] = {"right": right, "copied": copied}
    print(json.dumps(out))
else:
    print(json.dumps({ex: globals()["answer_" + ex.replace(".", "_")]() for ex in exercises}))
'''

CHAPTERS = {"06": ["6.3"], "07a": ["7.8"],
            "08": ["8.1", "8.4", "8.5", "8.6"]}


def _run(tmp_path, exercises, env_extra, published=None):
    solutions, script = tmp_path / "solutions.py", tmp_path / "run.py"
    solutions.write_text(SOLUTIONS)
    script.write_text(RUN)
    args = [sys.executable, str(script), str(solutions), ",".join(exercises)]
    if published is not None:
        (tmp_path / "published.json").write_text(json.dumps(published))
        args.append(str(tmp_path / "published.json"))
    env = {k: v for k, v in os.environ.items() if k not in ("COURSE_GRADING", "COURSE_GRADING_SEED",
                                                              "COURSE_CHECK_RESULTS", "COURSE_HINT")}
    env.update(env_extra)
    env["COURSE_CACHE"] = str(tmp_path / "cache")  # no attempts file of the user's is read or written
    out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_value_exercises_grade_the_code_on_hidden_data_not_the_published_numbers(chapter, tmp_path):
    exercises = CHAPTERS[chapter]
    published = _run(tmp_path, exercises, {})  # what a hard-coder copies from the solutions
    grades = _run(tmp_path, exercises, {"COURSE_GRADING": "1", "COURSE_GRADING_SEED": "1"}, published)
    for ex in exercises:
        assert grades[ex] == {"right": True, "copied": "failed"}, (ex, grades[ex], published[ex])
