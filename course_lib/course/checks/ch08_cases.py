"""Chapter 08's cases for exercises 8.1 and 8.2: the task of 8.1 (two language pairs, thresholds; drawn with the
grading seed in grading mode) and the judge of a student's frame, the layer tables of 8.2 with what each common
slip returns, by the mistake's name (for the hint that names it). `checks.ch08` imports these."""
from __future__ import annotations

import numpy as np
import pandas as pd

from course_lib.evaluation.layer_choice import best_layer, leave_one_pair_out

from . import grading, hidden_rng

# ---------------------------------------------------------------- 8.1: a metric that only looks good pooled

PAIRS = ("cs-en", "de-en", "fi-en", "ro-en", "ru-en", "tr-en", "lv-en", "zh-en", "et-en", "kk-en")


def task_8_1() -> dict:
    """What exercise 8.1 asks for: two language pairs (`pairs`), at least `rows` rows in each, Pearson r below
    `within_below` inside each pair and above `pooled_above` over both pooled. In grading mode, other pairs
    and thresholds, drawn with the grading seed (a frame copied from the solutions names the wrong pairs)."""
    if not grading():
        return {"pairs": ("de-en", "fi-en"), "rows": 8, "within_below": -0.3, "pooled_above": 0.6}
    rng = hidden_rng("8.1")
    pairs = tuple(rng.sample([p for p in PAIRS if p not in ("de-en", "fi-en")], 2))
    return {"pairs": pairs, "rows": rng.choice([6, 8, 10]), "within_below": rng.choice([-0.2, -0.3, -0.5]),
            "pooled_above": rng.choice([0.5, 0.6, 0.7])}


def _numbers(df: pd.DataFrame, column: str) -> np.ndarray:
    values = df[column]
    if any(isinstance(v, (str, bytes)) for v in values):
        raise AssertionError(f"column {column!r} holds text ({values.iloc[0]!r}, ...): numbers written as strings "
                             "are not numbers to pandas; use floats")
    values = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    if np.isnan(values).any():
        raise AssertionError(f"column {column!r} has NaN in {int(np.isnan(values).sum())} rows: pandas' corr skips "
                             "such rows silently, so the r you saw was computed on fewer rows; give every row both "
                             "scores")
    return values


def judge_8_1(answer, task: dict) -> dict:
    """Assert that `answer` (a DataFrame, or a dict of columns) meets `task`; return the correlations found:
    {pair: within-pair r, "pooled": r over all rows}. Each failed assertion names the mistake."""
    assert isinstance(answer, (pd.DataFrame, dict)), (
        f"df_8_1 is a {type(answer).__name__}: build a pandas DataFrame with the columns lp, metric, human")
    df = pd.DataFrame(answer)
    missing = [c for c in ("lp", "metric", "human") if c not in df.columns]
    assert not missing, f"df_8_1 lacks the column(s) {missing}: it needs lp, metric and human"
    metric, human, lp = _numbers(df, "metric"), _numbers(df, "human"), df["lp"].astype(str).to_numpy()
    want = set(task["pairs"])
    assert set(lp) == want, (f"the lp column holds {sorted(set(lp))}; the task asks for exactly the two pairs "
                             f"{sorted(want)}: read them from ch08.task_8_1()['pairs'], do not type them")
    assert ((metric >= 0) & (metric <= 1)).all(), (
        f"metric has values outside [0, 1] (from {metric.min():.2f} to {metric.max():.2f}): a BERTScore F lies "
        "between 0 and 1 here; shrink the metric's spread inside each pair, and the gap between the pairs with it")
    found = {}
    for pair in task["pairs"]:
        inside = lp == pair
        assert inside.sum() >= task["rows"], (
            f"{pair} has {int(inside.sum())} rows; the task asks for at least {task['rows']}: with two points r is "
            "always +1 or -1, which says nothing about a metric")
        for name, values in (("metric", metric), ("human", human)):
            assert np.ptp(values[inside]) > 0, (f"inside {pair} every {name} score is the same: r is undefined "
                                                "(NaN) when one of the two lists does not vary")
        found[pair] = float(np.corrcoef(metric[inside], human[inside])[0, 1])
    found["pooled"] = float(np.corrcoef(metric, human)[0, 1])
    for pair in task["pairs"]:
        r = found[pair]
        assert r < 0 or r < task["within_below"], (
            f"inside {pair} the metric and the humans go up together (r = {r:.2f}): a good metric, which pooling "
            "would only confirm; the trap needs each pair's points falling, a higher metric score with a lower human "
            "score")
        assert r < task["within_below"], (f"inside {pair} r = {r:.2f}, not below {task['within_below']}: make the "
                                          "metric's order inside the pair more clearly the reverse of the humans'")
    if found["pooled"] <= task["pooled_above"]:
        a, b = (lp == p for p in task["pairs"])
        d_metric, d_human = metric[b].mean() - metric[a].mean(), human[b].mean() - human[a].mean()
        spread = np.sqrt((metric[a].var() + metric[b].var()) / 2)
        if d_metric * d_human < 0 and abs(d_metric) > spread:
            raise AssertionError(
                f"pooled r = {found['pooled']:.2f}: the pair with the higher mean metric score has the lower mean "
                "human score, so pooling adds a falling trend; shift one pair's metric and human scores up together")
        raise AssertionError(
            f"pooled r = {found['pooled']:.2f}, not above {task['pooled_above']}: inside each pair your frame is "
            "right, but pooling sees little besides that spread; the pairs must differ, in mean metric and in mean "
            "human score together, by much more than the scores spread inside each pair")
    return found


# ---------------------------------------------------------------- 8.2: choose the layer on the other pairs

def layer_tables_8_2() -> list[tuple[str, pd.DataFrame]]:
    """(what the case tests, table [pairs, layers] of Pearson r) for 8.2; the random table is drawn with the
    grading seed in grading mode. Values of the tie case are multiples of 1/64, so every way of averaging
    gives exactly equal means."""
    rng = np.random.default_rng(hidden_rng("8.2").getrandbits(32) if grading() else 82)
    pairs = ["cs-en", "de-en", "fi-en", "ro-en", "ru-en", "tr-en"]
    # multiples of 1/1024: every way of averaging them gives exactly the same means (a tie is a tie)
    random_table = pd.DataFrame(rng.integers(410, 717, size=(6, 7)) / 1024, index=pairs, columns=range(7))
    # layer 3 wins on the mean, pulled up by cs-en alone: without cs-en, layer 2 wins; each pair's own best differs
    traps = pd.DataFrame([[0.40, 0.50, 0.60, 0.90, 0.55, 0.60, 0.50],
                          [0.40, 0.66, 0.60, 0.60, 0.55, 0.64, 0.50],
                          [0.40, 0.10, 0.70, 0.60, 0.55, 0.63, 0.50],
                          [0.40, 0.10, 0.60, 0.58, 0.55, 0.62, 0.71]], index=pairs[:4], columns=range(7))
    labels = pd.DataFrame([[0.50, 0.61, 0.58, 0.52], [0.49, 0.60, 0.64, 0.50], [0.51, 0.58, 0.57, 0.66]],
                          index=["xx-en", "yy-en", "zz-en"], columns=[2, 4, 6, 8])[[8, 2, 6, 4]]
    ties = pd.DataFrame(np.array([[40, 24, 16], [24, 40, 16], [16, 16, 56]]) / 64, index=["aa-en", "bb-en", "cc-en"],
                        columns=[6, 3, 4])  # without cc-en, layers 6 and 3 tie: the lower one, 3
    two = pd.DataFrame([[0.30, 0.70, 0.50], [0.60, 0.40, 0.55]], index=["de-en", "ro-en"], columns=[1, 2, 3])
    return [("6 pairs x layers 0-6 (random values)", random_table),
            ("4 pairs x layers 0-6, where leaving a pair out changes the choice", traps),
            ("3 pairs x layers 8, 2, 6, 4 (labels are not positions, columns not in order)", labels),
            ("3 pairs x layers 6, 3, 4, with a tie between layers 6 and 3 once cc-en is left out", ties),
            ("2 pairs: each pair's layer is the other pair's best", two)]


def _with_layers(table: pd.DataFrame, layers: dict, others: bool = False) -> pd.DataFrame:
    """{pair: chosen label} -> the DataFrame [pairs, (layer, r)] with the pair's own r there (or, `others`,
    the other pairs' mean r there)."""
    rows = {p: {"layer": k, "r": float(table.drop(index=p)[k].mean() if others else table.loc[p, k])}
            for p, k in layers.items()}
    return pd.DataFrame.from_dict(rows, orient="index")


def slips_8_2(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """What the common slips of 8.2 return on `table`, by the mistake's name."""
    right = leave_one_pair_out(table)
    position = {p: list(table.columns).index(k) for p, k in right["layer"].items()}
    return {"in-sample": _with_layers(table, {p: best_layer(table.mean(axis=0)) for p in table.index}),
            "own best": _with_layers(table, {p: best_layer(table.loc[p]) for p in table.index}),
            "others' r": _with_layers(table, dict(right["layer"]), others=True),
            "column order": _with_layers(table, {p: table.drop(index=p).mean(axis=0).idxmax() for p in table.index}),
            "position": pd.DataFrame({"layer": position, "r": right["r"]})}


SLIP_HINTS_8_2 = {
    "in-sample": "you chose the layer on the mean of all pairs, the held-out pair included: that is the in-sample "
                 "choice whose optimism this exercise measures. Leave the pair's own row out before you average",
    "own best": "you chose each pair's layer by that pair's own r: the most in-sample choice there is (each pair "
                "reports its own maximum). Choose by the other pairs' mean",
    "others' r": "your r is the other pairs' mean r at the chosen layer; report the held-out pair's own r there, "
                 "the number the choice never saw",
    "column order": "on a tie between two layers' means the rule takes the lower layer; idxmax takes the first "
                    "column, which in this table is not the lower layer",
    "position": "you return column positions; a layer is the column's label (here the labels are not 0, 1, 2, ...)",
}


def _same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """The same layer and (to 1e-9) the same r for every pair."""
    return all(a.loc[p, "layer"] == b.loc[p, "layer"] and abs(a.loc[p, "r"] - b.loc[p, "r"]) < 1e-9 for p in a.index)


def judge_8_2(got, table: pd.DataFrame, case: str) -> None:
    """Assert that `got` is leave_one_pair_out(table); a failure names the slip it matches."""
    assert isinstance(got, pd.DataFrame), (
        f"you return a {type(got).__name__}: return a DataFrame with the columns layer and r, one row per pair")
    assert {"layer", "r"} <= set(got.columns), f"{case}: the columns should be layer and r, yours {list(got.columns)}"
    assert set(map(str, got.index)) == set(table.index), (
        f"{case}: the index should be the table's pairs {list(table.index)}, yours {list(got.index)[:6]}")
    got = got.set_axis([str(p) for p in got.index])
    assert not any(isinstance(k, str) for k in got["layer"]), (
        f"{case}: your layers are text ({got['layer'].iloc[0]!r}): return the column labels as they are")
    r = pd.to_numeric(got["r"], errors="coerce")
    assert not r.isna().any(), (f"{case}: r is NaN for {list(r.index[r.isna()])}: r is the table's cell at (the "
                                "pair, the chosen layer); read it by label, table.loc[pair, layer]")
    right = leave_one_pair_out(table)
    mine = pd.DataFrame({"layer": got["layer"], "r": r})
    if _same(right, mine):
        return
    for slip, wrong in slips_8_2(table).items():
        if not _same(wrong, right) and _same(wrong, mine):
            raise AssertionError(f"{case}: {SLIP_HINTS_8_2[slip]}")
    pair = next(p for p in right.index if got.loc[p, "layer"] != right.loc[p, "layer"]
                or abs(r[p] - right.loc[p, "r"]) >= 1e-9)
    raise AssertionError(f"{case}: for {pair} you return layer {got.loc[pair, 'layer']}, r = {r[pair]:.3f}; the "
                         f"other pairs' mean is highest at layer {right.loc[pair, 'layer']}, where {pair}'s own r is "
                         f"{right.loc[pair, 'r']:.3f}")
