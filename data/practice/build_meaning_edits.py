"""Build meaning_edits.csv: one meaning-changing edit of a real WMT16 reference sentence per row.

    python data/practice/build_meaning_edits.py      # rewrites data/practice/meaning_edits.csv

Each edit is a small, simultaneous string replacement on a sentence of data/wmt16_da (the human
reference translations). Three kinds, chosen by hand so that the edited sentence stays fluent:
  negation  insert or remove "not" (the claim flips)
  numbers   swap two numbers of the sentence (the facts change, the words do not)
  names     swap two names of the sentence (who did what to whom changes)
Every `old` string must occur exactly once (as a whole word), so the edit is unambiguous.
"""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from course_lib.evaluation import datasets

OUT = Path(__file__).resolve().parent / "meaning_edits.csv"

# (lp, idx, kind, [(old, new), ...])  -- replacements are applied at the same time
EDITS = [
    # negation: remove "not"
    ("fi-en", 249, "negation", [("was not pinning", "was pinning")]),
    ("tr-en", 198, "negation", [("does not make", "does make")]),
    ("ro-en", 220, "negation", [("This is not right", "This is right")]),
    ("cs-en", 466, "negation", [("is not a new one", "is a new one")]),
    ("de-en", 502, "negation", [("is not increasing", "is increasing")]),
    ("de-en", 11, "negation", [("are not yet ready", "are ready")]),
    ("ro-en", 522, "negation", [("does not have", "does have")]),
    ("fi-en", 327, "negation", [("You do not have to", "You have to")]),
    # negation: insert "not"
    ("ru-en", 84, "negation", [("has been hospitalised", "has not been hospitalised")]),
    ("ru-en", 31, "negation", [("were wounded", "were not wounded")]),
    ("de-en", 364, "negation", [("was picked up", "was not picked up")]),
    ("de-en", 456, "negation", [("has closed with gains", "has not closed with gains")]),
    ("cs-en", 155, "negation", [("were able to", "were not able to")]),
    ("de-en", 454, "negation", [("has sustained", "has not sustained")]),
    # numbers: swap two numbers
    ("cs-en", 300, "numbers", [("65", "157"), ("157", "65")]),
    ("cs-en", 307, "numbers", [("36", "28"), ("28", "36")]),
    ("cs-en", 327, "numbers", [("45", "15"), ("15", "45")]),
    ("cs-en", 560, "numbers", [("40,000", "45,000"), ("45,000", "40,000")]),
    ("de-en", 163, "numbers", [("54", "35"), ("35", "54")]),
    ("de-en", 265, "numbers", [("2,000", "500"), ("500", "2,000")]),
    ("de-en", 489, "numbers", [("6%", "23%"), ("23%", "6%")]),
    ("fi-en", 41, "numbers", [("36", "43"), ("43", "36")]),
    ("fi-en", 456, "numbers", [("31", "24.5"), ("24.5", "31")]),
    ("ro-en", 504, "numbers", [("290", "108"), ("108", "290")]),
    ("ru-en", 60, "numbers", [("10", "72"), ("72", "10")]),
    ("ru-en", 443, "numbers", [("200", "60"), ("60", "200")]),
    ("ru-en", 477, "numbers", [("9 percent", "6 percent"), ("6 percent", "9 percent")]),
    ("tr-en", 136, "numbers", [("349,000", "314,000"), ("314,000", "349,000")]),
    # names: swap two names
    ("ro-en", 404, "names", [("Storm and Roosters", "Broncos and Cowboys"), ("Broncos and Cowboys", "Storm and Roosters")]),
    ("de-en", 315, "names", [("Biden", "Sanders"), ("Sanders", "Biden")]),
    ("cs-en", 193, "names", [("Ben Carson", "Donald Trump"), ("Donald Trump", "Ben Carson")]),
    ("de-en", 331, "names", [("Washington", "Netanyahu"), ("Netanyahu", "Washington")]),
    ("ru-en", 138, "names", [("Ukraine's", "Russia's"), ("Russia", "Ukraine")]),
    ("fi-en", 136, "names", [("Kuutti", "Sipilä"), ("Sipilä", "Kuutti")]),
    ("tr-en", 20, "names", [("Udoh", "Van Persie"), ("Van Persie", "Udoh")]),
    ("ru-en", 202, "names", [("Nick Castellanos", "Victor Martinez"), ("Victor Martinez", "Nick Castellanos")]),
    ("tr-en", 438, "names", [("Trent Robinson", "Bellamy"), ("Bellamy", "Trent Robinson")]),
    ("fi-en", 32, "names", [("Lyly", "Sipilä"), ("Sipilä", "Lyly")]),
    ("fi-en", 396, "names", [("Kährs", "Karelia-Upofloor"), ("Karelia-Upofloor", "Kährs")]),
    ("cs-en", 220, "names", [("Vašek", "Eva"), ("Eva", "Vašek")]),
    ("ro-en", 487, "names", [("Clinton", "Sanders"), ("Sanders", "Clinton")]),
]


def apply_edit(sentence: str, replacements: list[tuple[str, str]]) -> str:
    """Replace every `old` by its `new` in one pass (so that swaps work); each `old` once."""
    table = dict(replacements)
    pattern = re.compile("|".join(rf"(?<![\w.,]){re.escape(old)}(?![\w]|[.,]\d)" for old in table))
    for old in table:
        n = len(re.findall(rf"(?<![\w.,]){re.escape(old)}(?![\w]|[.,]\d)", sentence))
        if n != 1:
            raise ValueError(f"{old!r} occurs {n} times in {sentence!r}")
    return pattern.sub(lambda m: table[m.group(0)], sentence)


def build() -> pd.DataFrame:
    refs = datasets.wmt16().drop_duplicates(["lp", "idx"]).set_index(["lp", "idx"])["ref"]
    rows = []
    for lp, idx, kind, replacements in EDITS:
        original = refs.loc[(lp, idx)]
        edited = apply_edit(original, replacements)
        assert edited != original
        change = "; ".join(f"{old} -> {new}" for old, new in replacements)
        rows.append(dict(kind=kind, lp=lp, idx=idx, original=original, edited=edited, change=change))
    return pd.DataFrame(rows)


if __name__ == "__main__":
    df = build()
    df.to_csv(OUT, index=False)
    print(f"wrote {len(df)} edits to {OUT.name}: {df['kind'].value_counts().to_dict()}")
