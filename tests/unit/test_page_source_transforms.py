"""Tests for quire.indexer.pages.transforms (profiles, front matter, MDX, title fallback)."""

from __future__ import annotations

import pytest

from quire.indexer.pages.frontmatter import front_matter_string, split_front_matter
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
from tests.support import docs_site


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
        ("summary: x\ntitle: Second key", "Second key"),
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


def test_every_docs_site_page_transforms_and_has_a_title_but_the_banners() -> None:
    site = docs_site.SITE
    pages = sorted(site.rglob("*.md"))
    assert len(pages) == docs_site.PAGES
    untitled = []
    for path in pages:
        text = path.read_text(encoding="utf-8")
        page = apply_transform("markdown", text)
        if title_from_markdown(page.text) is None:
            untitled.append(path.relative_to(site).as_posix())
        assert apply_transform("mintlify", text).text.strip(), path
    assert untitled == docs_site.UNTITLED  # no heading
    settings = apply_transform("markdown", (site / "advanced" / "settings.md").read_text())
    assert not settings.text.startswith("---")  # the front matter is not page text
    assert title_from_markdown(settings.text) == "Settings and Environment Variables"


@pytest.mark.large_data
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


# --- MDX fidelity --------------------------------------------------------------------------------


def test_mdx_unmatched_backtick_does_not_stop_the_page() -> None:
    page = apply_transform("mintlify", "a ` b\n\n<Tip>\n  x\n</Tip>\n\nsee `c`\n")
    assert page.text == "a ` b\n\n> **Tip**\n>\n> x\n\nsee `c`\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a code span ends with its paragraph: at a blank line or at a line starting with a tag
        ("x ` y\n\nz ` <Note>n</Note>\n", "x ` y\n\nz `\n\n> **Note**\n>\n> n\n"),
        ("p `open\n<Note>n</Note>\nclose` q\n", "p `open\n\n> **Note**\n>\n> n\n\nclose` q\n"),
        # inside one paragraph a span may hold a tag (it is code), across lines too
        ("a `<Tip>` and `x\n<y` b\n", "a `<Tip>` and `x\n<y` b\n"),
        # a run of N backticks is closed only by a run of exactly N
        ("a `` b ` <Tip>t</Tip> `` c\n", "a `` b ` <Tip>t</Tip> `` c\n"),
        ("a `` b <Tip>t</Tip> ` c\n", "a `` b\n\n> **Tip**\n>\n> t\n\n` c\n"),
        # an escaped backtick opens nothing
        ("a \\` <Tip>t</Tip> `b`\n", "a \\`\n\n> **Tip**\n>\n> t\n\n`b`\n"),
    ],
)
def test_mdx_code_spans_stay_in_their_paragraph(text: str, expected: str) -> None:
    assert apply_transform("mintlify", text).text == expected


@pytest.mark.parametrize("fence", ["```bash npm i mint```", "```bash cmd ```", "```x``` y"])
def test_mdx_one_line_fence_is_inline_code(fence: str) -> None:
    text = f'Install:\n\n{fence}\n\n<Steps>\n<Step title="Run">Do it.</Step>\n</Steps>\n'
    page = apply_transform("mintlify", text)
    assert page.text == f"Install:\n\n{fence}\n\n**1. Run**\n\nDo it.\n"


def test_mdx_tilde_fence_info_string_may_hold_backticks() -> None:
    text = "<Tip>\n~~~ `odd` info\n<Note>code</Note>\n~~~\n</Tip>\n"
    page = apply_transform("mintlify", text)
    assert page.text == "> **Tip**\n>\n> ~~~ `odd` info\n> <Note>code</Note>\n> ~~~\n"


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("```bash npm i mint```\n\n# Real\n", "Real"),
        ("````md\n```\n# not a title\n```\n````\n# Real\n", "Real"),
        ("```\n# no\n```js\n# still code\n```\n# Real\n", "Real"),
        ("~~~\n# no\n```\n# still code\n~~~\n# Real\n", "Real"),
    ],
)
def test_title_from_markdown_fences(text: str, title: str) -> None:
    assert title_from_markdown(text) == title


@pytest.mark.parametrize("profile", ["mintlify", "fumadocs"])
def test_mdx_nested_fences_stay_code(profile: str) -> None:
    text = (
        '<Tabs>\n  <Tab title="md">\n    ````md\n    ```js\n    <Note>x</Note>\n    ```\n'
        "    <div>kept</div>\n    ````\n  </Tab>\n</Tabs>\n\n<Callout>after</Callout>\n"
    )
    page = apply_transform(profile, text)
    assert "````md\n```js\n<Note>x</Note>\n```\n<div>kept</div>\n````\n" in page.text
    assert "<Callout" not in page.text and "after" in page.text


@pytest.mark.parametrize("profile", ["mintlify", "fumadocs"])
def test_mdx_tilde_fences_inside_components_stay_code(profile: str) -> None:
    text = '<Accordion title="A">\n  ~~~js\n  <Card>x</Card>\n  ```\n  ~~~\n</Accordion>\n'
    assert apply_transform(profile, text).text == ("**A**\n\n~~~js\n<Card>x</Card>\n```\n~~~\n")


def test_mdx_components_in_list_items_render_inside_the_item() -> None:
    text = (
        "1. Install:\n\n   <Tip>\n     Use the CLI.\n   </Tip>\n\n"
        "2. <Note>Hugged.</Note>\n"
        "3. Run:\n    <CodeGroup>\n    ```bash npm\n    npm i\n    ```\n    </CodeGroup>\n"
        "- nested\n  - inner\n    <Warning>Deep.</Warning>\n"
        "\nPara\n\n    <Info>Indented, not in a list.</Info>\n"
    )
    assert apply_transform("mintlify", text).text == (
        "1. Install:\n\n   > **Tip**\n   >\n   > Use the CLI.\n\n"
        "2. > **Note**\n   >\n   > Hugged.\n\n"
        "3. Run:\n\n   ```bash npm\n   npm i\n   ```\n\n"
        "- nested\n  - inner\n\n    > **Warning**\n    >\n    > Deep.\n\n"
        "Para\n\n> **Info**\n>\n> Indented, not in a list.\n"
    )


# --- lower-case HTML -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<img className="w-full" src="/a.png" />\n\nText\n', "Text\n"),
        ('<img src="/a.png" alt="Login  screen" >\n', "Login screen\n"),
        (
            '<video controls className="x">\n  <source src="/a.mp4" type="video/mp4" />\n'
            "  Your browser does not support video.\n</video>\n\nAfter\n",
            "After\n",
        ),
        ('<iframe src="https://youtube.com/x" allowFullScreen></iframe>\nAfter\n', "After\n"),
        ('<audio src="/a.mp3" />\n<svg><path d="M0"/></svg>\n', ""),
        (
            '<div className="grid">\n  <div>\n    First **block**\n  </div>\n'
            "  <p>Second</p>\n</div>\n",
            "First **block**\n\nSecond\n",
        ),
        (
            "<section>\n<figure>\n![x](/x.png)\n<figcaption>Cap</figcaption>\n</figure>\n</section>\n",
            "![x](/x.png)\n\nCap\n",
        ),
        ("one<br/>two<br>\nthree\n", "one\ntwo\nthree\n"),
        ("above\n<hr/>\nbelow\n", "above\n\nbelow\n"),
        ("| a | b<br/>c |\n|---|---|\n", "| a | b c |\n|---|---|\n"),
        (
            "| k | v |\n|---|---|\n| `x` | Text. <details><summary><code>x</code> fields</summary>"
            "<table><tr><td>a</td><td>b</td></tr></table></details> |\n| y | z |\n",
            "| k | v |\n|---|---|\n| `x` | Text. `x` fields a b |\n| y | z |\n",
        ),
        (
            'A <span className="x">span</span>, <strong>bold</strong> and <em>em</em>.\n',
            "A span, bold and em.\n",
        ),
        ('See <a href="/docs/x">the <b>docs</b></a>.\n', "See [the docs](/docs/x).\n"),
        ("<a href={url}>dynamic</a> link\n", "dynamic link\n"),
        ("Call <code>run()</code> or <code>a`b</code>\n", "Call `run()` or ``a`b``\n"),
        (
            '<abbr title="Asynchronous Server Gateway Interface">ASGI</abbr> and '
            '<dfn title="hover joke">routes</dfn>\n',
            "ASGI (Asynchronous Server Gateway Interface) and routes\n",
        ),
        ('<h2 id="x">Set <em>up</em></h2>\nText\n', "## Set up\n\nText\n"),
        ("<ul>\n  <li>one</li>\n  <li>two\n  lines</li>\n</ul>\n", "- one\n\n- two\n  lines\n"),
        ("<ol><li>a</li><li>b</li></ol>\n", "1. a\n\n2. b\n"),
        (
            "<table>\n<tr><th>Key</th><th>Value</th></tr>\n<tr><td>a</td><td>1</td></tr>\n</table>\n",
            "Key Value\n\na 1\n",
        ),
        # not tags: autolinks, comparisons, unknown lower-case names
        (
            "See <https://x.dev> or <me@x.dev>; a < b > c; use <placeholder> here.\n",
            "See <https://x.dev> or <me@x.dev>; a < b > c; use <placeholder> here.\n",
        ),
        # an unclosed media element loses nothing after it
        ('<video src="/a.mp4">\nRest of the page.\n', "Rest of the page.\n"),
        # code is never touched
        (
            "Use `<div>` and `<br/>`.\n\n```html\n<div><img src=x></div>\n```\n",
            "Use `<div>` and `<br/>`.\n\n```html\n<div><img src=x></div>\n```\n",
        ),
    ],
)
def test_mdx_lowercase_html_is_removed(text: str, expected: str) -> None:
    assert apply_transform("mintlify", text).text == expected
    assert apply_transform("fumadocs", text).text == expected


def test_markdown_keeps_lowercase_html() -> None:
    text = '<div className="x">\n<img src="/a.png" alt="A" />\n</div>\n<br/>\n'
    assert apply_transform("markdown", text).text == text


def test_mintlify_html_inside_components() -> None:
    text = (
        '<Card title="Video">\n  <video src="/a.mp4" autoPlay />\n'
        "  <p>Watch <span>this</span>.</p>\n"
        '</Card>\n<Frame caption="c">\n  <img src="/b.png" alt="Dashboard" />\n</Frame>\n'
    )
    assert apply_transform("mintlify", text).text == "**Video**\n\nWatch this.\n\nDashboard\n"


# --- badges and tooltips -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<Badge><Tooltip>v2.1.0</Tooltip></Badge>\n\n# Title\n\nBody\n", "# Title\n\nBody\n"),
        ('<Badge color="green">Stable</Badge> <Tag>v1</Tag>\n# Title\n', "# Title\n"),
        ('<Tooltip tip="Hover text"><Badge>Beta</Badge></Tooltip>\nBody\n', "Body\n"),
        ("Intro.\n\n  <Badge>Beta</Badge>  \n\nMore.\n", "Intro.\n\nMore.\n"),
        ('<Icon icon="rocket" /> <Badge>New</Badge>\nBody\n', "Body\n"),
        # in a sentence, a heading, a list item or a table cell the text stays, inline
        ("Works since <Badge>v2.1.0</Badge> and later.\n", "Works since v2.1.0 and later.\n"),
        ("## Streaming <Badge>Beta</Badge>\n", "## Streaming Beta\n"),
        ("- <Pill>Deprecated</Pill> old API\n", "- Deprecated old API\n"),
        ("| a | <Badge>yes</Badge> |\n", "| a | yes |\n"),
        ("<Badge>v2</Badge> Released in March.\n", "v2 Released in March.\n"),
        # a tooltip is its visible text; the tip attribute is hover text
        (
            'An <Tooltip tip="Application Programming Interface">API</Tooltip> key.\n',
            "An API key.\n",
        ),
        (
            '<Tooltip tip="t" cta="More" href="/x">\n  Multi\n  line\n</Tooltip> end\n',
            "Multi line end\n",
        ),
        ('Click <Icon icon="gear" /> Settings.\n', "Click  Settings.\n"),
    ],
)
def test_mdx_badges_and_tooltips(text: str, expected: str) -> None:
    assert apply_transform("mintlify", text).text == expected


# --- front matter: description, keywords, language -----------------------------------------------


@pytest.mark.parametrize(
    ("front", "description", "keywords", "language"),
    [
        ('description: "A short summary."', "A short summary.", (), None),
        ("description: >\n  Folded\n  summary\n", "Folded summary", (), None),
        ("description: null\nkeywords: ~", None, (), None),
        (
            "keywords: [alpha, 'beta gamma', \"delta\"]",
            None,
            ("alpha", "beta gamma", "delta"),
            None,
        ),
        ("keywords: [\n  one,\n  two\n]", None, ("one", "two"), None),
        ("keywords:\n  - one\n  - 'two' # note\n  -\n  - one", None, ("one", "two"), None),
        ("keywords:\n- flush\n- left\ntitle: T", None, ("flush", "left"), None),
        ("keywords: sdk, api , ,python", None, ("sdk", "api", "python"), None),
        ('keywords: "a, b"', None, ("a", "b"), None),
        ("keywords: []", None, (), None),
        ("lang: ja", None, (), "ja"),
        ("language: en_US", None, (), "en-us"),
        ("locale: pt-BR", None, (), "pt-br"),
        ("language: python\nlocale: de", None, (), "de"),  # a code language is not the page's
        ("language: go", None, (), None),
        ("lang: Japanese", None, (), None),
        ("nested:\n  lang: fr\n  description: no", None, (), None),
    ],
)
def test_yaml_front_matter_fields(
    front: str, description: str | None, keywords: tuple[str, ...], language: str | None
) -> None:
    page = apply_transform("markdown", f"---\n{front}\n---\nBody\n")
    assert (page.text, page.description, page.keywords, page.language) == (
        "Body\n",
        description,
        keywords,
        language,
    )


@pytest.mark.parametrize(
    ("front", "description", "keywords", "language"),
    [
        (
            'description = "TOML summary"\nkeywords = ["a", "b", "a"]\nlanguageCode = "x"\n'
            'lang = "ZH-Hans"',
            "TOML summary",
            ("a", "b"),
            "zh-hans",
        ),
        ("keywords = 'one, two'\nlocale = 'fr'", None, ("one", "two"), "fr"),
        ("keywords = [1, 'x']\n[params]\ndescription = 'nested'", None, ("x",), None),
        (
            'x = = y\ndescription = "fallback"\nkeywords = ["k1", \'k2\']\nlang = "es"',
            "fallback",
            ("k1", "k2"),
            "es",
        ),
    ],
)
def test_toml_front_matter_fields(
    front: str, description: str | None, keywords: tuple[str, ...], language: str | None
) -> None:
    page = apply_transform("markdown", f"+++\n{front}\n+++\nBody\n")
    assert (page.description, page.keywords, page.language) == (description, keywords, language)


MINTLIFY_FRONT = """---
title: "Authentication"
sidebarTitle: "Auth"
description: "How to authenticate requests with API keys."
icon: "key"
og:title: "Auth | Acme"
og:description: "Not this one"
keywords: ["auth", "api key", "bearer"]
lang: en
---

<Badge>v2.1.0</Badge>

Send the key in a header.
"""


@pytest.mark.parametrize("profile", ["markdown", "mintlify", "fumadocs"])
def test_front_matter_fields_in_every_profile(profile: str) -> None:
    page = apply_transform(profile, MINTLIFY_FRONT)
    assert page.title == "Authentication"
    assert page.description == "How to authenticate requests with API keys."
    assert page.keywords == ("auth", "api key", "bearer")
    assert page.language == "en"


def test_none_profile_reads_no_front_matter() -> None:
    page = apply_transform("none", MINTLIFY_FRONT)
    assert page == TransformedPage(MINTLIFY_FRONT, None)
    assert (page.description, page.keywords, page.language) == (None, (), None)


def test_mintlify_front_matter_page_body() -> None:
    assert apply_transform("mintlify", MINTLIFY_FRONT).text == "Send the key in a header.\n"


def test_split_front_matter_fields() -> None:
    front = split_front_matter("---\ndescription: D\nkeywords: [k]\nlocale: ko\n---\nB")
    assert (front.title, front.description, front.keywords, front.language, front.body) == (
        None,
        "D",
        ("k",),
        "ko",
        "B",
    )


# --- component bodies: indentation ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(  # a multi-line tag, its body indented deeper, then a paragraph at column 0
            '<CardGroup cols={1}>\n  <Card\n    title="Server"\n    href="/server"\n  >\n'
            "    The core framework: pipelines that move\n    audio between services.\n\n"
            "[View docs](/server)\n\n  </Card>\n</CardGroup>\n",
            "**[Server](/server)**\n\nThe core framework: pipelines that move\n"
            "audio between services.\n\n[View docs](/server)\n",
            id="card-mixed-indentation",
        ),
        pytest.param(  # fences and a nested callout: the callout renders at column 0 too
            '<Steps>\n  <Step title="Install">\n    Add the package and\n    drop it in.\n\n'
            "    ```bash\n    pip install thing\n    ```\n\n"
            "    ```python\n    def f():\n        return 1\n    ```\n\n"
            "    <Tip>\n      See the reference.\n    </Tip>\n\n  </Step>\n</Steps>\n",
            "**1. Install**\n\nAdd the package and\ndrop it in.\n\n"
            "```bash\npip install thing\n```\n\n```python\ndef f():\n    return 1\n```\n\n"
            "> **Tip**\n>\n> See the reference.\n",
            id="step-with-fences-and-callout",
        ),
        pytest.param(  # fence content less indented than its fence (up to N spaces removed)
            '<Step title="Start">\n    Start a session.\n    ```bash\n    curl -X POST \\\n'
            "  --url https://x/start\n```\n\n</Step>\n",
            "**1. Start**\n\nStart a session.\n```bash\ncurl -X POST \\\n--url https://x/start\n```\n",
            id="fence-content-left-of-fence",
        ),
        pytest.param(  # nested fields: every level's description at column 0
            '<ParamField path="onResult" type="Data">\n  Search results.\n'
            '  <Expandable title="Data">\n    <ParamField path="origins" type="Origin[]">\n'
            '      The origins.\n      <Expandable title="Origin">\n'
            '        <ParamField path="uri" type="string">\n          The site URI.\n'
            "        </ParamField>\n      </Expandable>\n    </ParamField>\n  </Expandable>\n"
            "</ParamField>\n",
            "**onResult** `Data`\nSearch results.\n\n**Data**\n\n**origins** `Origin[]`\n"
            "The origins.\n\n**Origin**\n\n**uri** `string`\nThe site URI.\n",
            id="nested-param-fields",
        ),
        pytest.param(  # the body starts on the tag's line
            '<Card title="A">First line\n    second line\n\n    Second paragraph.\n</Card>\n',
            "**A**\n\nFirst line\nsecond line\n\nSecond paragraph.\n",
            id="body-on-tag-line",
        ),
        pytest.param(  # nested lists and code in an item keep their relative indentation
            '<Tab title="Setup">\n    Steps:\n\n    - one\n      - nested\n        ```bash\n'
            "        make\n          indented\n        ```\n    - two\n\n        more on two\n"
            "</Tab>\n",
            "**Setup**\n\nSteps:\n\n- one\n  - nested\n    ```bash\n    make\n      indented\n"
            "    ```\n- two\n\n  more on two\n",
            id="lists-keep-nesting",
        ),
        pytest.param(  # a component in a list item of a body stays in the item
            '<Step title="Go">\n  1. Install:\n     <Note>Use the CLI.</Note>\n'
            "  2. Run.\n</Step>\n",
            "**1. Go**\n\n1. Install:\n\n   > **Note**\n   >\n   > Use the CLI.\n\n2. Run.\n",
            id="component-in-list-item-of-body",
        ),
        pytest.param(  # a list item hugging its tag inside a body
            "<Accordion title='A'>\n    - <Tip>Hugged.</Tip>\n    - next\n</Accordion>\n",
            "**A**\n\n- > **Tip**\n  >\n  > Hugged.\n\n- next\n",
            id="hugged-tag-in-body",
        ),
        pytest.param(  # a thematic break is not a list item
            "<Note>\n  * * *\n      text\n</Note>\n",
            "> **Note**\n>\n> * * *\n> text\n",
            id="thematic-break",
        ),
    ],
)
def test_mdx_component_bodies_start_at_column_zero(text: str, expected: str) -> None:
    assert apply_transform("mintlify", text).text == expected


@pytest.mark.parametrize("profile", ["mintlify", "fumadocs"])
def test_mdx_page_is_reindented_too(profile: str) -> None:
    text = (
        "Intro.\n\n    Indented text, a paragraph in MDX.\n\n    ```bash\n    run\n      more\n"
        "    ```\n\n- a\n    - b\n\n      b text\n"
    )
    assert apply_transform(profile, text).text == (
        "Intro.\n\nIndented text, a paragraph in MDX.\n\n```bash\nrun\n  more\n```\n\n"
        "- a\n    - b\n\n      b text\n"
    )


def test_mdx_fence_content_keeps_tabs_past_the_removed_indentation() -> None:
    text = "<Tab title='make'>\n    ```make\n    all:\n    \tbuild\n    ```\n</Tab>\n"
    assert apply_transform("mintlify", text).text == "**make**\n\n```make\nall:\n\tbuild\n```\n"


# --- JSX whitespace expressions and character references -----------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # between blocks, on a line of its own
            '<CardGroup>\n  <Card title="A">a</Card>\n\n{" "}\n\n<Card title="B">b</Card>\n'
            "</CardGroup>\n",
            "**A**\n\na\n\n**B**\n\nb\n",
        ),
        (  # first line of a body
            '<Accordion title="A">\n  {" "}\n  Also disable the flag.\n</Accordion>\n',
            "**A**\n\nAlso disable the flag.\n",
        ),
        ('<b>Role:</b>{" "}text, <i>x</i>{\' \'}y and z{" "} w\n', "Role: text, x y and z w\n"),
        ('<b>Role:</b>{" "}\n{"kept"}\n', 'Role:\n{"kept"}\n'),
        ('Code `{" "}` stays.\n\n```jsx\n<b>{m}</b>{" "}\n```\n', None),
    ],
)
@pytest.mark.parametrize("profile", ["mintlify", "fumadocs"])
def test_mdx_jsx_space_expressions_are_spaces(
    profile: str, text: str, expected: str | None
) -> None:
    assert apply_transform(profile, text).text == (text if expected is None else expected)


SAME = None  # the expected text is the input, unchanged


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "24&nbsp;kHz, A &amp; B, &lt;tag&gt;, &#39;q&#39; &#x41;\n",
            "24\xa0kHz, A & B, <tag>, 'q' A\n",
        ),
        ("`a &amp; b` and &amp;\n", "`a &amp; b` and &\n"),
        ("```\n&amp;\n```\n\n~~~\n&lt;\n~~~\n", SAME),
        ("a=1&copy=2 &copy &bogus; & alone\n", SAME),  # a reference needs its ";"
        ('<Card title="Q&amp;A">x &amp; y</Card>\n', "**Q&A**\n\nx & y\n"),
        (
            '<ParamField path="ids" type="Array&lt;string&gt;">IDs.</ParamField>\n',
            "**ids** `Array<string>`\nIDs.\n",
        ),
        (
            "<Tip>\n  Use `&lt;` or &lt;\n\n  ```\n  &gt;\n  ```\n</Tip>\n",
            "> **Tip**\n>\n> Use `&lt;` or <\n>\n> ```\n> &gt;\n> ```\n",
        ),
    ],
)
def test_mdx_character_references_are_decoded_outside_code(text: str, expected: str | None) -> None:
    assert apply_transform("mintlify", text).text == (text if expected is SAME else expected)


def test_markdown_profile_keeps_character_references() -> None:
    text = "A &amp; B\n"
    assert apply_transform("markdown", text).text == text


# --- openapi endpoint pages ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('---\ntitle: "List Things"\nopenapi: "GET /things"\n---\n', "`GET /things`\n"),
        (
            "---\ntitle: List Things\nopenapi: POST /things/{id}\n---\n\nAbout it.\n",
            "`POST /things/{id}`\n\nAbout it.\n",
        ),
        ('+++\ntitle = "List Things"\nopenapi = "DELETE /x"\n+++\n', "`DELETE /x`\n"),
        (
            "---\ntitle: List Things\nopenapi: 'spec.json GET /a`b'\n---\n",
            "``spec.json GET /a`b``\n",
        ),
        ("---\ntitle: List Things\nopenapi:\n---\nBody.\n", "Body.\n"),
        ("---\ntitle: List Things\nnested:\n  openapi: GET /x\n---\nBody.\n", "Body.\n"),
    ],
)
def test_mintlify_openapi_endpoint_line(text: str, expected: str) -> None:
    assert apply_transform("mintlify", text) == TransformedPage(expected, "List Things")


@pytest.mark.parametrize("profile", ["markdown", "fumadocs"])
def test_openapi_line_is_mintlify_only(profile: str) -> None:
    text = '---\ntitle: "List Things"\nopenapi: "GET /things"\n---\n'
    page = apply_transform(profile, text)
    assert page == TransformedPage("", "List Things")


def test_front_matter_string() -> None:
    assert front_matter_string('---\nopenapi: "GET /a"\n---\n', "openapi") == "GET /a"
    assert front_matter_string("+++\nopenapi = 'GET /a'\n+++\n", "openapi") == "GET /a"
    assert front_matter_string("+++\nopenapi = 'GET /a'\nbad =\n+++\n", "openapi") == "GET /a"
    assert front_matter_string("---\nopenapi: [1]\n---\n", "openapi") == "[1]"
    assert front_matter_string("---\nother: x\n---\n", "openapi") is None
    assert front_matter_string("openapi: GET /a\n", "openapi") is None
    assert front_matter_string("---\nopenapi: GET /a\n", "openapi") is None  # not closed


# --- fields --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '<ParamField path="id" type="string" required>\n  The identifier.\n</ParamField>\n',
            "**id** `string` (required)\nThe identifier.\n",
        ),
        (
            '<ResponseField name="items" type="string[]">\n  - first\n  - second\n'
            "</ResponseField>\n",
            "**items** `string[]`\n- first\n- second\n",
        ),
        (  # the body's first line would underline the name line: keep the blank line
            '<ResponseField name="sep" type="string">\n  ---\n  after\n</ResponseField>\n',
            "**sep** `string`\n\n---\nafter\n",
        ),
        ('<ParamField query="q" />\n', "**q**\n"),
    ],
)
def test_mintlify_field_name_and_description_are_one_paragraph(text: str, expected: str) -> None:
    assert apply_transform("mintlify", text).text == expected
