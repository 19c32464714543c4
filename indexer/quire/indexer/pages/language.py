"""Which language a page or a query is written in, and which PostgreSQL text search
configuration stems it.

A page's language is, in order: the language its front matter declares (``lang``,
``language``, ``locale``); the language its prose is confidently written in (py3langid over
the text outside code, at least ``MIN_PROSE_BYTES`` of it); a language code leading its path
(``/ja/tutorial/…``, ``/pt-br/…``); else the namespace's default language. Tags are
lower-case BCP 47 (``en``, ``ja``, ``pt-br``).

A query is too short for a statistical detector, so its language comes from its script when
that names one (kana → ``ja``, hangul → ``ko``, han alone → ``zh`` unless the namespace has
Japanese pages, …); queries in Latin script are long enough to detect only rarely, so they are
taken as the namespace's default language unless py3langid is confident about a longer one
and the namespace has pages in that language.

``text_search_config`` maps a tag to one of PostgreSQL's built-in Snowball configurations
(``english``, ``german``, …); a language without one (Japanese, Chinese, Korean, Polish, …)
gets ``simple``: it is still indexed and searched, just not stemmed.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection
from typing import Any

__all__ = [
    "DEFAULT_LANGUAGE",
    "normalise_tag",
    "page_language",
    "path_language",
    "prose_language",
    "query_language",
    "text_search_config",
]

DEFAULT_LANGUAGE = "en"
# Below this much prose (code blocks and inline code removed), in UTF-8 bytes so that CJK
# text (three bytes a character, and denser) counts fairly, detection is a guess.
MIN_PROSE_BYTES = 200
# py3langid's normalised probability a page's detection must reach.
MIN_CONFIDENCE = 0.9
# A Latin-script query needs this many words before its detected language can override the
# namespace's default (short queries are mostly names and identifiers).
MIN_QUERY_WORDS = 6

# ISO 639-1 primary subtag → PostgreSQL's built-in Snowball configuration (PostgreSQL 15+;
# a configuration the server lacks falls back to simple in SQL, via to_regconfig).
_CONFIGS = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "no": "norwegian",
    "nb": "norwegian",
    "nn": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}
# Languages docs sites are commonly translated into: a path segment that is one of these
# (optionally with a region or script, `zh-hans`, `pt_BR`) names the page's language.
_PATH_LANGUAGES = frozenset(
    {
        *_CONFIGS,
        "ja",
        "zh",
        "ko",
        "pl",
        "cs",
        "sk",
        "uk",
        "bg",
        "vi",
        "th",
        "he",
        "fa",
        "bn",
        "ms",
        "tl",
        "az",
        "uz",
        "kk",
        "hr",
        "sl",
        "et",
        "lv",
    }
)
_TAG = re.compile(r"^([a-z]{2,3})(?:[-_]([a-z0-9]{2,8}))*$")
_PATH_SEGMENT = re.compile(r"^([a-z]{2})(?:[-_]([a-z]{2}|[a-z]{4}))?$")
_FENCED = re.compile(r"^( {0,3})(`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}\2[`~]*[ \t]*$|\Z)", re.M | re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_MARKUP = re.compile(r"<[^>\n]*>|\]\([^)\s]*\)|https?://\S+")


def normalise_tag(tag: str | None) -> str | None:
    """A lower-case BCP 47 tag (``pt_BR`` → ``pt-br``), or None when it is not one."""
    if not tag:
        return None
    cleaned = tag.strip().lower().replace("_", "-")
    return cleaned if _TAG.match(cleaned) else None


def text_search_config(tag: str | None) -> str:
    """PostgreSQL's text search configuration for a language tag: its Snowball stemmer, or
    ``simple`` (unstemmed) for a language without one or an unknown tag."""
    if not tag:
        return "simple"
    return _CONFIGS.get(tag.split("-", 1)[0], "simple")


def path_language(path: str) -> str | None:
    """The language named by a leading path segment (``/ja/tutorial/x.md`` → ``ja``)."""
    first = path.lstrip("/").split("/", 1)
    if len(first) < 2:  # a file at the root (`/es.md`) is not a language folder
        return None
    match = _PATH_SEGMENT.match(first[0].lower())
    if match is None or match.group(1) not in _PATH_LANGUAGES:
        return None
    return first[0].lower().replace("_", "-")


@functools.cache
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def prose(text: str) -> str:
    """The text without code blocks, inline code, tags, link targets and URLs."""
    text = _FENCED.sub(" ", text)
    text = _INLINE_CODE.sub(" ", text)
    return _MARKUP.sub(" ", text)


def prose_language(text: str) -> tuple[str | None, float]:
    """(language, confidence) of the prose in ``text``; (None, 0) when there is too little."""
    words = prose(text)
    if len(words.strip().encode()) < MIN_PROSE_BYTES:
        return None, 0.0
    # The detector's cost grows with the text; the first 4,000 characters of prose decide.
    language, confidence = _identifier().classify(words[:4000])
    return str(language), float(confidence)


def page_language(
    *, path: str, text: str, declared: str | None = None, default: str = DEFAULT_LANGUAGE
) -> str:
    """The language of a page (see the module docstring for the order of evidence)."""
    tag = normalise_tag(declared)
    if tag is not None:
        return tag
    detected, confidence = prose_language(text)
    from_path = path_language(path)
    if detected is not None and confidence >= MIN_CONFIDENCE:
        # A path's region or script (`pt-br`, `zh-hant`) is finer than the detector's answer.
        if from_path is not None and from_path.split("-", 1)[0] == detected:
            return from_path
        return detected
    return from_path or normalise_tag(default) or DEFAULT_LANGUAGE


def _script_language(text: str, present: Collection[str]) -> str | None:
    kana = hangul = han = 0
    other: dict[str, int] = {}
    for ch in text:
        if not ch.isalpha():
            continue
        name = unicodedata.name(ch, "")
        if name.startswith(("HIRAGANA", "KATAKANA")):
            kana += 1
        elif name.startswith("HANGUL"):
            hangul += 1
        elif name.startswith("CJK"):
            han += 1
        else:
            script = name.split(" ", 1)[0]
            if script in _SCRIPT_LANGUAGES:
                other[script] = other.get(script, 0) + 1
    if kana:
        return "ja"
    if hangul:
        return "ko"
    if han:
        return "ja" if _has(present, "ja") and not _has(present, "zh") else "zh"
    if other:
        script = max(other, key=lambda s: other[s])
        return _SCRIPT_LANGUAGES[script]
    return None


# Scripts that name one language well enough for a query (Latin does not).
_SCRIPT_LANGUAGES = {
    "CYRILLIC": "ru",
    "GREEK": "el",
    "ARABIC": "ar",
    "HEBREW": "he",
    "DEVANAGARI": "hi",
    "TAMIL": "ta",
    "THAI": "th",
    "ARMENIAN": "hy",
}


def _has(present: Collection[str], primary: str) -> bool:
    return any(tag.split("-", 1)[0] == primary for tag in present)


def _closest(present: Collection[str], primary: str) -> str:
    """The namespace's tag for a primary language (`pt` → `pt-br` when that is what it has)."""
    for tag in sorted(present):
        if tag.split("-", 1)[0] == primary:
            return tag
    return primary


def query_language(
    query: str, *, present: Collection[str] = (), default: str = DEFAULT_LANGUAGE
) -> str:
    """The language a query is written in, among the namespace's languages `present`."""
    by_script = _script_language(query, present)
    if by_script is not None:
        return _closest(present, by_script)
    if len(query.split()) >= MIN_QUERY_WORDS:
        detected, confidence = _identifier().classify(prose(query))
        if confidence >= MIN_CONFIDENCE and _has(present, str(detected)):
            return _closest(present, str(detected))
    return normalise_tag(default) or DEFAULT_LANGUAGE
