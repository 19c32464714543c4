"""Hostile and odd YAML front matter: read through PyYAML's events, bounded in time and kind."""

from __future__ import annotations

import time

from quire.indexer.pages.frontmatter import YAML_MAX_CHARS, front_matter_string, split_front_matter


def front(block: str) -> str:
    return f"---\n{block}\n---\nBody\n"


def test_alias_bomb_is_not_expanded() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 10):
        previous = chr(ord("a") + level - 1)
        name = chr(ord("a") + level)
        lines.append(f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]")
    lines.append("title: Still read")
    started = time.monotonic()
    page = split_front_matter(front("\n".join(lines)))
    assert time.monotonic() - started < 1.0
    assert page.title == "Still read" and page.body == "Body\n"


def test_an_alias_value_reads_as_nothing() -> None:
    page = split_front_matter(front("name: &n Real\ntitle: *n\nkeywords: *n"))
    assert (page.title, page.keywords) == (None, ())


def test_deep_nesting_costs_no_recursion() -> None:
    deep = "[" * 20_000 + "]" * 20_000
    started = time.monotonic()
    page = split_front_matter(front(f"title: Before\nnested: {deep}"))
    assert time.monotonic() - started < 1.0
    assert page.title == "Before"  # libyaml refuses the nesting; what came before stays


def test_tags_construct_nothing() -> None:
    block = "title: !!python/object/apply:os.system ['echo no']\ndescription: !!binary aGk="
    page = split_front_matter(front(block))
    # Never a call: at most the value's text, tag included.
    assert page.title == "!!python/object/apply:os.system ['echo no']"
    assert page.description == "aGk="


def test_a_block_over_the_bound_is_split_off_but_not_read() -> None:
    block = "title: Big\nfiller: " + "x" * YAML_MAX_CHARS
    page = split_front_matter(front(block))
    assert (page.title, page.body, page.raw) == (None, "Body\n", block)


def test_keys_before_a_syntax_error_are_kept() -> None:
    page = split_front_matter(front("title: Kept\ndescription: a: b: c\nlang: fr"))
    assert page.title == "Kept" and page.description is None


def test_scalars_keep_their_written_text() -> None:
    page = split_front_matter(front("title: 2024\ndescription: no\nkeywords: [yes, 1.0, null]"))
    assert (page.title, page.description, page.keywords) == ("2024", "no", ("yes", "1.0"))


def test_first_of_repeated_keys_wins_and_only_the_first_document_is_read() -> None:
    assert split_front_matter(front("title: One\ntitle: Two")).title == "One"
    assert front_matter_string(front("other: 1\n--- \ntitle: Second doc"), "title") is None


def test_a_block_that_is_not_a_mapping_has_no_fields() -> None:
    assert split_front_matter(front("- title\n- x")).title is None
    assert split_front_matter(front("just text")).title is None
