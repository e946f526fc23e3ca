"""`BERTScorer`: bert-score's scorer object, on course_lib's engine.

Built once with its settings (the model and tokenizer are loaded at construction, idf weights
computed once from `idf_sents`), then `.score(cands, refs)` as often as you like. The same
arguments, order, properties and return shapes as `bert_score.BERTScorer` (0.3.13), and the
same numbers as `course_lib.score` with the same settings:

    scorer = BERTScorer(lang="en", idf=True, idf_sents=refs)     # the embedded model offline
    (P, R, F), setting = scorer.score(cands, refs, return_hash=True)
"""
from __future__ import annotations

import warnings

import torch

from course_lib.bertscore.baseline import baseline_file, read_baseline
from course_lib.bertscore.inputs import check_count, check_idf, idf_is_weights
from course_lib.engine.fast_tokenizer import hf_fast_tokenizer
from course_lib.engine.hash import bert_score_hash, bert_score_model_name
from course_lib.engine.scorer import score
from course_lib.engine.store import corpus_idf
from course_lib.model import check_layer, choose_model, load, num_layers_of

# matplotlib backends that only write files: plt.show() would warn there and show nothing
FILE_BACKENDS = {"agg", "pdf", "ps", "svg", "pgf", "cairo", "template"}


class BERTScorer:
    """BERTScore with the model loaded once. Arguments as in `bert_score.BERTScorer`:

    model_type / lang: as in `course_lib.score` (None or lang="en": the embedded model;
    another lang: an error). num_layers: hidden-state index (None: the model's default).
    batch_size: kept as an attribute only, as in bert-score, whose `.score()` takes its own
    `batch_size` (default 64). nthreads: checked, unused (see `course_lib.score`).
    idf: True to weigh tokens by idf, computed from `idf_sents` (or `.compute_idf(sents)`
    later; scoring with idf=True and no weights is an error, as in bert-score); a dict
    {token id: weight} is used as given. rescale_with_baseline / baseline_path: as in
    `course_lib.score`; the baseline file is read and checked here, before any scoring.
    """

    def __init__(self, model_type=None, num_layers=None, batch_size=64, nthreads=4, all_layers=False,
                 idf=False, idf_sents=None, device=None, lang=None, rescale_with_baseline=False,
                 baseline_path=None, use_fast_tokenizer=False):
        self._model_arg = choose_model(model_type, lang)  # None = the embedded model
        self._lang, self._idf = lang, idf
        self.batch_size, self.nthreads = check_count(batch_size, "batch_size"), check_count(nthreads, "nthreads")
        self.all_layers, self.device = all_layers, device
        self._rescale_with_baseline, self._use_fast_tokenizer = rescale_with_baseline, use_fast_tokenizer
        check_idf(idf)
        self._tokenizer, self._model = load(self._model_arg, device)  # cached: loaded once per process
        if use_fast_tokenizer:
            self._tokenizer = hf_fast_tokenizer(self._model_arg)
        self._num_layers = check_layer(num_layers, self._model_arg, num_layers_of(self._model))
        self._idf_dict = idf if idf_is_weights(idf) else None
        if idf_sents is not None:
            self.compute_idf(idf_sents)
        self.use_custom_baseline = baseline_path is not None
        self._baseline_path = baseline_path
        self.baseline_path = self._baseline_vals = None
        if rescale_with_baseline:  # a missing or bad file: an error now, not after scoring
            self.baseline_path = baseline_file(baseline_path, self._model_arg, lang)
            table = read_baseline(self.baseline_path, num_layers_of(self._model))
            self._baseline_vals = table[:, None] if all_layers else table[self._num_layers]

    lang = property(lambda self: self._lang)
    idf = property(lambda self: self._idf)
    num_layers = property(lambda self: self._num_layers)
    rescale_with_baseline = property(lambda self: self._rescale_with_baseline)
    use_fast_tokenizer = property(lambda self: self._use_fast_tokenizer)
    baseline_vals = property(lambda self: self._baseline_vals)

    @property
    def idf_dict(self) -> dict | None:
        """The idf weights {token id: weight} this scorer uses, or None (idf off or not computed
        yet). Course-only: bert-score keeps them in `_idf_dict`."""
        return self._idf_dict if self._idf else None

    @property
    def model_type(self) -> str:
        """The model as bert-score names it in the hash (the embedded model: its directory)."""
        return bert_score_model_name(self._model_arg)

    @property
    def hash(self) -> str:
        """bert-score's hash of this scorer's setting (`course_lib.engine.hash.bert_score_hash`)."""
        return bert_score_hash(self._model_arg, self._num_layers, self._idf, self._rescale_with_baseline,
                               self.use_custom_baseline, self._use_fast_tokenizer)

    def compute_idf(self, sents: list[str]) -> None:
        """idf weights from a corpus of texts (replaces earlier ones, with a warning)."""
        if isinstance(sents, str) or not isinstance(sents, (list, tuple)) or not all(isinstance(s, str) for s in sents):
            raise TypeError("compute_idf expects a list of strings")
        if self._idf_dict is not None:
            warnings.warn("Overwriting the previous importance weights.", stacklevel=2)
        self._idf_dict = corpus_idf(sents, self._tokenizer)

    def score(self, cands, refs, verbose=False, batch_size=64, return_hash=False, *, exclude_special=False):
        """P, R, F [N] of each candidate against its reference(s); with return_hash=True,
        ((P, R, F), hash). `batch_size` is this call's (bert-score ignores the constructor's).
        exclude_special: as in `course_lib.score` (course-only, keyword-only)."""
        if self._idf and self._idf_dict is None:
            raise ValueError("idf=True but no idf weights: pass idf_sents=[...] to BERTScorer or call "
                             ".compute_idf(sents) first (bert-score asserts 'IDF weights are not computed').")
        out = score(cands, refs, model_type=self._model_arg, num_layers=self._num_layers, verbose=verbose,
                    idf=self._idf_dict if self._idf else False, device=self.device, batch_size=batch_size,
                    nthreads=self.nthreads, all_layers=self.all_layers, lang=self._lang,
                    rescale_with_baseline=self._rescale_with_baseline, baseline_path=self._baseline_path,
                    use_fast_tokenizer=self._use_fast_tokenizer, exclude_special=exclude_special)
        return (out, self.hash) if return_hash else out

    def plot_example(self, candidate: str, reference: str, fname: str = "") -> None:
        """bert-score's `plot_example`: a heatmap of the token cosines at this scorer's layer (rows =
        candidate, columns = reference, [CLS]/[SEP] included) with P, R and F in the title as `.score`
        gives them. A rescaling scorer rescales the cells as bert-score does, (x - b_F) / (1 - b_F), and
        says "rescaled". fname: also save it there. Shown with `plt.show()` unless matplotlib draws to
        files only (Agg): a window in a script, the figure under the cell in a notebook. Returns None, as
        bert-score's does (`course_lib.bertscore.pair.view_of` gives the numbers). Drawn here, as
        bert-score draws its own: the engine imports nothing from `course_lib.teaching` (above it),
        whose `similarity_heatmap` draws the same view with the greedy matches marked."""
        import matplotlib
        import matplotlib.pyplot as plt

        from course_lib.bertscore.baseline import rescale
        from course_lib.bertscore.embeddings import embed
        from course_lib.bertscore.idf import uniform_weights
        from course_lib.bertscore.pair import view_of

        if not isinstance(candidate, str) or not isinstance(reference, str):
            raise TypeError("plot_example expects two strings: a candidate and a reference")
        tokenizer, _ = load(self._model_arg, self.device)
        c, r = (embed([text], self._model_arg, self._num_layers, self.device) for text in (candidate, reference))
        weights = self._idf_dict if self._idf and self._idf_dict is not None else uniform_weights(tokenizer)
        view = view_of(tokenizer, c.input_ids[0].tolist(), r.input_ids[0].tolist(), c.embeddings[0],
                       r.embeddings[0], weights)
        sim, scores, kind = view.sim, torch.tensor([view.P, view.R, view.F]), "cosine similarity"
        if self._rescale_with_baseline:
            b = self._baseline_vals[self._num_layers, 0] if self.all_layers else self._baseline_vals  # [3]: P, R, F
            sim, scores, kind = rescale(sim, b[2]), rescale(scores, b), "cosine similarity, rescaled"
        n_c, n_r = sim.shape
        fig, ax = plt.subplots(figsize=(max(5, 0.55 * n_r + 2.5), max(3.5, 0.45 * n_c + 1.5)))
        image = ax.imshow(sim.numpy(), cmap="viridis", vmin=min(0.0, float(sim.min())), vmax=1)
        fig.colorbar(image, ax=ax, label=kind)
        ax.set_xticks(range(n_r), view.ref_tokens, rotation=45, ha="right")
        ax.set_yticks(range(n_c), view.cand_tokens)
        for i in range(n_c):
            for j in range(n_r):
                value = float(sim[i, j])
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if value < 0.5 else "black")
        ax.set_xlabel("reference tokens")
        ax.set_ylabel("candidate tokens")
        P, R, F = scores.tolist()
        ax.set_title(f"P = {P:.3f}   R = {R:.3f}   F = {F:.3f}" + ("   (rescaled)" if self._rescale_with_baseline else ""))
        if fname:
            fig.savefig(fname, dpi=100, bbox_inches="tight")
        if matplotlib.get_backend().lower() not in FILE_BACKENDS:
            plt.show()

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(hash={self.hash}, batch_size={self.batch_size}, nthreads={self.nthreads})"
