"""The instructor's live demo: type two sentences, see BERTScore's matrix and scores at once.

    from course_lib.demo import Demo, ClassView
    Demo()          # candidate + reference boxes, layer slider, idf / rescaling toggles, presets
    ClassView()     # a whole set of answers to one question, ranked by BERTScore and by BLEU

`make demo` opens notebooks/demo.ipynb in JupyterLab (a temporary copy: the tree stays clean);
`make present` serves the same widgets alone with Voilà (no code), see `course_lib.demo.launch`.

By concern, one module each:
    presets   the texts: PRESETS (the chapters' examples), CLASS_SET (ten answers), read lazily
    inputs    input checks, idf corpora, the rescaling baseline
    scoring   state and scoring: the per-text cache, `analyze` (P/R/F equal `course_lib.score`),
              worst matches
    classset  the class view's ranking (`rank_answers`, `ranking_chart`, `ranking_html`)
    drawing   the pictures as HTML: the similarity grid, the long-text view, the scores
    style     the page's look: match marks (shape, not hue), text colour by contrast, CSS
    page      the page's behaviour in the browser (keys, waiting state, kept settings): an anywidget + page.js
    notes     notes above the matrix: scripts the model reads badly, CJK fonts actually installed
    widgets   `Demo` (one pair, live)
    class_view `ClassView` (a set of answers, ranked)
    bench     reaction times for `make bench` (`time_reaction`, `time_controls`)
    launch    `make demo` / `make present` (one working URL with its token)
    presenter the presenter page (the two tabs) as its kernel draws it
    kernels   the presenter server's kernel manager (a preheated kernel; a page's kernel shut down
              when the page goes)
"""
from course_lib.demo import presets as _presets
from course_lib.demo.bench import long_text, time_controls, time_reaction
from course_lib.demo.classset import (LABEL_COLORS, UNLABELLED, class_set_table, rank_answers,
                                      ranking_chart, ranking_html, short)
from course_lib.demo.drawing import heatmap_html, long_text_html, scores_html, view_kind
from course_lib.demo.presets import CLASS_SET, CUSTOM, PRESETS, halford, preset_of
from course_lib.demo.inputs import (IDF_CORPORA, MAX_CHARS, InputProblem, baseline_for, check_layer,
                                    check_text, corpus_size, forget_idf, idf_for,
                                    stsb_sentences, wmt16_references)
from course_lib.demo.scoring import (PairView, Result, WorstMatch, analyze, clear_cache, summary_text,
                                     weakest, worst_line, worst_matches)
from course_lib.demo.class_view import ClassView
from course_lib.demo.widgets import CSS_PREFIX, Demo


def __getattr__(name: str):  # HALFORD_QUESTION, HALFORD_REFERENCE, HALFORD_CANDIDATES (lazy)
    return getattr(_presets, name)
