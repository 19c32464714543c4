"""BM25 as both full-text arms compute it, the formula written once.

Per matched lexeme: idf × (k1 + 1) / (1 + k1 × (1 − b + b × length / avgdl)), where tf is
counted once (chunks are short: a repeated word is rarely a stronger match), length is the
chunk's number of distinct lexemes and idf = ln(1 + (N − df + 0.5) / (df + 0.5)) over the
N chunks the statistics cover. Lexemes in more than a share of the chunks are dropped, except
that one in at most DF_ALWAYS_KEPT chunks is always kept (small corpora).

The statements around the formula differ on purpose, so each corpus builds its own:
- Pages (pages/search.py `LEXICAL`) is one statement on a generic plan: it reads each lexeme
  from a lateral row, looks it up in two analyses (exact and stemmed) and adds a field bonus
  and a key-token count per lexeme, all in SQL.
- Knowledge (knowledge/bm25.py) reads the terms of several (collection, generation) pairs
  first, chooses them in Python, then runs one branch per term with the lexeme as its own
  parameter, so the custom plan sees each lexeme and uses the GIN index for it.
Both keep the association order of the arithmetic they always had, so scores are the same to
the last bit: `saturation` returns the formula without outer parentheses for that reason.
"""

from __future__ import annotations

import math

# Lexemes in at most this many chunks are kept whatever `max_df_ratio` says.
DF_ALWAYS_KEPT = 20


def idf(chunks: float, df: float) -> float:
    return math.log(1 + (chunks - df + 0.5) / (df + 0.5))


def kept(chunks: float, df: float, max_df_ratio: float) -> bool:
    """Whether a lexeme in `df` of `chunks` chunks takes part in the ranking."""
    return df <= max(chunks * max_df_ratio, DF_ALWAYS_KEPT)


def idf_sql(chunks: str, df: str) -> str:
    """`idf` of the SQL expressions `chunks` and `df` (float8)."""
    return f"ln(1 + ({chunks} - {df} + 0.5::float8) / ({df} + 0.5::float8))"


def kept_sql(chunks: str, df: str, max_df_ratio: str) -> str:
    """`kept` of SQL expressions."""
    return f"{df} <= greatest({chunks} * {max_df_ratio}, {DF_ALWAYS_KEPT})"


def saturation(k1: str, b: str, length: str, avgdl: str) -> str:
    """The SQL of (k1 + 1) / (1 + k1 × (1 − b + b × length / avgdl)) for SQL expressions; not
    parenthesised, so `w * <this>` evaluates as (w × (k1 + 1)) / (…), as knowledge always
    has."""
    return f"({k1} + 1) / (1 + {k1} * (1 - {b} + {b} * {length} / {avgdl}))"
