"""A metric learned from human judgments: COMET's estimator (Rei et al., 2020), built small.

    features    pooled vectors of a text (frozen course encoder, one layer), COMET's feature vector
    regressor   the feed-forward head, its training loop (MSE), ridge regression
    metric      train / save / load a head; score(sources, hypotheses, references) -> [N]
    evaluation  leave one language pair out; correlations with bootstrap intervals

Chapter 10 builds it step by step.
"""
from course_lib.learned.features import comet_features, pooled
from course_lib.learned.metric import Head, Recipe, check_texts, load_head, save_head, score, train
from course_lib.learned.regressor import regressor, train_loop

__all__ = ["score", "train", "Recipe", "Head", "load_head", "save_head", "comet_features", "pooled",
           "regressor", "train_loop", "check_texts"]
