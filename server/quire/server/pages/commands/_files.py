"""ls, tree, find, cat, head, tail, wc."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from quire.server.pages.body_cache import PageEntry
from quire.server.pages.commands._lexer import Word
from quire.server.pages.commands._namespace import Dir, Namespace, basename, walk
from quire.server.pages.commands._runtime import (
    Ctx,
    OptionSpec,
    UsageError,
    bounded_int,
    glob_roots,
    parse_options,
    resolve_words,
)


async def resolve(ctx: Ctx, words: Sequence[Word]) -> tuple[Namespace, list[str]]:
    """One snapshot for all operands (default "/"), and the operands as namespace paths."""
    if not words:
        return await ctx.snapshot(["/"]), ["/"]
    namespace = await ctx.snapshot(glob_roots(words))
    return namespace, resolve_words(namespace, words)


def split_lines(body: str) -> list[str]:
    """Lines without their "\\n"; a final newline does not start an empty line."""
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _missing(ctx: Ctx, path: str) -> None:
    ctx.error(f"{path}: No such file or directory")


async def _readable(ctx: Ctx, words: Sequence[Word]) -> list[PageEntry]:
    """File operands for cat/head/tail/wc; directories and missing paths become errors."""
    if not words:
        raise UsageError("missing file operand (reading standard input is not supported)")
    namespace, paths = await resolve(ctx, words)
    entries: list[PageEntry] = []
    for path in paths:
        entry = namespace.file(path)
        if entry is not None:
            entries.append(entry)
        elif namespace.is_dir(path):
            ctx.error(f"{path}: Is a directory")
        else:
            _missing(ctx, path)
    return entries


def _status(ctx: Ctx) -> int:
    return 2 if ctx.errors else 0


# ls -----------------------------------------------------------------------------------------

LS = OptionSpec(
    "laA1dhpF",
    long={"all": "a", "almost-all": "A", "directory": "d", "human-readable": "h"},
)


def _ls_line(name: str, node: Dir | PageEntry | None, long: bool) -> str:
    is_dir = node is None or isinstance(node, Dir)
    shown = name + "/" if is_dir and not name.endswith("/") else name
    if not long:
        return shown
    if isinstance(node, Dir):
        size = node.count()
    elif isinstance(node, PageEntry):
        size = node.total_chars
    else:
        size = 0
    mode = "dr-xr-xr-x" if is_dir else "-r--r--r--"
    return f"{mode} {size:>9} {shown}"


async def ls(ctx: Ctx, args: Sequence[Word]) -> int:
    options, words = parse_options("ls", args, LS)
    flags = {flag for flag, _ in options}
    long = "l" in flags
    show_all = "a" in flags
    show_hidden = show_all or "A" in flags
    namespace, paths = await resolve(ctx, words)
    files: list[str] = []
    dirs: list[str] = []
    for path in paths:
        if namespace.is_dir(path) and "d" not in flags:
            dirs.append(path)
        elif namespace.file(path) is not None or namespace.is_dir(path):
            files.append(path)
        else:
            ctx.error(f"cannot access '{path}': No such file or directory")
    for path in files:
        entry = namespace.file(path)
        ctx.out.line(_ls_line(path, entry if entry is not None else namespace.tree(path), long))
    for index, path in enumerate(dirs):
        if len(paths) > 1:
            if files or index:
                ctx.out.line("")
            ctx.out.line(f"{path}:")
        node = namespace.tree(path)
        if show_all:
            ctx.out.line(_ls_line("./", node, long))
            ctx.out.line(_ls_line("../", None, long))
        for name, child in node.children():
            if name.startswith(".") and not show_hidden:
                continue
            ctx.out.line(_ls_line(name, child, long))
            if ctx.out.full:
                return _status(ctx)
    return _status(ctx)


# tree ---------------------------------------------------------------------------------------

TREE = OptionSpec("ad", valued="L", long={"dirsfirst": "D"})


async def tree(ctx: Ctx, args: Sequence[Word]) -> int:
    options, words = parse_options("tree", args, TREE)
    depth: int | None = None
    dirs_only = False
    show_hidden = False
    for flag, value in options:
        if flag == "L":
            depth = bounded_int("-L", value, 1, ctx.limits.max_tree_depth)
        elif flag == "d":
            dirs_only = True
        elif flag == "a":
            show_hidden = True
    namespace, paths = await resolve(ctx, words)
    n_dirs = n_files = 0
    for path in paths:
        if not namespace.is_dir(path):
            if namespace.file(path) is not None:
                ctx.error(f"{path}: Not a directory")
            else:
                _missing(ctx, path)
            continue
        ctx.out.line(path)
        stack: list[tuple[Dir, str, int]] = [(namespace.tree(path), "", 1)]
        # An explicit stack of iterators keeps deep trees off the Python call stack.
        iterators = [iter(_visible(stack[0][0], show_hidden, dirs_only))]
        while iterators:
            if ctx.out.full:
                return _status(ctx)
            _node, indent, level = stack[-1]
            item = next(iterators[-1], None)
            if item is None:
                iterators.pop()
                stack.pop()
                continue
            name, child, last = item
            ctx.out.line(f"{indent}{'└── ' if last else '├── '}{name}")
            if isinstance(child, Dir):
                n_dirs += 1
                if depth is None or level < depth:
                    child_indent = indent + ("    " if last else "│   ")
                    stack.append((child, child_indent, level + 1))
                    iterators.append(iter(_visible(child, show_hidden, dirs_only)))
            else:
                n_files += 1
            if (n_dirs + n_files) % 256 == 0:
                await ctx.budget.breathe()
    if n_dirs or n_files or any(namespace.is_dir(p) for p in paths):
        dirs_word = "directory" if n_dirs == 1 else "directories"
        if dirs_only:
            ctx.out.line(f"\n{n_dirs} {dirs_word}")
        else:
            files_word = "file" if n_files == 1 else "files"
            ctx.out.line(f"\n{n_dirs} {dirs_word}, {n_files} {files_word}")
    return _status(ctx)


def _visible(
    node: Dir, show_hidden: bool, dirs_only: bool
) -> list[tuple[str, Dir | PageEntry, bool]]:
    shown = [
        (name, child)
        for name, child in node.children()
        if (show_hidden or not name.startswith(".")) and (not dirs_only or isinstance(child, Dir))
    ]
    return [(name, child, i == len(shown) - 1) for i, (name, child) in enumerate(shown)]


# find ---------------------------------------------------------------------------------------

_FIND_VALUED = {"-name", "-iname", "-path", "-ipath", "-type", "-maxdepth", "-mindepth"}


async def find(ctx: Ctx, args: Sequence[Word]) -> int:
    words: list[Word] = []
    index = 0
    while index < len(args) and not args[index].text.startswith("-"):
        words.append(args[index])
        index += 1
    tests: list[tuple[str, str]] = []
    max_depth: int | None = None
    min_depth = 0
    while index < len(args):
        arg = args[index].text
        if arg not in _FIND_VALUED:
            if arg.startswith("-"):
                raise UsageError(
                    f"unknown predicate '{arg}' (supported: {', '.join(sorted(_FIND_VALUED))})"
                )
            raise UsageError(f"paths must precede expression: '{arg}'")
        if index + 1 >= len(args):
            raise UsageError(f"missing argument to '{arg}'")
        value = args[index + 1].text
        index += 2
        if arg == "-type" and value not in ("f", "d"):
            raise UsageError(f"-type supports f and d only (got '{value}')")
        if arg == "-maxdepth":
            max_depth = bounded_int("-maxdepth", value, 0, ctx.limits.max_find_depth)
        elif arg == "-mindepth":
            min_depth = bounded_int("-mindepth", value, 0, ctx.limits.max_find_depth)
        else:
            tests.append((arg, value))

    def selected(path: str, is_dir: bool, depth: int) -> bool:
        if depth < min_depth:
            return False
        name = basename(path)
        for test, value in tests:
            if test == "-type" and (value == "d") != is_dir:
                return False
            if test == "-name" and not fnmatch.fnmatchcase(name, value):
                return False
            if test == "-iname" and not fnmatch.fnmatchcase(name.casefold(), value.casefold()):
                return False
            if test == "-path" and not fnmatch.fnmatchcase(path, value):
                return False
            if test == "-ipath" and not fnmatch.fnmatchcase(path.casefold(), value.casefold()):
                return False
        return True

    namespace, paths = await resolve(ctx, words)
    seen = 0
    for path in paths:
        entry = namespace.file(path)
        is_dir = namespace.is_dir(path)
        if entry is None and not is_dir:
            ctx.error(f"'{path}': No such file or directory")
            continue
        if selected(path, is_dir, 0):
            ctx.out.line(path)
        if not is_dir:
            continue
        for depth, child_path, child in walk(namespace.tree(path), max_depth):
            if ctx.out.full:
                return _status(ctx)
            if selected(child_path, isinstance(child, Dir), depth):
                ctx.out.line(child_path)
            seen += 1
            if seen % 256 == 0:
                await ctx.budget.breathe()
    return _status(ctx)


# cat / head / tail --------------------------------------------------------------------------

CAT = OptionSpec("n", long={"number": "n"})


async def cat(ctx: Ctx, args: Sequence[Word]) -> int:
    options, words = parse_options("cat", args, CAT)
    number = any(flag == "n" for flag, _ in options)
    entries = await _readable(ctx, words)
    count = 0
    async for _entry, body in ctx.bodies(entries):
        if not number:
            ctx.out.write(body if body.endswith("\n") or not body else body + "\n")
            continue
        for line in split_lines(body):
            count += 1
            ctx.out.line(f"{count:>6}\t{line}")
            if ctx.out.full:
                break
    return _status(ctx)


HEAD_TAIL = OptionSpec(
    "qv",
    valued="n",
    long={"lines": "n", "quiet": "q", "silent": "q", "verbose": "v"},
    digits="n",
)


async def _head_tail(ctx: Ctx, args: Sequence[Word], tail: bool) -> int:
    options, words = parse_options(ctx.name, args, HEAD_TAIL)
    count = 10
    from_line: int | None = None
    headers: bool | None = None
    for flag, value in options:
        if flag == "n":
            if tail and value.startswith("+"):
                from_line = bounded_int("-n", value[1:], 0, ctx.limits.max_lines)
            else:
                count = bounded_int("-n", value, 0, ctx.limits.max_lines)
                from_line = None
        elif flag == "q":
            headers = False
        elif flag == "v":
            headers = True
    entries = await _readable(ctx, words)
    show_headers = headers if headers is not None else len(words) > 1 or len(entries) > 1
    first = True
    async for entry, body in ctx.bodies(entries):
        if show_headers:
            ctx.out.line(("" if first else "\n") + f"==> {entry.path} <==")
        first = False
        lines = split_lines(body)
        if not tail:
            chosen = lines[:count]
        elif from_line is not None:
            chosen = lines[max(from_line - 1, 0) :]
        else:
            chosen = lines[len(lines) - count :] if count else []
        ctx.out.write("".join(line + "\n" for line in chosen))
    return _status(ctx)


async def head(ctx: Ctx, args: Sequence[Word]) -> int:
    return await _head_tail(ctx, args, tail=False)


async def tail(ctx: Ctx, args: Sequence[Word]) -> int:
    return await _head_tail(ctx, args, tail=True)


# wc -----------------------------------------------------------------------------------------

WC = OptionSpec("lwcm", long={"lines": "l", "words": "w", "bytes": "c", "chars": "m"})


async def wc(ctx: Ctx, args: Sequence[Word]) -> int:
    options, words = parse_options("wc", args, WC)
    chosen = {flag for flag, _ in options} or {"l", "w", "c"}
    order = [flag for flag in "lwmc" if flag in chosen]
    entries = await _readable(ctx, words)
    rows: list[tuple[list[int], str]] = []
    totals = [0] * len(order)
    async for entry, body in ctx.bodies(entries):
        counts: list[int] = []
        for flag in order:
            if flag == "l":
                counts.append(body.count("\n"))
            elif flag == "w":
                counts.append(len(body.split()))
            elif flag == "m":
                counts.append(len(body))
            else:
                counts.append(len(body.encode("utf-8", "surrogatepass")))
        rows.append((counts, entry.path))
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
    if len(rows) > 1:
        rows.append((totals, "total"))
    if not rows:
        return _status(ctx)
    single = len(rows) == 1 and len(order) == 1
    width = 1 if single else max(len(str(n)) for counts, _ in rows for n in counts)
    for counts, label in rows:
        ctx.out.line(" ".join(f"{n:>{width}}" for n in counts) + f" {label}")
    return _status(ctx)
