"""Chapter 05's exercises as data (importance weighting with idf), compared with course_lib's idf on cases drawn
when the check runs. `IDF_TEST_SET`, `FEW_REFS` and `TEST_5_4` are its data (other data in grading: `hidden_data`)."""
from __future__ import annotations

import math

from course_lib.caching import cached

from .assemble import chapter_data, checkers
from .compare import Mismatch
from .exercise import Exercise, Function, Slip, Value
from .ch05_cases import (SCORERS_5_3, SLIP_HINTS_5_3, _reference_sets_5_3, _same_indices, _same_pair, _slips_5_3,
                         _weightless)

PUBLISHED = {
    # 5.2: one reference per candidate; candidates 0 and 3 are two systems' outputs for the same source, so their
    # reference is passed twice (and counts twice in M)
    "IDF_TEST_SET": (["The cat sat on the log.", "A bird sang on the mat.", "The the the dog.", "A cat sat on a mat."],
                     ["The cat sat on the mat.", "The dog sat on the log.", "A cat chased the dog.",
                      "The cat sat on the mat."]),
    # 5.3: a test set scored with idf=True (idf from these five references)
    "FEW_REFS": (["A cat is sitting.", "A cat sits on a mat.", "A cat waits at the door.", "The cat is sitting.",
                  "A cat sits in silence."],
                 ["The cat sat.", "The cat sat on the mat.", "The cat sat by the door.", "The cat sat.",
                  "The cat sat quietly."]),
    # 5.4: the first `segments` WMT16 rows of `lp`, scored with idf=True, and a candidate with an invented name
    "TEST_5_4": {"lp": "cs-en", "segments": 560, "candidate": "Prime Minister Zorbulak visited Prague on Tuesday."},
}
_UNSEEN = 987_654  # an id no corpus contains

__getattr__ = chapter_data(PUBLISHED)


def hidden_data(rng) -> dict:
    """For grading: four WMT16 pairs, the first reference passed twice (5.2); five references around one short
    sentence, the sentence itself at two places (5.3); another language pair, length and invented name (5.4)."""
    from course_lib.evaluation.datasets import wmt16

    rows = wmt16().to_dict("records")
    rows = [rows[k] for k in rng.sample(range(len(rows)), 4)]
    idf_set = ([r["mt"] for r in rows], [r["ref"] for r in rows[:3]] + [rows[0]["ref"]])
    base = rng.choice(["The dog ran", "A man smiled", "The sun rose", "A child laughed", "The bus left"])
    extra = iter(rng.sample(["at noon", "in the park", "again", "very fast", "near the river", "after lunch"], 3))
    where = rng.sample(range(5), 2)
    refs = [f"{base}." if i in where else f"{base} {next(extra)}." for i in range(5)]
    cands = [f"{base.split()[0]} {w}." for w in rng.sample(["cat sat", "bird sang", "car stopped", "girl waved",
                                                            "train came", "boy ran"], 5)]
    name = "".join(rng.sample(["zor", "bul", "kav", "meth", "quon", "dri", "plax", "vun", "esh", "tark"], 3))
    city = rng.choice(["Lisbon", "Oslo", "Vienna", "Madrid", "Prague"])
    test = {"lp": rng.choice(["de-en", "fi-en", "ro-en", "ru-en", "tr-en"]), "segments": rng.randint(200, 540),
            "candidate": f"Prime Minister {name.capitalize()} visited {city} on Tuesday."}
    return {"IDF_TEST_SET": idf_set, "FEW_REFS": (cands, refs), "TEST_5_4": test}


def _tokenizer():
    from course_lib.model import load
    return load()[0]


def _encode(text):
    from course_lib.bertscore.embeddings import encode
    return encode(_tokenizer(), text)


def _with_tokenizer(fn):
    """The student's function called as the notebook calls it, with the model's tokenizer last."""
    return lambda *args: fn(*args, _tokenizer())


def _idf(corpus, distinct_m=False, distinct_df=False, count=set, weight=None):
    """bert-score's smoothed idf of `corpus`, or a slip of it; as (weights of the seen ids, weight of an unseen id)."""
    m = len({tuple(t) for t in corpus}) if distinct_m else len(corpus)
    texts = [list(t) for t in {tuple(t): 0 for t in corpus}] if distinct_df else corpus
    df = {}
    for ids in texts:
        for w in count(ids):
            df[w] = df.get(w, 0) + 1
    weight = weight or (lambda m, d: math.log((m + 1) / (d + 1)))
    return {w: weight(m, d) for w, d in df.items()}, weight(m, 0)


# ------------------------------------------------------------------ 5.1 bert-score's idf

@cached(1)
def _wmt16_ids(lp: str = "de-en", n: int = 300) -> tuple:
    """The first n references of `lp` as idf=True gets them (repeats too), tokenized as the scorer does."""
    from course_lib.evaluation.datasets import wmt16

    return tuple(tuple(_encode(r)) for r in wmt16().query("lp == @lp")["ref"].head(n))


def _idf_cases(rng):
    """Toy corpora (a token repeated in a text; [CLS]=101, [SEP]=102 in each), corpora with repeated texts, random
    corpora, and WMT16 references as a test set passes them (a repeated reference each time)."""
    def corpus(n):
        return [[101] + [rng.randint(1000, 1040) for _ in range(rng.randint(1, 12))] + [102] for _ in range(n)]

    toy = [[[101, 7, 8, 9, 102], [101, 7, 7, 7, 102], [101, 9, 10, 102]], [[101, 5, 102]],
           [[101, 1, 2, 3, 102], [101, 2, 3, 4, 102], [101, 3, 4, 5, 102], [101, 3, 3, 6, 102], [101, 102]]]
    repeated = [[[101, 7, 8, 102], [101, 9, 102], [101, 7, 8, 102]], [[101, 4, 4, 102]] * 3 + [[101, 5, 102]]]
    randoms = [corpus(rng.randint(5, 40)) for _ in range(3)]
    randoms.append(randoms[0] + randoms[0][:3])
    return [(c,) for c in toy + repeated + randoms] + [([list(t) for t in _wmt16_ids()],)]


def _readable(fn):
    """The student's weights as (seen weights, unseen weight): a defaultdict's default cannot be recorded."""
    def run(corpus):
        weights = fn(corpus)
        try:
            seen = {int(k): float(v) for k, v in dict(weights).items()}
        except (TypeError, ValueError):
            raise TypeError(f"return a collections.defaultdict of weights, not {type(weights).__name__}") from None
        try:
            unseen = float(weights[_UNSEEN])
        except (KeyError, IndexError, TypeError, ValueError):
            unseen = None
        return seen, unseen
    return run


def _same_idf(got, want, args):
    (seen, unseen), (right, right_unseen) = got, want
    for w in sorted(right):
        if w not in seen:
            raise Mismatch(f"corpus of M = {len(args[0])} texts: token {w} is missing")
        if not math.isclose(seen[w], right[w], abs_tol=1e-6):
            raise Mismatch(f"corpus of M = {len(args[0])} texts: token {w} should weigh {right[w]:.4f}, yours "
                           f"{seen[w]:.4f}")
    if unseen is None:
        raise Mismatch("the result must give a weight to unseen tokens too (a defaultdict)")
    if not math.isclose(unseen, right_unseen, abs_tol=1e-6):
        raise Mismatch(f"corpus of M = {len(args[0])} texts: an unseen token should weigh {right_unseen:.4f}, yours "
                       f"{unseen:.4f}")


DISTINCT = ("you counted a repeated text once: idf=True is given the texts as passed, and a text passed twice "
            "counts twice, in M and in df")
EX_5_1 = Exercise(
    "5.1", chapter="05",
    idea="df(w) counts the texts that contain w (not every occurrence), every text passed (a repeated one each "
         "time); idf(w) = log((M + 1) / (df(w) + 1)); an unseen token gets log(M + 1), so return a "
         "collections.defaultdict.",
    answers=[Function("my_idf", _idf_cases, _idf, _same_idf, wrap=_readable,
                      forbid=("course_lib.bertscore.idf.idf_from_ids", "course_lib.bertscore.idf.document_frequency"),
                      slips=[
        Slip("occurrences", lambda c: _idf(c, count=list),
             "df counts every occurrence; it counts the texts that contain the token (a token twice in one text "
             "counts once)"),
        Slip("distinct", lambda c: _idf(c, distinct_m=True, distinct_df=True), DISTINCT),
        Slip("distinct M", lambda c: _idf(c, distinct_m=True), DISTINCT),
        Slip("paper", lambda c: _idf(c, weight=lambda m, d: math.log(m / d) if d else math.log(m + 1)),
             "these are the paper's weights log(M / df); bert-score smooths them: +1 above and below"),
        Slip("log10", lambda c: _idf(c, weight=lambda m, d: math.log10((m + 1) / (d + 1))),
             "this is log base 10; idf uses the natural logarithm (math.log)"),
        Slip("upside down", lambda c: _idf(c, weight=lambda m, d: math.log((d + 1) / (m + 1))),
             "the ratio is upside down: a rare token must weigh more than a common one")])],
    after="The library's version: `document_frequency` and `idf_from_ids` in course_lib.bertscore.idf.")


# ------------------------------------------------------------------ 5.2 the weights idf=True gives a test set

def _weights_from(texts):
    def answer(cands, refs):
        seen, unseen = _idf([_encode(t) for t in texts(cands, refs)])
        return [[seen.get(i, unseen) for i in _encode(c)] for c in cands]
    return answer


def _test_set_cases(rng):
    from course_lib.evaluation.datasets import wmt16

    start = rng.randrange(0, 500)
    de = wmt16().query("lp == 'de-en'").iloc[start:start + 40]
    return [tuple(map(list, PUBLISHED["IDF_TEST_SET"])), (de["mt"].tolist(), de["ref"].tolist())]


def _same_weights(got, want, args):
    if not isinstance(got, (list, tuple)) or len(got) != len(want):
        raise Mismatch(f"return one list of weights per candidate ({len(want)} candidates)")
    for cand, weights, right in zip(args[0], got, want):
        weights = [float(w) for w in weights]
        if len(weights) != len(right):
            raise Mismatch(f"{cand!r} has {len(right)} tokens with [CLS] and [SEP], you gave {len(weights)} weights")
        tokens = _tokenizer().convert_ids_to_tokens(_encode(cand))
        for token, w, r in zip(tokens, weights, right):
            if not math.isclose(w, r, abs_tol=1e-6):
                raise Mismatch(f"token {token!r} of {cand!r} should weigh {r:.4f}, yours {w:.4f}")


def _heaviest(test_set):
    cands, refs = test_set
    tokens = [_tokenizer().convert_ids_to_tokens(_encode(c)) for c in cands]
    weights = _weights_from(lambda c, r: r)(list(cands), list(refs))
    return [t[max(range(len(w)), key=w.__getitem__)] for t, w in zip(tokens, weights)]


def _same_heaviest(got, want, test_set):
    cands, refs = test_set
    if not isinstance(got, (list, tuple)) or len(got) != len(cands):
        raise Mismatch(f"set heaviest_5_2 to a list of {len(cands)} tokens: the heaviest of each candidate")
    for cand, token, weights in zip(cands, got, _weights_from(lambda c, r: r)(list(cands), list(refs))):
        by_token = dict(zip(_tokenizer().convert_ids_to_tokens(_encode(cand)), weights))
        if token not in by_token:
            raise Mismatch(f"{token!r} is not a token of {cand!r} (word pieces as tokens() lists them)")
        if not math.isclose(by_token[token], max(weights), abs_tol=1e-9):
            raise Mismatch(f"in {cand!r}, {token!r} is not the heaviest")


FROM_CANDIDATES = "your idf comes from the candidates: idf=True takes it from the references"
EX_5_2 = Exercise(
    "5.2", chapter="05",
    idea="idf=True takes idf from the references exactly as passed (M = number of references, a repeated one "
         "counted each time), never from the candidates; a candidate token in no reference gets ln(M + 1).",
    answers=[
        Function("candidate_weights", _test_set_cases, _weights_from(lambda c, r: r), _same_weights,
                 wrap=_with_tokenizer, slips=[
            Slip("candidates", _weights_from(lambda c, r: c), FROM_CANDIDATES),
            Slip("both", _weights_from(lambda c, r: [*c, *r]),
                 "your idf comes from the candidates and the references: idf=True takes it from the references only"),
            Slip("distinct", _weights_from(lambda c, r: list(dict.fromkeys(r))), DISTINCT)]),
        Value("heaviest_5_2", "IDF_TEST_SET", _heaviest, _same_heaviest),
    ],
    after="The library's version: `idf_weights` in course_lib.bertscore.idf.")


# ------------------------------------------------------------------ 5.3 which references weigh nothing

def _weightless_cases(rng):
    return [(list(PUBLISHED["FEW_REFS"][1]),)] + [(refs,) for refs in _reference_sets_5_3(rng)]


def _slip(name, k):
    return lambda refs: _slips_5_3(refs)[name][k]


EX_5_3 = Exercise(
    "5.3", chapter="05",
    idea="recall divides by the total idf weight of the reference's tokens, and idf=True computes it from these "
         "references: a token weighs ln((M + 1) / (df + 1)), 0 exactly when it occurs in all M references.",
    answers=[Function("weightless", _weightless_cases, _weightless, _same_indices, forbid=SCORERS_5_3,
                      wrap=_with_tokenizer, slips=[
        Slip("from 1", lambda refs: [k + 1 for k in _weightless(refs)],
             "you count the references from 1: indices start at 0 (the first reference is 0)"),
        *[Slip(f"{name} {k}", _slip(name, k), SLIP_HINTS_5_3[name]) for name in SLIP_HINTS_5_3 for k in (0, 1)
          if name != "whitespace"]])],  # a whitespace split finds a subset, often none: no one slip to name
    after="The library's version: the pairs `weightless` finds are those with a NaN recall (shown after the "
          "exercise).")


# ------------------------------------------------------------------ 5.4 the heaviest weights of a test set

def _refs_5_4(test):
    from course_lib.evaluation.datasets import wmt16

    return wmt16().query("lp == @lp", local_dict={"lp": test["lp"]})["ref"].head(test["segments"]).tolist()


def _pair(count):
    def answer(test):
        m = count(_refs_5_4(test))
        return (math.log(m + 1), math.log((m + 1) / 2))
    return answer


def _unseen_tokens(test) -> list:
    """Tokens of the candidate in no reference of the test set (they get the weight log(M + 1))."""
    seen = {i for r in _refs_5_4(test) for i in _encode(r)}
    ids = _encode(test["candidate"])
    return [t for t, i in zip(_tokenizer().convert_ids_to_tokens(ids), ids) if i not in seen]


def _same_tokens(got, want, test):
    if not isinstance(got, (list, tuple)) or not all(isinstance(t, str) for t in got):
        raise Mismatch("set unseen_5_4 to the list of the candidate's tokens (word pieces) that get the first weight")
    got = [t.strip() for t in got]
    alien = [t for t in got if t not in _tokenizer().convert_ids_to_tokens(_encode(test["candidate"]))]
    if alien:
        raise Mismatch(f"{alien} is not a token of the candidate: the tokenizer splits words it does not know into "
                       "word pieces (## marks a continuation); list the pieces tokens() gives")
    if set(got) - set(want):
        raise Mismatch(f"{sorted(set(got) - set(want))} occur in some reference (df > 0)")
    if set(want) - set(got):
        raise Mismatch(f"you found {len(set(got))} of the {len(set(want))} unseen tokens: check every word piece, "
                       "common words too")


EX_5_4 = Exercise(
    "5.4", chapter="05",
    idea="idf=True computes idf from the references passed, all M of them (a repeated reference counts each time); "
         "an unseen token has df = 0, the rarest seen token df = 1; a candidate token gets the unseen weight when "
         "no reference contains it.",
    answers=[
        Value("answer_5_4", "TEST_5_4", _pair(len), _same_pair, slips=[
            Slip("distinct", _pair(lambda refs: len(set(refs))), DISTINCT),
            Slip("log10", lambda test: tuple(x / math.log(10) for x in _pair(len)(test)),
                 "this is log base 10; idf uses the natural logarithm (math.log)")]),
        Value("unseen_5_4", "TEST_5_4", _unseen_tokens, _same_tokens, slips=[
            Slip("every token", lambda test: _tokenizer().tokenize(test["candidate"]),
                 "you listed every token of the candidate: some occur in the references")]),
    ],
    after="Compute, don't type: grading runs your code on another test set.")


EXERCISES = {ex.id: ex for ex in (EX_5_1, EX_5_2, EX_5_3, EX_5_4)}
check_5_1, check_5_2, check_5_3, check_5_4 = checkers(EXERCISES, PUBLISHED)
