"""The full-text arm's query: OR of the query's lexemes, so long questions still match."""

from __future__ import annotations

# plainto_tsquery quotes every lexeme and joins them with '&'; swapping the operator gives
# an OR query without hand-building tsquery syntax from user text.
OR_QUERY = "replace(plainto_tsquery({config}, {param})::text, ' & ', ' | ')::tsquery"


def or_query(param: str, config: str = "'simple'") -> str:
    return OR_QUERY.format(config=config, param=param)


# A tsquery holding exactly the lexeme in `column` (no parsing): quoted, with backslashes and
# quotes escaped as tsquery input wants them; with `weights` ("A", "AB", …) it matches only
# occurrences that carry one of those weights.
LEXEME_QUERY = (
    r"""('''' || replace(replace({column}, '\', '\\'), '''', '''''') || '''{suffix}')"""
    "::tsquery"
)


def lexeme_query(column: str, weights: str = "") -> str:
    return LEXEME_QUERY.format(column=column, suffix=f":{weights}" if weights else "")


# Characters of a document's text that LEGACY_FTS snippets are cut from.
HEADLINE_CHARS = 100_000


def headline(text: str, query: str) -> str:
    """LEGACY_FTS's snippet of the SQL expression `text` for the tsquery `query`: one
    fragment of 12–32 words."""
    return (
        f"ts_headline('simple', left({text}, {HEADLINE_CHARS}), {query}, "
        "'MaxWords=32, MinWords=12, MaxFragments=1')"
    )
