"""Readers for the real data in data/ (each folder has PROVENANCE.md and its licence)."""
from __future__ import annotations

import csv
import json
import pandas as pd

from course_lib.paths import DATA, data_file  # DATA: the folder, for the chapters


def wmt16() -> pd.DataFrame:
    """WMT16 segment-level DA, to-English: lp, idx, src, mt, ref, human_z (3,360 rows)."""
    return pd.read_csv(data_file("wmt16_da", "wmt16_da_seg_to_en.csv"))


def stsb(split: str | None = None) -> pd.DataFrame:
    """STS Benchmark: split, genre, source, year, sid, score (0-5), sentence1, sentence2."""
    df = pd.read_csv(data_file("stsb", "stsb_all.csv"), keep_default_na=False, dtype={"sid": str})
    return df if split is None else df[df["split"] == split].reset_index(drop=True)


def paws() -> pd.DataFrame:
    """PAWS-Wiki labelled, dev split: id, sentence1, sentence2, label (1 = paraphrase)."""
    return pd.read_csv(data_file("paws_wiki", "dev.tsv"), sep="\t", quoting=csv.QUOTE_NONE,
                       keep_default_na=False)


def summeval() -> tuple[pd.DataFrame, pd.DataFrame]:
    """SummEval: (docs: doc_id, src, ref, refs (list of 11 references);
    summaries: doc_id, system, summary, coherence, consistency, fluency, relevance)."""
    docs = pd.read_csv(data_file("summeval", "summeval_docs.csv"))
    docs["refs"] = docs["refs_json"].map(json.loads)
    return docs, pd.read_csv(data_file("summeval", "summeval_summaries.csv"))


def baseline_corpus() -> list[str]:
    """The sentences the course draws random pairs from for its baseline b.

    The paper used Common Crawl; offline we pool three kinds of English text shipped here:
    WMT16 references (news), STS-B sentences (captions, headlines, forums) and PAWS-Wiki
    sentences (Wikipedia). Unique, non-empty, in a fixed order.
    """
    texts = wmt16()["ref"].tolist()
    df = stsb()
    texts += df["sentence1"].tolist() + df["sentence2"].tolist()
    texts += paws()["sentence1"].tolist()
    return sorted({t.strip() for t in texts if isinstance(t, str) and t.strip()})
