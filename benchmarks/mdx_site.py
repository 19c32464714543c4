"""Lays a Mintlify/Fumadocs MDX docs repository out as a static site Quire can sync.

    .venv/bin/python benchmarks/mdx_site.py SOURCE OUT [--title NAME] [--skip DIR ...]

SOURCE is a checkout of the docs (a directory holding `.mdx` pages), or a bare git
directory (as brought by a repository fetch; its HEAD is read). Every page is written to
OUT as `<path>.md` with its MDX unchanged (Quire's `mintlify`/`fumadocs` transform cleans
it at sync), and `OUT/llms.txt` lists them all as `- [Title](/path.md)`, the title taken
from the page's front matter. Folders named in `--skip` (default `snippets`) hold partials,
not pages. Then, for example:

    .venv/bin/python benchmarks/pages_quality.py --site OUT --transform mintlify \\
        --questions benchmarks/data/mdx-questions.jsonl

The MDX questions in benchmarks/data were written for pipecat-ai/docs at commit
1393c9d76927eaef55dd3d872ae51e37ace8f92e (470 pages); the site itself is not kept here.
"""

from __future__ import annotations

import argparse
import subprocess
from collections.abc import Iterator
from pathlib import Path

import _harness  # noqa: F401  (puts the repository's packages on sys.path)

from quire.indexer.pages.frontmatter import split_front_matter


def _pages(source: Path, skip: set[str]) -> Iterator[tuple[str, str]]:
    """(relative path, text) of every `.mdx` page, sorted by path."""
    if (source / "HEAD").is_file() and not (source / ".git").exists():
        listed = subprocess.run(
            ["git", f"--git-dir={source}", "ls-tree", "-r", "--name-only", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        for name in sorted(listed):
            if name.endswith(".mdx") and name.split("/", 1)[0] not in skip:
                shown = subprocess.run(
                    ["git", f"--git-dir={source}", "show", f"HEAD:{name}"],
                    capture_output=True,
                    check=True,
                ).stdout
                yield name, shown.decode("utf-8", errors="replace")
        return
    for path in sorted(source.rglob("*.mdx")):
        name = path.relative_to(source).as_posix()
        if name.split("/", 1)[0] not in skip:
            yield name, path.read_text(encoding="utf-8", errors="replace")


def build(source: Path, out: Path, title: str, skip: set[str]) -> int:
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"# {title}", "", "## Docs", ""]
    count = 0
    for name, text in _pages(source, skip):
        page = name[: -len(".mdx")] + ".md"
        target = out / page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        heading = split_front_matter(text.replace("\r\n", "\n")).title or Path(name).stem
        heading = heading.replace("[", "(").replace("]", ")")
        lines.append(f"- [{heading}](/{page})")
        count += 1
    (out / "llms.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return count


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--title", default="Docs")
    parser.add_argument("--skip", action="append", default=None)
    args = parser.parse_args()
    pages = build(args.source, args.out, args.title, set(args.skip or ["snippets"]))
    print(f"{pages} pages written to {args.out}")
