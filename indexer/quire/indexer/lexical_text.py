"""What PostgreSQL's text parser cannot see on its own: CJK words and code identifiers.

PostgreSQL's default parser splits words at spaces and punctuation. Two kinds of text defeat it:

- **CJK runs.** Japanese and Chinese write without spaces, so a whole sentence
  (``クエリパラメータと文字列の検証``) becomes one lexeme that no query ever repeats. Each run of
  Han, kana or hangul characters is rewritten as its overlapping bigrams (``クエ エリ リパ …``),
  the classic indexing unit for CJK search when no morphological analyser is at hand; a query
  is rewritten the same way, so any two adjacent characters it shares with a page match.
- **Identifiers.** ``response_model_exclude_unset`` and ``app.dependency_overrides`` are split
  into common words (``response``, ``model``, …) and the exact name, the rarest and most
  telling token a developer types, is lost. ``identifiers`` returns such names whole, lower
  case (snake_case and dotted names, and each snake_case component of a dotted one), to be
  added as lexemes of their own beside what the parser makes of them.

Both are pure functions of the text, used alike on pages and on queries.
"""

from __future__ import annotations

import re

__all__ = ["cjk_bigrams", "has_cjk", "identifiers", "lexeme_literal"]

# Kana, CJK ideographs (extension A, compatibility), hangul syllables, half-width kana.
_CJK = (
    r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u31f0-\u31ff"
    r"\uff66-\uff9f"
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
# A run splits where the script changes: Japanese content words are kanji or katakana, the
# particles and inflections between them hiragana, so the boundaries fall between words.
_SCRIPT_SEGMENT = re.compile(
    r"[\u3040-\u309f]+|[\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]+|[\uac00-\ud7af]+"
    r"|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+"
)
_HIRAGANA = re.compile(r"[\u3040-\u309f]+")
_HAS_CJK = re.compile(f"[{_CJK}]")
# A name with an inner underscore or dot between word characters; not a number (`3.14`),
# not a file name (`main.py` is left to the parser), at most 80 characters.
_IDENTIFIER = re.compile(
    r"(?<![\w.])(?=[A-Za-z_]*[A-Za-z])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?![\w])"
)
_MAX_IDENTIFIER = 80


def has_cjk(text: str) -> bool:
    return _HAS_CJK.search(text) is not None


def cjk_bigrams(text: str) -> str:
    """``text`` with every CJK run replaced by its overlapping bigrams, space separated (a run
    of one character stays itself); everything else is unchanged."""
    if not has_cjk(text):
        return text

    def grams(match: re.Match[str]) -> str:
        out: list[str] = []
        for segment in _SCRIPT_SEGMENT.findall(match.group(0)):
            if _HIRAGANA.fullmatch(segment) and len(segment) <= 2:
                continue  # particles and inflections (を, に, した): Japanese stop words
            if len(segment) == 1:
                out.append(segment)
            else:
                out.extend(segment[i : i + 2] for i in range(len(segment) - 1))
        return " " + " ".join(out) + " "

    return _CJK_RUN.sub(grams, text)


def identifiers(text: str) -> list[str]:
    """Distinct code identifiers the parser would split, lower case, in order of appearance."""
    found: dict[str, None] = {}
    for match in _IDENTIFIER.finditer(text):
        token = match.group(0).strip("_.")
        if len(token) > _MAX_IDENTIFIER or ("_" not in token.strip("_") and "." not in token):
            continue
        parts = token.split(".")
        if "." in token and not any(p[:1].isalpha() and p.isidentifier() for p in parts[1:]):
            continue
        lowered = token.lower()
        if "." in lowered and lowered.rsplit(".", 1)[1] in _FILE_SUFFIXES:
            # main.py, settings.toml: the parser keeps file names whole already; a snake_case
            # stem (`tutorial009_py310.py`) is a name of its own.
            stem = lowered.rsplit(".", 1)[0]
            if "_" in stem.strip("_") and "." not in stem:
                found.setdefault(stem.strip("_"))
            continue
        found.setdefault(lowered)
        if "." in lowered:
            for part in lowered.split("."):
                if "_" in part.strip("_"):
                    found.setdefault(part.strip("_"))
    return list(found)


_FILE_SUFFIXES = frozenset(
    {"py", "md", "txt", "toml", "yaml", "yml", "json", "cfg", "ini", "js", "ts", "html", "css"}
)


def lexeme_literal(lexemes: list[str], weight: str = "D") -> str:
    """A tsvector literal holding `lexemes` at position 1 with `weight`; '' when empty.
    Identifiers are made of word characters and dots only, so nothing needs escaping; any
    quote or backslash is doubled all the same."""
    return " ".join(
        "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + f"':1{weight}" for lexeme in lexemes
    )
