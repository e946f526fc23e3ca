"""Each unique sentence embedded once: the engine's store of token vectors, and its weights."""
from __future__ import annotations

import torch

from course_lib.bertscore.embeddings import special_mask
from course_lib.bertscore.idf import idf_from_ids, weight_of
from course_lib.bertscore.matching import Tokens
from course_lib.engine import packing
from course_lib.engine.fast_tokenizer import encode_many


def corpus_idf(texts: list[str], tokenizer):
    """idf weights of a corpus: `bertscore.idf.idf_weights(texts, tokenizer)`, tokenized in one call."""
    return idf_from_ids(encode_many(tokenizer, list(texts))[0])


class SentenceStore:
    """Each unique sentence embedded once: unit vectors packed end to end (no padding), with
    the weight and the [CLS]/[SEP] flag of every token.

    vectors [tokens, dim] (or [n_layers + 1, tokens, dim]); weight, special [tokens];
    start, length [sentences]; `index` maps a sentence to its number.
    """

    def __init__(self, tokenizer, model, layer, weights, batch_size, all_layers: bool = False):
        self.tokenizer, self.model, self.layer, self.all_layers = tokenizer, model, layer, all_layers
        self.weights, self.batch_size = weights, batch_size
        self.index: dict[str, int] = {}
        self.vectors = self.weight = self.special = self.start = self.length = None

    def add(self, sentences: list[str], progress=None, ids: list[list[int]] | None = None):
        """Embed the sentences (each once) into this empty store. `ids`: their token ids, if
        known. `progress`: a function called with each model batch's number of sentences."""
        if self.start is not None:
            raise RuntimeError("a SentenceStore is filled once; make a new one for more sentences")
        self.index, packed = packing.embed_texts(self.tokenizer, self.model, sentences, self.layer,
                                                 all_layers=self.all_layers, ids=ids, batch_size=self.batch_size,
                                                 progress=progress)
        self.weight, self.special = self._token_info(packed.ids)
        self.vectors, self.start, self.length = packed.vectors, packed.start, packed.length

    def _token_info(self, ids: torch.Tensor):
        """Weight [tokens] and [CLS]/[SEP] flag [tokens] of each token id, looked up once per
        distinct id."""
        distinct, inverse = torch.unique(ids, return_inverse=True)
        table = torch.tensor([weight_of(self.weights, i) for i in distinct.tolist()], dtype=torch.float32)
        return table.to(ids.device)[inverse], special_mask(ids, self.tokenizer)

    def gather(self, numbers: torch.Tensor) -> Tokens:
        """The sentences numbered `numbers` [batch], padded: emb [batch, len, dim]
        (or [n_layers + 1, batch, len, dim]), mask, idf weights, special [batch, len]."""
        numbers = numbers.to(self.start.device)
        length = self.length[numbers]
        positions = torch.arange(int(length.max()), device=length.device)
        mask = positions[None, :] < length[:, None]
        rows = torch.where(mask, self.start[numbers][:, None] + positions[None, :], 0)
        emb = self.vectors[:, rows] if self.all_layers else self.vectors[rows]
        return Tokens(emb, mask, self.weight[rows].masked_fill(~mask, 0.0), self.special[rows] & mask)

    def batch(self, sentences: list[str]) -> Tokens:
        """`gather` of a list of sentences."""
        return self.gather(torch.tensor([self.index[s] for s in sentences]))
