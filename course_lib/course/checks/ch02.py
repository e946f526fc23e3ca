"""Chapter 02's exercises as data (from symbols to vectors): each compared with course_lib's similarity module and
the embedded model on cases drawn when the check runs. `SENSE_PAIRS` is the chapter's data: the published words
here, others drawn with the grading secret in nbgrader's runs (`hidden_data`)."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import torch

from course_lib.caching import cached
from course_lib.model import DEFAULT_LAYER

from . import ForbiddenCall
from .assemble import chapter_data, checkers
from .exercise import Exercise, Function, Mismatch, Slip, Value
from .ch02_cases import (  # noqa: F401 - what the exercises below are made of
    _tokenizer, _tokens, LOOP_ROWS, _rows, _matrix_cases, _cosines, _no_row_loop,
    _same_cosines, _unit_rows, _real_batch, _pooling_cases, _max_pool, _same_pooled, _m, SEVERAL_PIECES, ONE_PIECE,
    _word_cases, _batch, _start, _word_vectors, _cos, _word_cosine, _mean_of_cosines, _same_cosine,
    _cosines_by_layer, _at, _separated, _close, _same_separated, _CAT_PREFIXES,
    _CAT_SUFFIXES, _cat_cases, _cat_at, _twins_kind, _twins_right, _same_twins)


PUBLISHED = {
    # 2.4: words with two senses, never shown in the chapter: word -> (a sentence of one sense, one of the other)
    "SENSE_PAIRS": {
        "bat": ("A bat flew out of the dark cave.", "He hit the ball hard with his bat."),
        "spring": ("The flowers bloom every spring.", "The old mattress had a broken spring inside."),
        "crane": ("A white crane stood in the shallow lake.", "The crane lifted steel beams onto the roof."),
        "pitch": ("The players ran onto the muddy pitch.", "She sang the note at a perfect pitch."),
        "watch": ("I watch the news every evening.", "My watch stopped at midnight."),
        "bark": ("The dog started to bark at night.", "The bark of the old oak tree was rough."),
    },
}


# grading: words with two senses that no release prints (2.4 draws six of them, as many as the published ones)
_HIDDEN_SENSES = {
    "bank": ("We sat on the grassy bank of the river.", "She opened an account at the bank."),
    "seal": ("A seal swam past the fishing boat.", "Break the seal before you open the jar."),
    "match": ("He struck a match to light the candle.", "The match ended in a draw."),
    "trunk": ("The elephant lifted its trunk.", "Put the suitcase in the trunk of the car."),
    "rock": ("She climbed the huge rock by the sea.", "They listened to loud rock all night."),
    "fan": ("Turn on the fan, it is hot.", "He is a big fan of that team."),
    "light": ("The box was light enough to carry.", "Switch off the light before you leave."),
    "ring": ("She wore a gold ring on her finger.", "I heard the phone ring twice."),
    "bow": ("The violinist picked up her bow.", "The actors took a bow at the end."),
    "pen": ("The pigs were kept in a muddy pen.", "Sign the form with a blue pen."),
}


__getattr__ = chapter_data(PUBLISHED)


def hidden_data(rng) -> dict:
    """Other data of the same kind, for grading: six words of `_HIDDEN_SENSES` (none of the published ones)."""
    return {"SENSE_PAIRS": {w: _HIDDEN_SENSES[w] for w in rng.sample(sorted(_HIDDEN_SENSES), 6)}}


def _most_separated_word(layer: int = DEFAULT_LAYER, senses=None) -> str:
    """The word of `senses` (the published SENSE_PAIRS) whose two senses have the lowest cosine at `layer`."""
    cosines = _at(PUBLISHED["SENSE_PAIRS"] if senses is None else senses, layer)
    return min(cosines, key=cosines.get)



EX_2_1 = Exercise(
    "2.1", chapter="02",
    idea="a cosine is the dot product of two vectors divided by both their lengths: it does not change when a "
         "vector is made longer. Every row needs its own length; then one matrix product gives all n x m values.",
    answers=[Function("pairwise_cosines", _matrix_cases, _cosines, _same_cosines,
                      forbid=("course_lib.bertscore.similarity",), wrap=_no_row_loop, slips=[
        Slip("dot products", lambda a, b: a @ b.T,
             "you return the dot products, which grow with the vectors' lengths (a row times 5 gives 5 times the "
             "value); a cosine divides by both lengths"),
        Slip("dim 0", lambda a, b: _unit_rows(a, 0) @ _unit_rows(b, 0).T,
             "you divided along dim 0, by each *column's* length (a coordinate over all the vectors); each row is one "
             "vector and needs its own length (the last dimension)"),
        Slip("a only", lambda a, b: _unit_rows(a) @ b.T,
             "you scaled the rows of one input only: both a and b need their rows scaled to length 1"),
        Slip("b only", lambda a, b: a @ _unit_rows(b).T,
             "you scaled the rows of one input only: both a and b need their rows scaled to length 1"),
        Slip("whole norms", lambda a, b: a @ b.T / (a.norm() * b.norm()),
             "you divided by the length of each whole matrix: every row is a vector of its own and needs its own "
             "length")])],
    after="The library's version: `normalize` and `cosine_matrix` in course_lib.bertscore.similarity (shown below).")


EX_2_2 = Exercise(
    "2.2", chapter="02",
    idea="the maximum must run over a sentence's real tokens only: padding must never win it, neither with its own "
         "values nor with whatever value you put in its place, and a sentence's real values may all be negative.",
    answers=[Function("masked_max_pool", _pooling_cases, _max_pool, _same_pooled, slips=[
        Slip("padding included", lambda emb, mask: emb.max(dim=1).values,
             "you take the maximum over every position, padding included: a padding position holding a large value "
             "wins. Use the mask"),
        Slip("multiplied", lambda emb, mask: (emb * _m(emb, mask)).max(dim=1).values,
             "you multiplied by the mask: padding becomes 0, and 0 beats a sentence whose real values are all "
             "negative (the mean ignores a 0 in the sum; the maximum picks it)"),
        Slip("inverted", lambda emb, mask: emb.masked_fill(mask.bool().unsqueeze(-1), float("-inf")).max(dim=1).values,
             "you filled the real tokens and kept the padding: the mask is 1 (True) on a sentence's real tokens, so "
             "it is where the mask is 0 that -inf belongs"),
        Slip("mean", lambda emb, mask: (emb * _m(emb, mask)).sum(dim=1) / _m(emb, mask).sum(dim=1),
             "you return the mean of the real tokens; max pooling keeps each dimension's largest real value")])],
    after="course_lib.engine.pooling has the mean pooling of section 5 (`mean_pool`); Sentence-BERT's max pooling is "
          "yours.")


EX_2_3 = Exercise(
    "2.3", chapter="02",
    idea="a word can be several WordPiece tokens (tokenizer.tokenize(word)), at a different position in each "
         "sentence: find its run of pieces in each sentence's own token list, average their vectors at the given "
         "layer, then take the cosine.",
    answers=[Function("word_cosine", _word_cases, _word_cosine, _same_cosine, slips=[
        Slip("first piece", lambda a, b, w, layer: _cos(*(v.mean(dim=0) for v in _word_vectors(a, b, w, layer, True))),
             "you took the vector of the word's first piece only: a word of several pieces has the mean of all its "
             "pieces' vectors"),
        Slip("one position", lambda a, b, w, layer: _cos(*(v.mean(dim=0) for v in
                                                           _word_vectors(a, b, w, layer, same_start=True))),
             "you took the word's position in sentence_a for sentence_b too: find it in each sentence's own tokens"),
        Slip("mean of cosines", _mean_of_cosines,
             "you averaged the cosines of the pieces, one by one: average the pieces' vectors first, then take one "
             "cosine")])],
    after="Section 3's `contextual.word_cosine_by_layer` is the one-token version.")


EX_2_4 = Exercise(
    "2.4", chapter="02",
    idea="context separates the senses most where the two vectors are *least* similar: measure each word's cosine at "
         "layer 4 (guessing from the meanings is not enough).",
    answers=[Value("answer_2_4", "SENSE_PAIRS", _separated, _same_separated, slips=[
        Slip("most alike", lambda senses: _separated(senses, most=max),
             "that is the word whose two senses are most *alike* at layer 4 (the highest cosine): the most separated "
             "one has the lowest"),
        Slip("last layer", lambda senses: _separated(senses, layer=6),
             "the cosine you give is at layer 6, not at layer 4, BERTScore's default: measure at layer 4"),
        Slip("rounded", lambda senses: (_separated(senses)[0], round(_separated(senses)[1], 2)),
             "your cosine is rounded too coarsely: give it to 4 decimals or more"),
        Slip("word only", lambda senses: _separated(senses)[0],
             "give a pair (word, cosine at layer 4), e.g. (\"bat\", 0.5), not only the word")])],
    after="Compute, don't type: grading runs your cell on other words.")


EX_2_5 = Exercise(
    "2.5", chapter="02",
    idea="layer 0 is LayerNorm(word + position + segment embedding): what does it see of the words around a token, "
         "and what of where the token sits? Count in the model's WordPiece tokens (lowercased, punctuation split, "
         "rare words in pieces), not in words.",
    answers=[Function("cat_twins", _cat_cases, _twins_right, _same_twins, slips=[
        Slip("not a pair", lambda s: s + " Indeed.", "return two sentences (strings), (same, moved)"),
        Slip("no cat", lambda s: (s.replace("cat", "dog"), "Well, " + s),
             "one of your sentences has no token \"cat\" (tokens(tokenizer, s) shows them): keep the word cat"),
        Slip("same tokens", lambda s: (s.upper(), "Well, " + s),
             "your same sentence has the original's tokens (the model is uncased): it gives 1.0 at every layer; "
             "change the context of cat, not its vector at layer 0"),
        Slip("same moved", lambda s: ("Well, " + s, "Well, " + s),
             "in your same sentence cat is at another token position than in the original: layer 0 adds a position "
             "embedding, so the vectors differ"),
        Slip("after changed", lambda s: (s + " Indeed.", s + " Indeed."),
             "keep the words after cat as they are in your moved sentence: change only what comes before it"),
        Slip("not moved", lambda s: (s + " Indeed.", s.upper()),
             "in your moved sentence cat is still at the token position it has in the original: what surrounds a "
             "token does not reach layer 0, so its vector is the original's; change its position")])])


EXERCISES = {ex.id: ex for ex in (EX_2_1, EX_2_2, EX_2_3, EX_2_4, EX_2_5)}


check_2_1, check_2_2, check_2_3, check_2_4, check_2_5 = checkers(EXERCISES, PUBLISHED)
