"""Metrics learned from human judgments (chapter 10).

    ridge_metric  the shipped one: BERTScore P/R/F at every layer, chrF, length ratio, F4², re-weighed
                  by ridge regression on WMT16 DA (α chosen inside the training pairs)
    features      pooled vectors of a text (frozen course encoder, one layer), COMET's feature vector
    regressor     the feed-forward head, its training loop (MSE), ridge regression
    metric        score(sources, hypotheses, references) -> [N] (the ridge metric; head= a pooled
                  COMET-style head); train / save / load a head
    evaluation    leave one language pair out; correlations with bootstrap intervals

Chapter 10 builds it step by step.
"""
from course_lib.learned.features import comet_features, pooled
from course_lib.learned.metric import (Head, Recipe, check_texts, load_head, load_ridge, save_head, score,
                                      score_head, train)
from course_lib.learned.regressor import regressor, train_loop

__all__ = ["score", "train", "Recipe", "Head", "load_head", "save_head", "comet_features", "pooled",
           "regressor", "train_loop", "check_texts", "load_ridge", "score_head"]
