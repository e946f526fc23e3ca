"""What swapping candidates and references does to `bert-score`'s P, R and F under each setting, and why.

Chapter 04 showed that swapping a candidate and its reference swaps P and R. Chapter 07a's exercise 7.8 asks the
student to predict whether that survives `idf=True` and baseline rescaling, then to run it. The reasons live here,
once: the exercise's check quotes them for a prediction the run contradicts (`WHY`), and the cell after the
exercise prints them next to the student's own run (`explain_swap`), so the notebook states no result before the
student has run it.
"""
from __future__ import annotations

import textwrap

SETTINGS = ("plain", "idf", "rescaled")
SAME = 1e-6  # a gap below this is "the same" (float32 noise is about 1e-7)

# (setting, "P" or "F", the wrong prediction: True = "the same") -> why the run says otherwise
WHY = {
    ("plain", "P", False): "without idf or rescaling every token weighs the same and greedy matching is symmetric: "
                           "the swapped candidate's P is the original reference's R, exactly (chapter 04)",
    ("plain", "F", False): "F = 2PR / (P + R) does not change when P and R trade places",
    ("idf", "P", True): "bert_score.score(..., idf=True) computes the idf weights from `refs`; after the swap they "
                        "come from the former candidates: other weights, so other P and R",
    ("idf", "F", True): "the idf weights come from `refs`, so after the swap from other texts: P and R change by "
                        "different amounts, and F with them",
    ("rescaled", "P", True): "rescaling uses the baseline b_P for P and b_R for R (the baseline file has one column "
                             "per score): the swapped P is the original raw R rescaled with P's baseline, not R's",
    ("rescaled", "F", False): "raw F is the same both ways, and F is rescaled with b_F both times: it does not change",
}
TRUTH = {name: tuple(not wrong for (of, _, wrong) in WHY if of == name) for name in SETTINGS}  # what WHY explains


def _shown(gap: float) -> str:
    return "< 1e-6" if gap < SAME else f"{gap:.2g}"  # below 1e-6: float noise, machine-dependent


def explain_swap(gaps: dict, baseline: tuple[float, float, float], layer: int) -> str:
    """The run of exercise 7.8 explained: `gaps` {setting: (max |swapped P - R|, max |swapped F - F|)} and the
    baseline file's (b_P, b_R, b_F) at `layer`. Raises AssertionError if the run does not show what the reasons
    explain (plain swaps exactly; idf moves P and F by hundredths; rescaling moves P by about |b_P - b_R| scaled,
    F not at all), so a notebook that prints this cannot print a reason its run contradicts."""
    b_P, b_R, b_F = baseline
    for name in SETTINGS:
        seen = tuple(gap < SAME for gap in gaps[name])
        assert seen == TRUTH[name], f"{name}: the run shows {seen}, the reasons below explain {TRUTH[name]}"
    assert min(gaps["idf"]) > 0.01 and 1e-5 < gaps["rescaled"][0] < 1e-3 and 0 < abs(b_P - b_R) < 1e-3
    lines = [f"baseline file at layer {layer}: b_P = {b_P:.4f}, b_R = {b_R:.4f}, b_F = {b_F:.4f}", ""]
    for name in SETTINGS:
        gap_P, gap_F = gaps[name]
        lines.append(f"{name:9s} |swapped P - R| {_shown(gap_P):>8s}   |swapped F - F| {_shown(gap_F):>8s}")
        for part, same in zip("PF", TRUTH[name]):
            lines.append(textwrap.fill(f"{part} {'stays' if same else 'moves'}: {WHY[(name, part, not same)]}",
                                       width=110, initial_indent="    ", subsequent_indent="      "))
    lines += ["", textwrap.fill(
        f"Rescaled P moves by less than 0.001 because b_P and b_R differ by only {abs(b_P - b_R):.1e} at layer "
        f"{layer}. Only idf and rescaling know which side a text is on; with idf, which texts are the references is "
        "part of the setting: scoring (refs, cands) is another measurement, and a report should say which side was "
        "which.", width=110)]
    return "\n".join(lines)
