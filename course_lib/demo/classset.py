"""The class view's logic: many answers to one question, ranked by BERTScore and by BLEU."""
from __future__ import annotations

import pandas as pd
import torch

from course_lib.bertscore.baseline import rescale
from course_lib.demo.presets import CLASS_SET
from course_lib.demo.inputs import InputProblem, baseline_for, check_layer
from course_lib.demo.scoring import checked_text, encoded_many, escape, pair_view, torch_threads
from course_lib.lexical.bleu import sentence_bleu
from course_lib.lexical.rouge import rouge_l

UNLABELLED = "edited (no label)"  # an answer whose text is not one of the labelled ones
LABEL_COLORS = {"right": "#2a9d8f", "wrong": "#e76f51", "garbled": "#e9c46a", "no answer": "#8d99ae",
                UNLABELLED: "#b0b0b0"}


def rank_answers(answers: list[str], reference: str, labels: list[str] | None = None,
                 layer: int | None = None, rescale_with_baseline: bool = True) -> pd.DataFrame:
    """Score every answer against one reference; rank by BERTScore F and by BLEU.

    Returns a DataFrame sorted by BERTScore F (best first) with columns answer, [label],
    BERTScore P, R, F (rescaled by default; equal to `course_lib.score(answers, [reference] * n,
    num_layers=layer, rescale_with_baseline=...)`), BLEU (0-100), ROUGE-L F, rank BERTScore (by
    F), rank BLEU (1 = best; ties share the best rank). Scored through the demo's cache of texts
    (`course_lib.demo.scoring.pair_view`): the reference is embedded once, not once per answer,
    and ranking again after an edit embeds only the texts not seen before.
    """
    answers = [checked_text(a, f"answer {i + 1}") for i, a in enumerate(answers)]
    if not answers:
        raise InputProblem("There are no answers to rank: type one answer per line.")
    reference = checked_text(reference, "reference")
    layer = check_layer(layer)
    encoded_many([reference, *answers])  # each text embedded once, cached: after an edit, only new texts
    with torch_threads(1):
        raw = torch.tensor([(v.P, v.R, v.F) for v in (pair_view(a, reference, layer, None) for a in answers)])
        P, R, F = (rescale(raw, baseline_for(layer)) if rescale_with_baseline else raw).T
    df = pd.DataFrame({"answer": answers})
    if labels is not None:
        if len(labels) != len(answers):
            raise ValueError(f"{len(labels)} labels for {len(answers)} answers")
        df["label"] = list(labels)
    df["BERTScore P"] = P.tolist()
    df["BERTScore R"] = R.tolist()
    df["BERTScore F"] = F.tolist()
    df["BLEU"] = [sentence_bleu(a, reference) for a in answers]
    df["ROUGE-L F"] = [rouge_l(a, reference).fmeasure for a in answers]
    df["rank BERTScore"] = df["BERTScore F"].rank(ascending=False, method="min").astype(int)
    df["rank BLEU"] = df["BLEU"].rank(ascending=False, method="min").astype(int)
    df = df.sort_values(["rank BERTScore", "rank BLEU"], kind="stable").reset_index(drop=True)
    df.attrs["rescaled"] = bool(rescale_with_baseline)
    return df


def class_set_table() -> pd.DataFrame:
    """`rank_answers` on the course's ten answers about Rob Halford."""
    answers, labels = zip(*CLASS_SET["answers"])
    return rank_answers(list(answers), CLASS_SET["reference"], list(labels))


def labels_for(answers: list[str], known: dict[str, str]) -> list[str]:
    """The label of each answer; an answer edited away from every labelled text is UNLABELLED."""
    return [known.get(a.strip(), UNLABELLED) for a in answers]


ANSWER_CHARS = 44  # an answer's first characters in the class table: one line each, ten rows on one screen at 125%


def short(text: str, n: int = 48) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def ranking_chart(df: pd.DataFrame, fig=None, title: str | None = None):
    """Two bar panels over the same answers (ordered by BERTScore F): BERTScore F and BLEU.

    Bars are coloured by `label` when the table has one. Returns the matplotlib figure.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if fig is None:
        fig = plt.figure(figsize=(10, 0.42 * len(df) + 1.6))
    axes = fig.subplots(1, 2, sharey=True)
    names = [f"{i + 1}. {short(a)}" for i, a in enumerate(df["answer"])]
    labels = df["label"] if "label" in df else ["answer"] * len(df)
    colors = [LABEL_COLORS.get(l, "#4c72b0") for l in labels]
    y = list(range(len(df)))
    for ax, column in zip(axes, ["BERTScore F", "BLEU"]):
        ax.barh(y, df[column], color=colors)
        note = {"BLEU": " (0–100)", "BERTScore F": " (rescaled)" if df.attrs.get("rescaled") else ""}
        ax.set_xlabel(column + note[column])
        for yi, (v, r) in enumerate(zip(df[column], df[f"rank {column.split()[0]}"])):
            ax.text(v, yi, f" #{r}", va="center", fontsize=8)
        ax.margins(x=0.15)
    axes[0].set_yticks(y, names, fontsize=8)
    axes[0].invert_yaxis()
    if "label" in df:
        present = [l for l in LABEL_COLORS if l in set(labels)]
        axes[1].legend(handles=[Patch(color=LABEL_COLORS[l], label=l) for l in present],
                       loc="lower right", fontsize=8)
    fig.suptitle(title or "Answers ranked by BERTScore F (left); the same answers' BLEU (right)")
    fig.tight_layout()
    return fig


def ranking_html(df: pd.DataFrame) -> str:
    """The ranking as one HTML table with inline bars (the class view's picture: instant to draw)."""
    f_top = max(float(df["BERTScore F"].abs().max()), 1e-9)
    rows = []
    for i, row in df.iterrows():
        label = row.get("label", "")
        color = LABEL_COLORS.get(label, "#4c72b0")
        f, b = float(row["BERTScore F"]), float(row["BLEU"])
        rows.append(
            f"<tr><td>{i + 1}</td><td class='answer' title='{escape(row['answer'])}'>"
            f"{escape(short(row['answer'], ANSWER_CHARS))}</td>"
            f"<td class='label' style='color:{color};font-weight:600'>{escape(label)}</td>"
            f"<td>{row['BERTScore P']:.3f}</td><td>{row['BERTScore R']:.3f}</td>"
            f"<td style='text-align:left'><span class='bar' style='width:{max(0.0, f) / f_top * 90:.0f}px;"
            f"background:{color}'></span> {f:.3f}</td>"
            f"<td style='text-align:left'><span class='bar' style='width:{b * 0.9:.0f}px;background:{color}'>"
            f"</span> {b:.1f} (#{row['rank BLEU']})</td></tr>")
    kind = "rescaled" if df.attrs.get("rescaled") else "raw"
    note = (RESCALED_NOTE if kind == "rescaled" else
            "BERTScore P, R and F raw, as in the pair tab with its rescaling box unticked.")
    return (f"<table class='bsd-rank'><tr><th>#</th><th>answer</th><th>label</th><th>P</th><th>R</th>"
            f"<th>BERTScore F ({kind})</th><th>BLEU 0–100 (rank)</th></tr>{''.join(rows)}"
            f"</table><div class='bsd-note'>{escape(note)}</div>")


# what a student asks on seeing the class tab beside the pair tab
RESCALED_NOTE = ("BERTScore P, R and F rescaled with the baseline, each on its own (as bert-score's "
                 "rescale_with_baseline does): so this F is not the harmonic mean of the P and R shown, and it "
                 "is lower than the raw F the pair tab shows unless its 'rescale with baseline' box is ticked.")
