"""Notes the demo shows above its picture, each saying what is true of a text as the model reads it:
a script it reads badly (letters cut about one piece each, or unknown), words cut into pieces
(misspellings, rare or non-English words), characters it has no piece for (emoji: [UNK]), a text
with no words at all (punctuation, digits, symbols), and a missing CJK font."""
from __future__ import annotations

import re
import shutil
import unicodedata
import subprocess
import sys
from pathlib import Path

from course_lib.demo.scoring import PairView, escape

_SCRIPTS = {"zh": re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"),
            "ja": re.compile(r"[\u3040-\u30ff]"), "ko": re.compile(r"[\u1100-\u11ff\uac00-\ud7af]")}
_CJK = re.compile("|".join(p.pattern for p in _SCRIPTS.values()))
_CJK_FAMILIES = ("CJK", "Source Han", "Hei", "Gothic", "Mincho", "Ming", "Song", "Kai", "YaHei",
                 "PingFang", "Hiragino", "DroidSansFallback", "WenQuanYi", "Nanum", "Malgun", "Meiryo")
BAD_PIECES_PER_CHAR = 0.75  # English text: about 0.25 word pieces per character; French, German ~0.45
BAD_UNKNOWN_SHARE = 0.10
# Words cut into word pieces: "Teh wether is freezng todya." cuts 4 of its 5 words; English prose
# cuts about 1 word in 8 ("interlocutory"), German or French about half.
SPLIT_WORDS_SHARE = 0.5  # more than this share of the words, and at least SPLIT_WORDS_MIN of them
SPLIT_WORDS_MIN = 2


def _fc_list(lang: str) -> list[str]:
    """Font families covering `lang`, from fontconfig (the fonts installed now, as the browser
    sees them); [] when fontconfig is missing."""
    fc = shutil.which("fc-list")
    if fc is None:
        return []
    try:
        out = subprocess.run([fc, f":lang={lang}", "family"], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return sorted({line.split(",")[0].strip() for line in out.splitlines() if line.strip()})


def cjk_font(lang: str = "zh") -> str | None:
    """An installed font with glyphs for `lang` ('zh', 'ja' or 'ko'), or None.

    Asked of the system each time, not of matplotlib's font cache (which can predate the font):
    fontconfig on Linux; macOS and Windows ship CJK fonts; elsewhere, font files whose names
    say CJK."""
    if sys.platform == "darwin":
        return "PingFang SC"
    if sys.platform == "win32":
        return "Microsoft YaHei"
    if shutil.which("fc-list"):
        found = _fc_list(lang)
        return found[0] if found else None
    from matplotlib import font_manager

    for path in font_manager.findSystemFonts():
        name = Path(path).name
        if any(f.replace(" ", "").lower() in name.lower() for f in _CJK_FAMILIES):
            return name
    return None


def _reading(tokens: list[str], weights, text: str) -> tuple[int, int, int]:
    """(word pieces, unknown pieces, letters) of one text; [CLS]/[SEP] (weight 0) left out."""
    pieces = [t for t, w in zip(tokens, weights.tolist()) if w > 0]
    return len(pieces), sum(t == "[UNK]" for t in pieces), sum(c.isalpha() for c in text)


def _latin_share(text: str) -> float:
    """The share of the letters of `text` that are Latin (1.0 for a text without letters)."""
    letters = [c for c in text if c.isalpha()]
    return sum(unicodedata.name(c, "").startswith("LATIN") for c in letters) / len(letters) if letters else 1.0


def _split_words(tokens: list[str], weights) -> list[str]:
    """The words a WordPiece tokenizer cut into several pieces ("wether" -> "wet ##her"), as pieces."""
    pieces = [t for t, w in zip(tokens, weights.tolist()) if w > 0]
    words: list[list[str]] = []
    for piece in pieces:
        if piece.startswith("##") and words:
            words[-1].append(piece)
        else:
            words.append([piece])
    return [" ".join(w) for w in words if len(w) > 1]


def _word_count(tokens: list[str], weights) -> int:
    return sum(1 for t, w in zip(tokens, weights.tolist()) if w > 0 and not t.startswith("##") and t[:1].isalpha())


def _text_notes(side: str, tokens: list[str], weights, text: str) -> list[str]:
    """What is worth saying about how the model reads one side's text (none for plain English)."""
    pieces, unknown, letters = _reading(tokens, weights, text)
    if not pieces:
        return []
    if not letters:
        return [f"The {side} has no words, only punctuation, digits or symbols ({pieces} word pieces): "
                "BERTScore compares those pieces' vectors, which says little about meaning."]
    if _latin_share(text) < 0.5:
        if pieces / letters >= BAD_PIECES_PER_CHAR or unknown / pieces >= BAD_UNKNOWN_SHARE:
            what = (f"{unknown} of its {pieces} word pieces are unknown to it ([UNK], all compared as "
                    "the same token)" if unknown else
                    f"it cuts these {letters} letters into {pieces} word pieces (about one per letter)")
            return [f"The {side} is in a script this model reads badly: {what}. The model "
                    "learned English; its scores for this text say little (compare ROUGE-L)."]
        return []
    notes = []
    if unknown:
        symbols = sorted({c for c in text if unicodedata.category(c) in ("So", "Sk", "Co", "Cn")})
        shown = f" (here {' '.join(symbols)})" if symbols else ""
        notes.append(f"{unknown} of the {side}'s word pieces are [UNK]: characters this model has no piece "
                     f"for{shown}, such as emoji, all compared as one and the same token.")
    split, words = _split_words(tokens, weights), _word_count(tokens, weights)
    if any("##" in p for p in tokens) and len(split) >= SPLIT_WORDS_MIN and len(split) > SPLIT_WORDS_SHARE * words:
        example = f"{split[0].replace(' ##', '')} → {split[0]}"
        notes.append(f"{len(split)} of the {side}'s {words} words are cut into word pieces (e.g. {example}): "
                     "misspelled, rare or non-English words. BERTScore compares the pieces, so F drops "
                     "even where a reader would still see the meaning.")
    return notes


def script_notes(view: PairView, texts: tuple[str, str]) -> str:
    """Notes above the picture (see the module's docstring), for each text, and for Chinese,
    Japanese or Korean text without a font to show it."""
    notes = []
    for side, tokens, weights, text in (("candidate", view.cand_tokens, view.cand_weights, texts[0]),
                                        ("reference", view.ref_tokens, view.ref_weights, texts[1])):
        notes += _text_notes(side, tokens, weights, text)
    missing = [lang for lang, pattern in _SCRIPTS.items()
               if any(pattern.search(t) for t in texts) and cjk_font(lang) is None]
    if missing:
        names = ", ".join({"zh": "Chinese", "ja": "Japanese", "ko": "Korean"}[m] for m in missing)
        notes.append(f"No font for {names} was found on this machine: the characters may show as "
                     "empty boxes (install e.g. Noto Sans CJK; Debian: fonts-noto-cjk).")
    return "".join(f'<div class="bsd-note">{escape(n)}</div>' for n in notes)
