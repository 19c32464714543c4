"""A stand-in for a model in the tool-loop examples: deterministic, no network.

It plays the part a real model plays in a tool loop, reading only what a model would read:
the question and the tool results (JSON text). It searches, corrects a refused argument from
the error's `field` and `bound`, reads the best hit at its revision, and answers with the
start of the page. Swap it for a call to your model's API; the loop around it stays the same.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass
class StandInModel:
    """Decides the next step from the tool results so far; None from `next_call` means answer."""

    question: str
    # The first search asks for more hits than the default policy allows, to show a model
    # correcting itself from a tool error.
    first_limit: int = 50
    results: list[tuple[ToolCall, str]] = field(default_factory=list)

    def next_call(self) -> ToolCall | None:
        if not self.results:
            return ToolCall("search_pages", {"query": self.question, "limit": self.first_limit})
        call, text = self.results[-1]
        body = json.loads(text)
        if "error" in body:
            if body.get("field") == "limit" and (m := re.fullmatch(r"(\d+)–(\d+)", body["bound"])):
                return ToolCall(call.name, {**call.arguments, "limit": int(m.group(2))})
            return None
        if call.name == "search_pages" and body["hits"]:
            best = body["hits"][0]
            return ToolCall(
                "read_page", {"path": best["path"], "revision": best["revision"], "max_chars": 400}
            )
        return None

    def answer(self) -> str:
        for call, text in reversed(self.results):
            if call.name == "read_page" and "error" not in json.loads(text):
                page = json.loads(text)
                words = " ".join(page["content"].split())  # one line
                return f"From {page['page']['path']}: {words[:200]}"
        return "I could not find it."
