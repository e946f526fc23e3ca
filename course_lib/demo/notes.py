"""Notes the demo shows above its picture: a script the model reads badly, a missing CJK font."""
from __future__ import annotations

import re
import shutil
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
    """(word pieces, unknown pieces, characters) of one text; [CLS]/[SEP] (weight 0) left out."""
    pieces = [t for t, w in zip(tokens, weights.tolist()) if w > 0]
    return len(pieces), sum(t == "[UNK]" for t in pieces), sum(not c.isspace() for c in text)


def script_notes(view: PairView, texts: tuple[str, str]) -> str:
    """Notes above the picture: a script the model reads badly (about a word piece per letter, or
    many unknown pieces: an English model's scores then say little), and for Chinese, Japanese or
    Korean text a missing font."""
    notes = []
    for side, tokens, weights, text in (("candidate", view.cand_tokens, view.cand_weights, texts[0]),
                                        ("reference", view.ref_tokens, view.ref_weights, texts[1])):
        pieces, unknown, chars = _reading(tokens, weights, text)
        if chars and (pieces / chars >= BAD_PIECES_PER_CHAR or unknown / max(pieces, 1) >= BAD_UNKNOWN_SHARE):
            what = (f"{unknown} of its {pieces} word pieces are unknown to it ([UNK], all compared as "
                    "the same token)" if unknown else
                    f"it cuts these {chars} characters into {pieces} word pieces (about one per letter)")
            notes.append(f"The {side} is in a script this model reads badly: {what}. The model "
                         "learned English; its scores for this text say little (compare ROUGE-L).")
    missing = [lang for lang, pattern in _SCRIPTS.items()
               if any(pattern.search(t) for t in texts) and cjk_font(lang) is None]
    if missing:
        names = ", ".join({"zh": "Chinese", "ja": "Japanese", "ko": "Korean"}[m] for m in missing)
        notes.append(f"No font for {names} was found on this machine: the characters may show as "
                     "empty boxes (install e.g. Noto Sans CJK; Debian: fonts-noto-cjk).")
    return "".join(f'<div class="bsd-note">{escape(n)}</div>' for n in notes)
