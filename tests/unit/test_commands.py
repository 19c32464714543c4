"""run_command: every command and flag, the grammar, each bound at its edge, fuzzing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quire.server.pages.body_cache import BodyCache, PageEntry
from quire.server.pages.commands import CommandLimits, CommandOutcome, run_command
from tests.unit.test_commands_support import MemoryStore, make_store

STORE = make_store()


async def run(
    command: str, store: MemoryStore | None = None, limits: CommandLimits | None = None
) -> CommandOutcome:
    return await run_command(store or STORE, BodyCache(), command, limits=limits or CommandLimits())


async def ok(command: str, store: MemoryStore | None = None) -> str:
    outcome = await run(command, store)
    assert outcome.exit_code == 0, outcome
    assert outcome.error == "" and not outcome.truncated
    return outcome.output


async def fails(command: str, message: str, code: int = 2) -> CommandOutcome:
    outcome = await run(command)
    assert outcome.exit_code == code, outcome
    assert message in outcome.error, outcome.error
    return outcome


# grammar ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("ls | head", "pipes"),
        ("cat /index.md > /x", "redirection"),
        ("cat < /index.md", "redirection"),
        ("ls >> /x", "redirection"),
        ("ls; ls", "chaining"),
        ("ls && ls", "chaining"),
        ("ls || ls", "pipes"),
        ("ls &", "background"),
        ("cat `ls`", "backquotes"),
        ('grep "`ls`" /', "backquotes"),
        ("cat $(ls)", "$(…)"),
        ('grep "$(ls)" /', "$(…)"),
        ("grep $HOME /", "variable expansion"),
        ('grep "${x}" /', "variable expansion"),
        ("(ls)", "subshells"),
        ("ls\nls", "newlines"),
        ("grep 'unterminated", "unterminated single quote"),
        ('grep "unterminated', "unterminated double quote"),
        ("ls \\", "trailing backslash"),
        ("", "empty command"),
        ("   ", "empty command"),
        ("echo hi", "echo: command not found"),
        ("rm -rf /", "rm: command not found"),
        ("ls\x00", "NUL"),
    ],
)
async def test_grammar_errors_are_outcomes(command: str, message: str) -> None:
    outcome = await fails(command, message)
    assert outcome.output == "" and not outcome.truncated


async def test_quoted_operators_are_plain_text() -> None:
    assert await ok("grep 'foo|bar' /regex/special.md") == "foo|bar\n"
    assert await ok('grep "(a|b)" /regex/special.md') == "(a|b)\n"
    assert await ok("grep -F '$5' /regex/special.md") == "price: $5\n"
    assert await ok('grep "price: \\$5" /regex/special.md') == "price: $5\n"
    assert await ok("grep 'price: $5' /regex/special.md") == "price: $5\n"
    assert await ok("grep -F 'back\\slash' /regex/special.md") == "back\\slash\n"
    assert await ok("grep -F back\\\\slash /regex/special.md") == "back\\slash\n"
    assert await ok('grep -F "back\\\\slash" /regex/special.md') == "back\\slash\n"
    assert await ok("cat '/spaces in/name with spaces.md'") == "spaced out\n"
    assert await ok("cat /spaces\\ in/name\\ with\\ spaces.md") == "spaced out\n"


async def test_command_line_length_edge() -> None:
    base = "grep -c x /index.md"
    at_limit = base + " " * (1024 - len(base))
    assert len(at_limit) == 1024
    assert (await run(at_limit)).exit_code == 1
    over = await run(at_limit + " ")
    assert over.exit_code == 2 and "command line too long: 1025" in over.error


# paths --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/../index.md", "../../index.md", "index.md", "./index.md", "//index.md", "/a/../index.md"],
)
async def test_paths_normalise_and_cannot_escape(path: str) -> None:
    assert (await ok(f"cat {path}")).startswith("# Welcome")


async def test_traversal_outside_root_stays_in_namespace() -> None:
    await fails("cat /../../etc/passwd", "cat: /etc/passwd: No such file or directory")
    assert await ok("ls ../../..") == await ok("ls /")
    assert await ok("ls /tutorial/../reference") == "apirouter.md\nfastapi.md\nrequest.md\n"
    assert (await ok("find .. -maxdepth 0")) == "/\n"


async def test_globs_expand_against_the_namespace() -> None:
    out = await ok("wc -l /tutorial/*.md")
    assert out.splitlines()[-1].endswith("total")
    assert "/tutorial/path-params.md" in out
    assert await ok("ls /tutorial/adv*") == "deep/\nmiddleware.md\nsecurity.md\n"
    assert "/tutorial/first-steps.md" in await ok("grep -l FastAPI /tutorial/*.md")
    await fails("cat /nothing*.md", "/nothing*.md: No such file or directory")
    await fails("cat '/tutorial/*.md'", "No such file or directory")


# ls / tree / find ---------------------------------------------------------------------------


async def test_ls() -> None:
    root = (await ok("ls")).splitlines()
    assert root[:3] == ["a/", "a-b.md", "bulk/"] and ".hidden.md" not in root
    assert (await ok("ls /")).splitlines() == root
    assert (await ok("ls -a /")).splitlines()[:3] == ["./", "../", ".hidden.md"]
    assert await ok("ls /index.md") == "/index.md\n"
    assert await ok("ls -l /tutorial") == (
        "dr-xr-xr-x         3 advanced/\n"
        "-r--r--r--       147 first-steps.md\n"
        "-r--r--r--       186 path-params.md\n"
        "-r--r--r--        49 query-params.md\n"
    )
    assert await ok("ls -ld /tutorial") == "dr-xr-xr-x         6 /tutorial/\n"
    assert await ok("ls /i18n/ja") == "はじめに.md\n"
    two = await ok("ls /index.md /reference")
    assert two == "/index.md\n\n/reference:\napirouter.md\nfastapi.md\nrequest.md\n"
    missing = await run("ls /nope /index.md")
    assert missing.exit_code == 2 and missing.output == "/index.md\n"
    assert "ls: cannot access '/nope': No such file or directory" in missing.error
    await fails("ls -z", "invalid option -- 'z'")
    await fails("ls --bogus", "unrecognized option '--bogus'")


async def test_tree() -> None:
    assert await ok("tree /tutorial/advanced") == (
        "/tutorial/advanced\n"
        "├── deep\n"
        "│   └── nested\n"
        "│       └── leaf.md\n"
        "├── middleware.md\n"
        "└── security.md\n"
        "\n"
        "2 directories, 3 files\n"
    )
    assert await ok("tree -L 1 /tutorial/advanced") == (
        "/tutorial/advanced\n├── deep\n├── middleware.md\n└── security.md\n\n1 directory, 2 files\n"
    )
    assert (await ok("tree -L 20 /tutorial")).endswith("3 directories, 6 files\n")
    assert (await ok("tree -d /tutorial")).endswith("3 directories\n")
    await fails("tree -L 0 /", "-L must be 1–20")
    await fails("tree -L 21 /", "-L must be 1–20")
    await fails("tree -L x /", "invalid number for -L")
    await fails("tree /index.md", "/index.md: Not a directory")
    await fails("tree /nope", "/nope: No such file or directory")
    assert "└── はじめに.md" in await ok("tree")


async def test_find() -> None:
    assert await ok("find /tutorial/advanced") == (
        "/tutorial/advanced\n/tutorial/advanced/deep\n/tutorial/advanced/deep/nested\n"
        "/tutorial/advanced/deep/nested/leaf.md\n/tutorial/advanced/middleware.md\n"
        "/tutorial/advanced/security.md\n"
    )
    assert await ok("find /tutorial -type d") == (
        "/tutorial\n/tutorial/advanced\n/tutorial/advanced/deep\n/tutorial/advanced/deep/nested\n"
    )
    assert await ok("find / -name '*-params.md'") == (
        "/tutorial/path-params.md\n/tutorial/query-params.md\n"
    )
    assert await ok("find -iname 'STRASSE*'") == "/i18n/de/straße.md\n"
    assert await ok("find / -name '*.md' -type f -maxdepth 1") == (
        "/.hidden.md\n/a-b.md\n/empty.md\n/index.md\n"
    )
    assert await ok("find /tutorial -mindepth 2 -type d") == (
        "/tutorial/advanced/deep\n/tutorial/advanced/deep/nested\n"
    )
    assert await ok("find / -path '/i18n/*/*.md' -name '*ß*'") == "/i18n/de/straße.md\n"
    assert await ok("find /index.md") == "/index.md\n"
    await fails("find /nope", "find: '/nope': No such file or directory")
    await fails("find / -exec rm", "unknown predicate '-exec'")
    await fails("find / -name", "missing argument to '-name'")
    await fails("find / -type l", "-type supports f and d only")
    await fails("find / -name x /other", "paths must precede expression")


# cat / head / tail / wc ---------------------------------------------------------------------


async def test_cat() -> None:
    assert await ok("cat /a-b.md /a/b.md") == "dash name\nslash name\n"
    assert await ok("cat /long/no-newline.md") == "one\ntwo\nthree\n"
    assert await ok("cat /empty.md") == ""
    assert await ok("cat -n /long/no-newline.md") == "     1\tone\n     2\ttwo\n     3\tthree\n"
    mixed = await run("cat /nope.md /a-b.md /tutorial")
    assert mixed.exit_code == 2 and mixed.output == "dash name\n"
    assert "cat: /nope.md: No such file or directory" in mixed.error
    assert "cat: /tutorial: Is a directory" in mixed.error
    await fails("cat", "missing file operand")
    assert "🚀" in await ok("cat /i18n/ja/はじめに.md")


async def test_head_and_tail() -> None:
    assert await ok("head -n 2 /many/lines.md") == "line 1\nline 2\n"
    assert await ok("head -3 /many/lines.md") == "line 1\nline 2\nline 3\n"
    assert await ok("head -n3 /many/lines.md") == "line 1\nline 2\nline 3\n"
    assert await ok("head --lines=1 /many/lines.md") == "line 1\n"
    assert (await ok("head /many/lines.md")).count("\n") == 10
    assert await ok("head -n 0 /many/lines.md") == ""
    assert (await ok("head -n 100000 /many/lines.md")).count("\n") == 200
    assert await ok("tail -n 2 /many/lines.md") == "line 199\nline 200\n"
    assert await ok("tail -2 /long/no-newline.md") == "two\nthree\n"
    assert await ok("tail -n +199 /many/lines.md") == "line 199\nline 200\n"
    assert await ok("tail -n +0 /long/no-newline.md") == "one\ntwo\nthree\n"
    assert await ok("tail -n 0 /many/lines.md") == ""
    assert await ok("head -n 1 /a-b.md /a/b.md") == (
        "==> /a-b.md <==\ndash name\n\n==> /a/b.md <==\nslash name\n"
    )
    assert await ok("head -q -n 1 /a-b.md /a/b.md") == "dash name\nslash name\n"
    assert await ok("head -v -n 1 /a-b.md") == "==> /a-b.md <==\ndash name\n"
    await fails("head -n 100001 /index.md", "-n must be 0–100000")
    await fails("tail -n +100001 /index.md", "-n must be 0–100000")
    await fails("tail -n -3 /index.md", "invalid number for -n")
    await fails("head -n /index.md", "invalid number for -n")
    await fails("head -n", "requires an argument")
    await fails("head /tutorial", "head: /tutorial: Is a directory")


async def test_wc() -> None:
    assert await ok("wc /index.md") == " 4  8 65 /index.md\n"
    assert await ok("wc -l /index.md") == "4 /index.md\n"
    assert await ok("wc -w /long/no-newline.md") == "3 /long/no-newline.md\n"
    # -m counts characters, -c UTF-8 bytes; GNU order is lines, words, chars, bytes.
    path = "/i18n/ja/はじめに.md"
    assert await ok(f"wc -c -m {path}") == f"31 62 {path}\n"
    assert await ok(f"wc -lc {path} /index.md") == (
        f"  3  62 {path}\n  4  65 /index.md\n  7 127 total\n"
    )
    assert await ok("wc -m /empty.md") == "0 /empty.md\n"
    await fails("wc -x /index.md", "invalid option -- 'x'")


# grep / rg ----------------------------------------------------------------------------------


async def test_grep_basic_forms() -> None:
    assert await ok("grep FastAPI /tutorial/first-steps.md") == (
        "from fastapi import FastAPI\napp = FastAPI()\nThe app object is an instance of FastAPI.\n"
    )
    assert await ok("grep -n uvicorn /tutorial/first-steps.md") == "8:Run it with uvicorn.\n"
    assert await ok("grep -rn uvicorn /tutorial") == (
        "/tutorial/first-steps.md:8:Run it with uvicorn.\n"
    )
    assert await ok("grep -r -l FastAPI /") == (
        "/i18n/ja/はじめに.md\n/reference/fastapi.md\n/tutorial/first-steps.md\n"
    )
    assert await ok("grep -l FastAPI") == await ok("grep -rl FastAPI /")
    assert await ok("grep -c FastAPI /tutorial/first-steps.md") == "3\n"
    counts = await ok("grep -rc Security /tutorial/advanced")
    assert counts.splitlines() == [
        "/tutorial/advanced/deep/nested/leaf.md:0",
        "/tutorial/advanced/middleware.md:0",
        "/tutorial/advanced/security.md:1",
    ]
    assert await ok("rg -c Security /tutorial") == "/tutorial/advanced/security.md:1\n"
    assert await ok("grep -h -r Security /tutorial") == "# Security\n"
    assert await ok("grep -H Security /tutorial/advanced/security.md") == (
        "/tutorial/advanced/security.md:# Security\n"
    )
    assert await ok("grep Welcome /index.md /a-b.md") == "/index.md:# Welcome\n"


async def test_grep_exit_codes() -> None:
    none = await run("grep zzzz /index.md")
    assert none.exit_code == 1 and none.output == "" and none.error == ""
    assert (await run("grep -r zzzz /")).exit_code == 1
    await fails("grep FastAPI /tutorial", "grep: /tutorial: Is a directory")
    await fails("grep x /nope.md", "grep: /nope.md: No such file or directory")
    with_error = await run("grep Welcome /index.md /nope.md")
    assert with_error.exit_code == 2 and with_error.output == "/index.md:# Welcome\n"
    quiet = await run("grep -q Welcome /index.md /nope.md")
    assert quiet.exit_code == 0 and quiet.output == ""
    suppressed = await run("grep -s Welcome /index.md /nope.md")
    assert suppressed.exit_code == 0 and suppressed.error == ""
    await fails("grep", "no pattern given")
    await fails("grep -Z x /", "invalid option -- 'Z'")


async def test_grep_flags() -> None:
    assert await ok("grep -i 'first steps' /tutorial/first-steps.md") == "# First Steps\n"
    assert await ok("grep -i strasse /i18n/de/straße.md") == "# Straße\nDie STRASSE ist lang.\n"
    assert await ok("grep -w word /regex/special.md") == "word wordy sword\n"
    assert (await run("grep -w ord /regex/special.md")).exit_code == 1
    assert await ok("grep -x 'a+b' /regex/special.md") == "a+b\n"
    assert await ok("grep -F 'a+b' /regex/special.md") == "a+b\n"
    assert await ok("grep -e 'a+b' -e foo /regex/special.md") == "a+b\nfoo|bar\n"
    inverted = await run("grep -v -c line /many/lines.md")
    assert (inverted.exit_code, inverted.output) == (1, "0\n")
    assert await ok("grep -vn e /long/no-newline.md") == "2:two\n"
    assert await ok("grep -m 2 -n line /many/lines.md") == "1:line 1\n2:line 2\n"
    assert await ok("grep --max-count=1 --line-number line /many/lines.md") == "1:line 1\n"
    assert (await ok("grep -n -e line -- /many/lines.md")).count("\n") == 200


async def test_grep_context() -> None:
    assert await ok("grep -n -C1 uvicorn /tutorial/first-steps.md") == (
        "7-\n8:Run it with uvicorn.\n9-The app object is an instance of FastAPI.\n"
    )
    assert await ok("grep -n -A1 -B0 'line 1$' /many/lines.md") == "1:line 1\n2-line 2\n"
    assert await ok("grep -n -B2 'line 3$' /many/lines.md") == "1-line 1\n2-line 2\n3:line 3\n"
    # Separate groups are divided by "--"; adjacent ones merge.
    assert await ok("grep -n -C1 -e 'line 10$' -e 'line 20$' /many/lines.md") == (
        "9-line 9\n10:line 10\n11-line 11\n--\n19-line 19\n20:line 20\n21-line 21\n"
    )
    assert await ok("grep -n -A1 -e 'line 1$' -e 'line 2$' /many/lines.md") == (
        "1:line 1\n2:line 2\n3-line 3\n"
    )
    assert await ok("grep -2 -n 'line 5$' /many/lines.md") == (
        "3-line 3\n4-line 4\n5:line 5\n6-line 6\n7-line 7\n"
    )
    across = await ok("grep -r -A1 Tokens /tutorial/advanced /i18n/de")
    assert across == "/tutorial/advanced/security.md:Tokens expire.\n"
    assert (await ok("grep -C 100 'line 100$' /many/lines.md")).count("\n") == 200
    await fails("grep -C 101 x /index.md", "-C must be 0–100")
    await fails("grep -A -1 x /index.md", "invalid number for -A")


async def test_regex_dialects() -> None:
    special = "/regex/special.md"
    assert await ok(f"grep 'a|b' {special}") == "(a|b)\n"  # BRE: | is literal
    assert await ok(f"grep 'foo\\|bar' {special}") == "foo|bar\n"  # BRE alternation
    assert await ok(f"grep -E '^(a|f)' {special}") == "a+b\nfoo|bar\n"
    assert await ok(f"grep 'a+b' {special}") == "a+b\n"  # BRE: + is literal
    assert await ok(f"grep -E 'ba+ck' {special}") == "back\\slash\n"  # ERE: + repeats
    assert await ok(f"grep '\\<word\\>' {special}") == "word wordy sword\n"
    assert await ok(f"grep '[[:digit:]]' {special}") == "price: $5\n"
    assert await ok(f"grep -P '\\d' {special}") == "price: $5\n"
    assert await ok(f"rg '\\$\\d' {special}") == "price: $5\n"
    assert await ok(f"grep '[\\]' {special}") == "back\\slash\n"
    assert await ok(f"grep '^\\[' {special}") == "[bracket]\n"
    assert await ok(f"grep '\\(a\\)|b' {special}") == "(a|b)\n"
    assert await ok(f"grep 'h$' {special}") == "back\\slash\n"
    assert (await run(f"grep -E '^*' {special}")).exit_code == 1  # leading * is literal
    await fails(f"grep -E '(' {special}", "invalid regular expression")
    await fails(f"grep '[abc' {special}", "Unmatched [")
    await fails(f"grep 'ab\\' {special}", "Trailing backslash")


async def test_rg() -> None:
    assert await ok("rg uvicorn") == "/tutorial/first-steps.md:Run it with uvicorn.\n"
    assert (
        await ok("rg -n uvicorn /tutorial") == "/tutorial/first-steps.md:8:Run it with uvicorn.\n"
    )
    assert await ok("rg uvicorn /tutorial/first-steps.md") == "Run it with uvicorn.\n"
    assert await ok("rg -l -i security") == "/tutorial/advanced/security.md\n"
    assert await ok("rg -S Security") == "/tutorial/advanced/security.md:# Security\n"
    assert (await ok("rg -S security")).count("\n") == 1
    assert (await run("rg -s security /tutorial/advanced/security.md")).exit_code == 1
    assert await ok("rg -I -r uvicorn") == "Run it with uvicorn.\n"
    assert await ok("rg -F -w 'a+b' /regex") == "/regex/special.md:a+b\n"


async def test_grep_long_lines_are_clipped_around_the_match() -> None:
    out = await ok("grep -n needle /long/line.md")
    assert out.startswith("2:…") and "needle" in out and len(out) < 2_100
    folded = await ok("grep -in NEEDLE /long/line.md")
    assert "needle" in folded
    regex_out = await ok("grep -nE 'ne+dle' /long/line.md")
    assert "needle" in regex_out


# bounds -------------------------------------------------------------------------------------


def sized_store(total: int) -> MemoryStore:
    """One page whose cat output is exactly `total` characters, in 100-char lines."""
    lines = [f"{i:099d}\n" for i in range(total // 100)]
    rest = total - 100 * len(lines)
    if rest:
        lines.append("y" * (rest - 1) + "\n")
    return MemoryStore({"/big.md": "".join(lines)})


async def test_output_bound_exact_edge() -> None:
    exact = await run("cat /big.md", sized_store(30_000))
    assert len(exact.output) == 30_000 and not exact.truncated and exact.exit_code == 0
    over = await run("cat /big.md", sized_store(30_001))
    assert over.truncated and over.exit_code == 0
    assert len(over.output) <= 30_000
    lines = over.output.splitlines()
    assert lines[-1] == (
        "[output truncated at 30000 characters: narrow the path or use head/grep -m]"
    )
    assert all(len(line) == 99 for line in lines[:-1])  # cut at a line boundary


async def test_output_bound_without_newlines_and_small_limits() -> None:
    store = MemoryStore({"/one.md": "z" * 50_000})
    outcome = await run("cat /one.md", store)
    assert outcome.truncated and len(outcome.output) <= 30_000
    assert outcome.output.endswith("grep -m]\n")
    small = await run("cat /one.md", store, CommandLimits(max_output_chars=10))
    assert small.truncated and len(small.output) <= 10
    many = await run("cat /bulk/*.md " + " ".join(["/many/lines.md"] * 20))
    assert many.truncated and len(many.output) <= 30_000


async def test_pattern_length_edge() -> None:
    assert (await run(f"grep -c -F '{'q' * 256}' /index.md")).exit_code == 1
    over = await run(f"grep -F '{'q' * 257}' /index.md")
    assert over.exit_code == 2 and "pattern too long: 257 characters (limit 256)" in over.error
    split = await run(f"grep -e '{'q' * 200}' -e '{'q' * 57}' /index.md")
    assert split.exit_code == 2 and "pattern too long" in split.error


async def test_catastrophic_backtracking_is_stopped_within_the_budget() -> None:
    started = time.monotonic()
    outcome = await run("grep -E '(a+)+$' /long/backtrack.md")
    elapsed = time.monotonic() - started
    assert elapsed < 0.5
    assert outcome.exit_code == 2 and outcome.truncated
    assert "pattern too expensive" in outcome.error
    assert outcome.output.startswith("[grep: pattern too expensive")


async def test_regex_command_budget_stops_many_slow_lines() -> None:
    slow_line = "a" * 22 + "!\n"
    store = MemoryStore({f"/p{i}.md": slow_line * 50 for i in range(5)})
    limits = CommandLimits(regex_line_timeout_s=0.05, regex_command_budget_s=0.2)
    started = time.monotonic()
    outcome = await run("rg '(a|aa)+$'", store, limits)
    elapsed = time.monotonic() - started
    assert outcome.exit_code == 2 and elapsed < 1.5
    assert "regex time budget of 0.2 s per command exhausted" in outcome.error or (
        "pattern too expensive" in outcome.error
    )


async def test_overall_timeout_gives_partial_output_and_a_note() -> None:
    class SlowStore(MemoryStore):
        async def read_bodies(self, entries: Sequence[PageEntry]) -> dict[str, str]:
            if any(e.path == "/b.md" for e in entries):
                await asyncio.sleep(5)
            return await super().read_bodies(entries)

    store = SlowStore({"/a.md": "first\n", "/b.md": "second\n"})
    limits = CommandLimits(command_timeout_s=0.2, read_batch=1)
    outcome = await run("cat /a.md /b.md", store, limits)
    assert outcome.exit_code == 2 and outcome.truncated
    assert outcome.output.startswith("first\n")
    assert outcome.output.endswith("[cat: command stopped after 0.2 s; output is partial]\n")
    assert "stopped after 0.2 s" in outcome.error


async def test_store_failures_propagate() -> None:
    store = make_store()
    store.fail = True
    with pytest.raises(ConnectionError):
        await run("ls", store)


# cache --------------------------------------------------------------------------------------


async def test_cache_hit_after_reuse_and_miss_after_revision_change() -> None:
    store = make_store()
    cache = BodyCache()
    first = await run_command(store, cache, "cat /index.md")
    assert store.body_reads == 1 and cache.misses == 1
    again = await run_command(store, cache, "grep Welcome /index.md")
    assert store.body_reads == 1 and cache.hits == 1
    assert first.output.startswith("# Welcome") and again.exit_code == 0
    store.publish("/index.md", "# Welcome back\n")
    changed = await run_command(store, cache, "cat /index.md")
    assert changed.output == "# Welcome back\n"
    assert store.body_reads == 2 and cache.stale == 1


async def test_listing_is_scoped_to_the_operands() -> None:
    store = make_store()
    await run_command(store, None, "cat /tutorial/first-steps.md /tutorial/path-params.md")
    assert store.list_calls[-1] == "/tutorial/"
    await run_command(store, None, "ls /reference")
    assert store.list_calls[-1] == "/reference"


# fuzz ---------------------------------------------------------------------------------------

_TOKENS = st.sampled_from(
    [
        "ls",
        "tree",
        "find",
        "cat",
        "head",
        "tail",
        "wc",
        "grep",
        "rg",
        "-l",
        "-a",
        "-L",
        "-n",
        "-c",
        "-m",
        "-w",
        "-i",
        "-F",
        "-r",
        "-C",
        "-A",
        "-B",
        "-e",
        "-E",
        "-P",
        "-v",
        "-x",
        "-name",
        "-iname",
        "-type",
        "f",
        "d",
        "2",
        "0",
        "+3",
        "-5",
        "/",
        "..",
        "/tutorial",
        "/index.md",
        "*.md",
        "/i18n/*",
        "'a|b'",
        '"x"',
        "(",
        ")",
        "|",
        ";",
        "&&",
        ">",
        "$(",
        "`",
        "\\",
        "'",
        '"',
        "[",
        "]",
        "{",
        "}",
        "(a+)+$",
        "--",
        "-",
        "ß",
        "🚀",
        "\n",
        "#",
        "~",
        "-maxdepth",
        "-mindepth",
        "-path",
        "$x",
        "\\(",
        "\\|",
        "[[:alpha:]]",
        "*",
        "?",
    ]
)


@pytest.mark.slow  # 1 s under load (`make test-fast` leaves it out)
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.one_of(
        st.lists(_TOKENS, min_size=1, max_size=8).map(" ".join),
        st.text(max_size=80),
        st.tuples(
            st.sampled_from(["grep ", "rg -F ", "find / -name ", "cat "]), st.text(max_size=40)
        ).map("".join),
    )
)
async def test_fuzz_never_raises(command: str) -> None:
    limits = CommandLimits(regex_line_timeout_s=0.01, regex_command_budget_s=0.05)
    outcome = await run_command(STORE, None, command, limits=limits)
    assert outcome.exit_code in (0, 1, 2)
    assert len(outcome.output) <= limits.max_output_chars
    assert isinstance(outcome.error, str)
