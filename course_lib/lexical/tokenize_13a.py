"""sacrebleu's default "13a" tokenizer (after mteval-v13a.pl), written out so that
`course_lib.lexical.bleu` matches sacrebleu's BLEU to the last digit.

Every ASCII punctuation mark except ' - . , becomes a token; periods and commas are split off
unless they sit inside a number; a dash after a digit is split off. No lowercasing.
"""

import re


# HTML entities that mteval-v13a un-escapes before tokenizing.
_HTML_ENTITIES = {"&quot;": '"', "&amp;": "&", "&lt;": "<", "&gt;": ">"}

# Every ASCII punctuation mark except the apostrophe, the hyphen, the period and
# the comma becomes a token of its own, wherever it stands.
_ALWAYS_SPLIT = "!\"#$%&()*+/:;<=>?@[\\]^_`{|}~"
_ALWAYS_SPLIT_RE = re.compile("([" + re.escape(_ALWAYS_SPLIT) + "])")

# Periods and commas are split off unless they sit inside a number: "3.5" and
# "1,000" stay whole, "end." and "a,b" are split. The two rules run one after
# the other; each regex consumes the neighbouring character, as mteval does.
_POINT_AFTER_NON_DIGIT_RE = re.compile(r"([^0-9])([.,])")
_POINT_BEFORE_NON_DIGIT_RE = re.compile(r"([.,])([^0-9])")

# A dash right after a digit is split off: "2-3" -> "2 - 3", but "e-mail" stays.
_DASH_AFTER_DIGIT_RE = re.compile(r"([0-9])(-)")


def tokenize_13a(text: str) -> list[str]:
    """Split ``text`` into tokens the way sacrebleu's BLEU does by default.

    Steps (language independent, then Western punctuation rules):

    1. strip trailing whitespace (sacrebleu does this before tokenizing),
    2. drop the marker ``<skipped>``, join words hyphenated across lines
       (``"-\\n"`` -> ``""``), turn the remaining newlines into spaces,
    3. un-escape ``&quot; &amp; &lt; &gt;``,
    4. pad with one space on each side (so that a period at the very end
       or start of the line is seen with a non-digit neighbour),
    5. apply the punctuation rules above, then split on whitespace.

    No lowercasing: BLEU is case sensitive by default.

    >>> tokenize_13a("It costs $20.00, doesn't it?")
    ['It', 'costs', '$', '20.00', ',', "doesn't", 'it', '?']
    """
    line = text.rstrip()
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    for entity, char in _HTML_ENTITIES.items():
        line = line.replace(entity, char)
    line = f" {line} "
    line = _ALWAYS_SPLIT_RE.sub(r" \1 ", line)
    line = _POINT_AFTER_NON_DIGIT_RE.sub(r"\1 \2 ", line)
    line = _POINT_BEFORE_NON_DIGIT_RE.sub(r" \1 \2", line)
    line = _DASH_AFTER_DIGIT_RE.sub(r"\1 \2 ", line)
    return line.split()
