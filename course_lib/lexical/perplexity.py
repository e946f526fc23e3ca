"""Perplexity of a language model on one text, from the probabilities of its tokens.

If the model gave the observed tokens probabilities p_1, ..., p_T, then

    perplexity = exp( -(1/T) * sum_t log p_t )  =  ( prod_t p_t ) ** (-1/T)

the inverse geometric mean of the probabilities: 1 for a model that was sure
of every token, k for a model that hesitated as if choosing among k equally
likely tokens at each step. Lower is better. It measures the model, not a
candidate against a reference: no reference text is involved.
"""

import math


def perplexity(token_probs) -> float:
    """exp(-mean(log p)) over the probabilities the model gave each token.

    token_probs: sequence of T floats, each in (0, 1].

    >>> round(perplexity([0.99, 0.85, 0.89, 0.99, 0.99, 0.99, 0.99, 0.99]), 3)
    1.043
    """
    probs = list(token_probs)
    if not probs:
        raise ValueError("perplexity needs at least one token probability")
    if any(not 0 < p <= 1 for p in probs):
        raise ValueError("token probabilities must lie in (0, 1]")
    mean_log_prob = sum(math.log(p) for p in probs) / len(probs)
    return math.exp(-mean_log_prob)
