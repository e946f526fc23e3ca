"""Choosing a layer on human judgments, and what choosing it on the same data costs (chapter 08, §1.3).

A table [language pairs, layers] holds one correlation (Pearson r of F with the human scores) per pair and
layer. The paper's choice takes the layer with the highest mean over the pairs; that mean has seen every
number it reports, so it is optimistic. Leave one pair out instead: choose the layer on the mean of the
*other* pairs and report the held-out pair's own r at that layer. The mean of those held-out values
estimates what the choice gives on a pair it was not chosen on.
"""
from __future__ import annotations

import pandas as pd


def best_layer(means: pd.Series):
    """The label of the largest value of `means` [layers]; a tie goes to the lower layer (the cheaper one:
    fewer transformer layers to run). Labels are returned as they are (not positions)."""
    top = means.max()
    return min(label for label, value in means.items() if value == top)


def leave_one_pair_out(table: pd.DataFrame) -> pd.DataFrame:
    """table [pairs, layers] -> DataFrame [pairs, ("layer", "r")]: for each pair (row), the layer chosen
    by the mean of the other rows (`best_layer`) and the pair's own r at that layer."""
    rows = {}
    for pair in table.index:
        layer = best_layer(table.drop(index=pair).mean(axis=0))
        rows[pair] = {"layer": layer, "r": float(table.loc[pair, layer])}
    return pd.DataFrame.from_dict(rows, orient="index")
