"""`BERTScorer`: bert-score's scorer object, on course_lib's engine.

Built once with its settings (the model and tokenizer are loaded at construction, idf weights
computed once from `idf_sents`), then `.score(cands, refs)` as often as you like. The same
arguments, order, properties and return shapes as `bert_score.BERTScorer` (0.3.13), and the
same numbers as `course_lib.score` with the same settings:

    scorer = BERTScorer(lang="en", idf=True, idf_sents=refs)     # the embedded model offline
    (P, R, F), setting = scorer.score(cands, refs, return_hash=True)
"""
from __future__ import annotations

import dataclasses

import torch

from course_lib.call.inputs import check_count, check_inputs, check_texts
from course_lib.call.setting import resolve_setting
from course_lib.engine.scorer import engine_ids, score_with
from course_lib.notices import warn

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
    {token id: weight} is used as given (an empty dict too: as `course_lib.score`, it must weigh
    every token). rescale_with_baseline / baseline_path: as in `course_lib.score`; the baseline
    file is read and checked here, before any scoring. The whole setting is resolved once, here
    (`call.setting.resolve_setting`), as `course_lib.score` resolves its own.
    """

    def __init__(self, model_type=None, num_layers=None, batch_size=64, nthreads=4, all_layers=False,
                 idf=False, idf_sents=None, device=None, lang=None, rescale_with_baseline=False,
                 baseline_path=None, use_fast_tokenizer=False):
        self.batch_size, self.nthreads = check_count(batch_size, "batch_size"), check_count(nthreads, "nthreads")
        self.device, self._idf = device, idf
        self._setting = resolve_setting(model_type, num_layers, idf, lang=lang, device=device, all_layers=all_layers,
                                        rescale_with_baseline=rescale_with_baseline, baseline_path=baseline_path,
                                        use_fast_tokenizer=use_fast_tokenizer, ids_of=engine_ids)
        self._computed = False
        if idf_sents is not None:
            self.compute_idf(idf_sents)

    setting = property(lambda self: self._setting)
    lang = property(lambda self: self._setting.lang)
    idf = property(lambda self: self._idf)
    num_layers = property(lambda self: self._setting.layer)
    all_layers = property(lambda self: self._setting.all_layers)
    rescale_with_baseline = property(lambda self: self._setting.rescale_with_baseline)
    use_fast_tokenizer = property(lambda self: self._setting.use_fast_tokenizer)
    use_custom_baseline = property(lambda self: self._setting.custom_baseline)
    baseline_path = property(lambda self: self._setting.baseline_path)
    baseline_vals = property(lambda self: self._setting.baseline() if self._setting.rescale_with_baseline else None)
    _tokenizer = property(lambda self: self._setting.tokenizer)
    _model = property(lambda self: self._setting.net)

    @property
    def idf_dict(self) -> dict | None:
        """The idf weights {token id: weight} this scorer uses, or None (idf off or not computed
        yet). Course-only: bert-score keeps them in `_idf_dict`."""
        return self._setting.weights if self._setting.idf else None

    @property
    def model_type(self) -> str:
        """The model as it is named in the hash (`ModelRef.hash_name`: the embedded model's name)."""
        return self._setting.model.hash_name

    @property
    def hash(self) -> str:
        """bert-score's hash of this scorer's setting (`Setting.hash`)."""
        return self._setting.hash()

    def compute_idf(self, sents: list[str]) -> None:
        """idf weights from a corpus of texts (replaces earlier ones, with a warning)."""
        sents = check_texts(sents, "sents")
        if self._computed or (self._setting.idf and self._setting.weights is not None):
            warn("Overwriting the previous importance weights.")
        self._computed = True
        if self._setting.idf:  # the weights from these texts
            self._setting = dataclasses.replace(self._setting, weights=None).with_idf_from(sents, engine_ids)

    def score(self, cands, refs, verbose=False, batch_size=64, return_hash=False, *, exclude_special=False):
        """P, R, F [N] of each candidate against its reference(s); with return_hash=True,
        ((P, R, F), hash). `batch_size` is this call's (bert-score ignores the constructor's).
        exclude_special: as in `course_lib.score` (course-only, keyword-only)."""
        cands, groups = check_inputs(cands, refs)
        batch_size = check_count(batch_size, "batch_size")
        return score_with(self._setting, cands, groups, verbose=verbose, batch_size=batch_size,
                          return_hash=return_hash, exclude_special=exclude_special)

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
        from course_lib.bertscore.embeddings import embed_in
        from course_lib.bertscore.idf import uniform_weights
        from course_lib.bertscore.pair import view_of
        from course_lib.call.inputs import warn_empty_view
        from course_lib.model import load

        if not isinstance(candidate, str) or not isinstance(reference, str):
            raise TypeError("plot_example expects two strings: a candidate and a reference")
        s = self._setting
        tokenizer, _ = load(s.model, self.device)  # the slow tokenizer: the taught tokens
        c, r = (embed_in(tokenizer, s.net, [text], s.layer) for text in (candidate, reference))
        weights = s.weights if s.weights is not None else uniform_weights(s.tokenizer)
        view = view_of(tokenizer, c.input_ids[0].tolist(), r.input_ids[0].tolist(), c.embeddings[0],
                       r.embeddings[0], weights)
        warn_empty_view(view)
        sim, scores, kind = view.sim, torch.tensor([view.P, view.R, view.F]), "cosine similarity"
        if s.rescale_with_baseline:
            b = s.baselines[s.layer]  # [3]: P, R, F at the layer drawn
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
        ax.set_title(f"P = {P:.3f}   R = {R:.3f}   F = {F:.3f}" + ("   (rescaled)" if s.rescale_with_baseline else ""))
        if fname:
            fig.savefig(fname, dpi=100, bbox_inches="tight")
        if matplotlib.get_backend().lower() not in FILE_BACKENDS:
            plt.show()

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(hash={self.hash}, batch_size={self.batch_size}, nthreads={self.nthreads})"
