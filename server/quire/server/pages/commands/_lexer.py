"""POSIX-shell word splitting for one simple command; every shell operator is refused.

Quoting follows POSIX `sh` (and ``shlex.split(posix=True)``): single quotes are literal,
double quotes keep ``\\``, ``"``, ``$`` and backquote escapable, a backslash outside quotes
escapes the next character. Unquoted ``| ; & < > ( )``, newlines, backquotes and ``$``
expansions (``$(…)``, ``${…}``, ``$NAME``, ``$1``) are grammar errors because they would mean
pipes, chaining, redirection, subshells or substitution. ``#`` and ``~`` are ordinary characters.
"""

from __future__ import annotations

from dataclasses import dataclass

_OPERATORS = {
    "|": "pipes are not supported",
    ";": "command chaining (;) is not supported",
    "&": "command chaining and background jobs (&, &&) are not supported",
    "<": "redirection is not supported",
    ">": "redirection is not supported",
    "(": "subshells and grouping are not supported",
    ")": "subshells and grouping are not supported",
    "\n": "one command per call: newlines are not supported",
    "\r": "one command per call: newlines are not supported",
}
_GLOB = frozenset("*?[")


class GrammarError(Exception):
    """The command line is not one simple command we accept."""


@dataclass(frozen=True, slots=True)
class Word:
    """One argument. `glob` is set when an unquoted ``* ? [`` appeared; `pattern` is then the
    word as an fnmatch pattern with quoted glob characters escaped."""

    text: str
    glob: bool = False
    pattern: str = ""


def _expansion_error(line: str, index: int) -> GrammarError | None:
    """A `$` at `index` that would expand in a shell, or None for a literal `$`."""
    following = line[index + 1 : index + 2]
    if following == "(":
        return GrammarError("command substitution $(…) is not supported")
    if following and (following == "{" or following.isalnum() or following in "_@*#?!-$"):
        return GrammarError(
            "variable expansion ($…) is not supported; put literal $ in single quotes"
        )
    return None


def split_words(line: str) -> list[Word]:
    words: list[Word] = []
    text: list[str] = []
    pattern: list[str] = []
    glob = False
    started = False

    def literal(char: str) -> None:
        text.append(char)
        pattern.append(f"[{char}]" if char in _GLOB else char)

    def finish() -> None:
        nonlocal glob, started
        if started:
            value = "".join(text)
            words.append(Word(value, glob, "".join(pattern) if glob else ""))
        text.clear()
        pattern.clear()
        glob = False
        started = False

    i = 0
    n = len(line)
    while i < n:
        char = line[i]
        if char in " \t":
            finish()
            i += 1
            continue
        if char in _OPERATORS:
            raise GrammarError(_OPERATORS[char])
        if char == "`":
            raise GrammarError("command substitution (backquotes) is not supported")
        started = True
        if char == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise GrammarError("unterminated single quote")
            for quoted in line[i + 1 : end]:
                literal(quoted)
            i = end + 1
            continue
        if char == '"':
            i += 1
            while True:
                if i >= n:
                    raise GrammarError("unterminated double quote")
                quoted = line[i]
                if quoted == '"':
                    i += 1
                    break
                if quoted == "`":
                    raise GrammarError("command substitution (backquotes) is not supported")
                if quoted == "$":
                    error = _expansion_error(line, i)
                    if error is not None:
                        raise error
                if quoted == "\\" and i + 1 < n and line[i + 1] in '\\"$`':
                    literal(line[i + 1])
                    i += 2
                    continue
                if quoted == "\\" and i + 1 < n and line[i + 1] == "\n":
                    i += 2
                    continue
                literal(quoted)
                i += 1
            continue
        if char == "\\":
            if i + 1 >= n:
                raise GrammarError("trailing backslash")
            literal(line[i + 1])
            i += 2
            continue
        if char == "$":
            error = _expansion_error(line, i)
            if error is not None:
                raise error
        if char in _GLOB:
            glob = True
            text.append(char)
            pattern.append(char)
        else:
            literal(char)
        i += 1
    finish()
    return words
