"""Tests for quire.indexer.pages.transforms (profiles, front matter, MDX, title fallback)."""

from __future__ import annotations

import pytest

from quire.indexer.pages.frontmatter import split_front_matter
from quire.indexer.pages.transforms import (
    DEFAULT_TRANSFORM,
    TRANSFORMS,
    TransformedPage,
    TransformRejected,
    UnknownTransform,
    apply_transform,
    title_from_markdown,
)
from tests.conftest import shared_or_skip


def test_profiles() -> None:
    assert set(TRANSFORMS) == {"none", "markdown", "mintlify", "fumadocs"}
    assert DEFAULT_TRANSFORM == "markdown"


@pytest.mark.parametrize("name", ["", "Markdown", "html", "mdx", "markdown "])
def test_unknown_transform(name: str) -> None:
    with pytest.raises(UnknownTransform):
        apply_transform(name, "text")
    assert issubclass(UnknownTransform, ValueError)


@pytest.mark.parametrize("name", ["none", "markdown", "mintlify", "fumadocs"])
@pytest.mark.parametrize("text", ["\x00", "a\x00b", "---\ntitle: x\x00\n---\n", "```\n\x00\n```"])
def test_nul_is_rejected_by_every_profile(name: str, text: str) -> None:
    with pytest.raises(TransformRejected):
        apply_transform(name, text)
    assert issubclass(TransformRejected, ValueError)


def test_none_keeps_the_text() -> None:
    text = "\ufeff---\r\ntitle: X\r\n---\r\n# Body\r<Note>x</Note>\n"
    assert apply_transform("none", text) == TransformedPage(text, None)


# --- markdown ------------------------------------------------------------------------------------


def test_markdown_line_ends_and_bom() -> None:
    page = apply_transform("markdown", "\ufeff# T\r\nline\rmore\n\r\n")
    assert page == TransformedPage("# T\nline\nmore\n\n", None)


def test_markdown_keeps_everything_else() -> None:
    text = "# Title\n\n<Note>kept</Note>\n\n```\n---\ntitle: no\n---\n```\n"
    assert apply_transform("markdown", text).text == text


@pytest.mark.parametrize(
    ("front", "title"),
    [
        ("title: Plain title", "Plain title"),
        ("title:   spaced   out  ", "spaced out"),
        ('title: "Double \\"quoted\\" \\u00e9"', 'Double "quoted" é'),
        ("title: 'It''s single'", "It's single"),
        ("title: Plain # a comment", "Plain"),
        ("title: C# in depth", "C# in depth"),
        ("title: >\n  Folded\n  title\nother: x", "Folded title"),
        ("title: |-\n  Literal\nother: x", "Literal"),
        ("title: Long\n  continued\nother: 1", "Long continued"),
        ("description: x\ntitle: Second key", "Second key"),
        ("title:", None),
        ('title: ""', None),
        ("nested:\n  title: Not top level", None),
        ("subtitle: nope", None),
        ("", None),
    ],
)
def test_yaml_front_matter_title(front: str, title: str | None) -> None:
    page = apply_transform("markdown", f"---\n{front}\n---\n# Body\n")
    assert page == TransformedPage("# Body\n", title)


def test_yaml_front_matter_closed_by_dots_and_crlf() -> None:
    page = apply_transform("markdown", "---\r\ntitle: Dots\r\n...\r\nBody\r\n")
    assert page == TransformedPage("Body\n", "Dots")


@pytest.mark.parametrize(
    ("front", "title"),
    [
        ('title = "TOML title"', "TOML title"),
        ("title = 'literal'\ndraft = true", "literal"),
        ("draft = true\n[params]\ntitle = 'nested'", None),
        ("title = 3", None),
        ('title = "broken toml\nx = = y\ntitle2 = 1', None),
        ('x = = y\ntitle = "fallback"', "fallback"),
    ],
)
def test_toml_front_matter_title(front: str, title: str | None) -> None:
    page = apply_transform("markdown", f"+++\n{front}\n+++\nBody\n")
    assert page == TransformedPage("Body\n", title)


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: unclosed\n# Body\n",  # no closing line: not front matter
        "# Body\n---\ntitle: later\n---\n",  # not at the start
        " ---\ntitle: x\n---\n",
        "----\ntitle: x\n----\n",
    ],
)
def test_not_front_matter(text: str) -> None:
    assert apply_transform("markdown", text) == TransformedPage(text, None)


def test_split_front_matter_keeps_the_raw_block() -> None:
    front = split_front_matter("---\na: 1\ntitle: T\n---\n\nBody")
    assert (front.title, front.body, front.raw) == ("T", "\nBody", "a: 1\ntitle: T")


# --- mintlify ------------------------------------------------------------------------------------

MINTLIFY = """---
title: "Quick start"
---
import { Foo } from "../foo"
import Bar from './bar.mdx'
import {
  A,
  B,
} from "c"
export const meta = {
  a: 1,
}

# Quick start

Important: imports in prose stay.

{/* hidden comment */}

<Note>
  Read this **first**.

  Second paragraph.
</Note>

<Warning>Careful.</Warning>

<Tip title="Pro">Short tip</Tip>

<CardGroup cols={2}>
  <Card title="API" href="/api" icon="code">
    The API reference.
  </Card>
  <Card title="Guides" icon={<Icon name="x" />} />
</CardGroup>

<Tabs>
  <Tab title="npm">
    ```bash
    npm i quire
    ```
  </Tab>
  <Tab title="pip">
    ```bash
    pip install quire
    ```
  </Tab>
</Tabs>

<Steps>
  <Step title="Install">Run the installer.</Step>
  <Step title="Configure">Edit the `<Config>` file.</Step>
</Steps>

<AccordionGroup>
  <Accordion title="FAQ">Answer.</Accordion>
</AccordionGroup>

<ParamField path="id" type="string" required>
  The identifier.
</ParamField>

<Snippet file="x.mdx" />

```jsx
<Note>kept in code</Note>
import x from "y"
```

Text with `<Tab>` inline and <Tooltip tip="t">hover</Tooltip> word.
"""

MINTLIFY_EXPECTED = """# Quick start

Important: imports in prose stay.

> **Note**
>
> Read this **first**.
>
> Second paragraph.

> **Warning**
>
> Careful.

> **Tip: Pro**
>
> Short tip

**[API](/api)**

The API reference.

**Guides**

**npm**

```bash
npm i quire
```

**pip**

```bash
pip install quire
```

**1. Install**

Run the installer.

**2. Configure**

Edit the `<Config>` file.

**FAQ**

Answer.

**id** `string` (required)

The identifier.

```jsx
<Note>kept in code</Note>
import x from "y"
```

Text with `<Tab>` inline and hover word.
"""


def test_mintlify_components() -> None:
    page = apply_transform("mintlify", MINTLIFY)
    assert page.title == "Quick start"
    assert page.text == MINTLIFY_EXPECTED


def test_mintlify_unknown_unclosed_and_stray_tags() -> None:
    text = "<Frame>\n  ![img](/a.png)\n</Frame>\n\n<Custom>open\n\ntext</Stray> end\n"
    page = apply_transform("mintlify", text)
    assert page.text == "![img](/a.png)\n\nopen\n\ntext end\n"


def test_mintlify_is_markdown_for_plain_pages() -> None:
    text = "# Plain\n\nNothing *special* here.\n"
    assert apply_transform("mintlify", text).text == text


# --- fumadocs ------------------------------------------------------------------------------------

FUMADOCS = """---
title: Fuma
---
import { Callout } from 'fumadocs-ui/components/callout';

<Callout type="warn" title="Careful">
Do not do this.
</Callout>

<Callout>Plain note.</Callout>

<Tabs items={['npm', "pnpm"]}>
  <Tab>npm i x</Tab>
  <Tab value="pnpm">pnpm add x</Tab>
</Tabs>

<Steps>
<Step>
### First
Do it.
</Step>
<Step>
### Second
Again.
</Step>
</Steps>

<Cards>
  <Card title="Docs" href="/docs" description="Read the docs" />
  <Card href="/bare" />
</Cards>

<TypeTable type={{ a: { type: 'string' } }} />
"""

FUMADOCS_EXPECTED = """> **Warning: Careful**
>
> Do not do this.

> **Info**
>
> Plain note.

**npm**

npm i x

**pnpm**

pnpm add x

### First
Do it.

### Second
Again.

**[Docs](/docs)**

Read the docs

</bare>
"""


def test_fumadocs_components() -> None:
    page = apply_transform("fumadocs", FUMADOCS)
    assert page.title == "Fuma"
    assert page.text == FUMADOCS_EXPECTED


def test_mdx_profiles_normalise_line_ends() -> None:
    assert apply_transform("fumadocs", "a\r\n\r\n\r\n\r\nb\r\n").text == "a\n\nb\n"


# --- title_from_markdown -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("# Lifespan Events { #lifespan-events }\n\ntext", "Lifespan Events"),
        ("intro\n\n## Sub\n\n# Main\n", "Main"),
        ("## Only sub ##\n", "Only sub"),
        ("```\n# not a heading\n```\n## Real\n", "Real"),
        ("~~~md\n# no\n~~~\n", None),
        ("Setext title\n===\n\nbody", "Setext title"),
        ("Second level\n---\n", "Second level"),
        ("# [Linked](/x) `code` **bold**\n", "Linked code bold"),
        ("#NoSpace\n", None),
        ("#\n# \n", None),
        ("   # Indented three\n", "Indented three"),
        ("    # Indented four is code\n", None),
        ("", None),
        ("\r\n# CRLF\r\n", "CRLF"),
    ],
)
def test_title_from_markdown(text: str, title: str | None) -> None:
    assert title_from_markdown(text) == title


def test_every_fastapi_page_transforms_and_has_a_title_but_one() -> None:
    site = shared_or_skip("data", "docs-fastapi", "site")
    pages = sorted(site.rglob("*.md"))
    assert len(pages) == 277
    untitled = []
    for path in pages:
        text = path.read_text(encoding="utf-8")
        page = apply_transform("markdown", text)
        if title_from_markdown(page.text) is None:
            untitled.append(path.relative_to(site).as_posix())
        assert apply_transform("mintlify", text).text.strip(), path
    assert untitled == ["ja/translation-banner.md", "translation-banner.md"]  # no heading
