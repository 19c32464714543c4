"""The Citus plan (docs/scaling.md §4, storage/distribution.py) holds for the schema the
migrations build and for the SQL the server and the indexer run, so it cannot rot: every
table is placed; distributed tables carry the organisation in every unique key and in every
foreign key between them; no reference or coordinator table points at a distributed one;
every statement over distributed tables names one organisation unless it is listed, with
its reason, as a multi-tenant one; the docs' table says the same."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
import pytest_asyncio

from quire.server.storage.distribution import (
    DISTRIBUTION_COLUMN,
    MULTI_TENANT_STATEMENTS,
    PLACEMENT,
    Placement,
)

ASYNC = pytest.mark.asyncio(loop_scope="session")
ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTED = {t for t, p in PLACEMENT.items() if p is Placement.DISTRIBUTED}

TABLES = """
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
"""
UNIQUE_KEYS = """
SELECT t.relname AS table_name, i.relname AS index_name,
       array(SELECT a.attname FROM unnest(x.indkey) AS k(n)
             JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n) AS columns
FROM pg_index x
JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE n.nspname = 'public' AND x.indisunique
"""
FOREIGN_KEYS = """
SELECT con.conname, src.relname AS source, dst.relname AS target,
       array(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY AS k(n, i)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n
             ORDER BY k.i) AS source_columns,
       array(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY AS k(n, i)
             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n
             ORDER BY k.i) AS target_columns
FROM pg_constraint con
JOIN pg_class src ON src.oid = con.conrelid
JOIN pg_class dst ON dst.oid = con.confrelid
WHERE con.contype = 'f'
"""
DISTRIBUTION_NOT_NULL = """
SELECT c.relname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
WHERE c.relname = ANY($1::text[]) AND a.attname = $2 AND a.attnotnull
"""


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def conn(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    from quire.server.app import prepare_database
    from quire.server.config import Settings

    pool = await prepare_database(database_url, Settings(database_url=database_url))
    await pool.close()
    connection = await asyncpg.connect(database_url)
    yield connection
    await connection.close()


@ASYNC
async def test_every_table_is_placed(conn: asyncpg.Connection) -> None:
    tables = {r["relname"] for r in await conn.fetch(TABLES)}
    assert tables - set(PLACEMENT) == set(), "place the new table in storage/distribution.py"
    assert set(PLACEMENT) - tables == set(), "a placed table no longer exists"


@ASYNC
async def test_distributed_tables_carry_the_organisation_in_every_unique_key(
    conn: asyncpg.Connection,
) -> None:
    not_null = {
        r["relname"]
        for r in await conn.fetch(DISTRIBUTION_NOT_NULL, sorted(DISTRIBUTED), DISTRIBUTION_COLUMN)
    }
    assert not_null == DISTRIBUTED
    keys = [r for r in await conn.fetch(UNIQUE_KEYS) if r["table_name"] in DISTRIBUTED]
    assert len(keys) >= len(DISTRIBUTED)  # every one has a primary key at least
    for key in keys:
        assert DISTRIBUTION_COLUMN in key["columns"], (
            f"{key['index_name']} on {key['table_name']} must include {DISTRIBUTION_COLUMN}"
        )


@ASYNC
async def test_foreign_keys_keep_tenants_co_located(conn: asyncpg.Connection) -> None:
    for fk in await conn.fetch(FOREIGN_KEYS):
        source, target = PLACEMENT[fk["source"]], PLACEMENT[fk["target"]]
        name = f"{fk['conname']} ({fk['source']} → {fk['target']})"
        assert target is not Placement.COORDINATOR, f"{name}: nothing may point at a local table"
        if target is Placement.DISTRIBUTED:
            assert source is Placement.DISTRIBUTED, f"{name}: only a distributed table may"
            position = list(fk["source_columns"]).index(DISTRIBUTION_COLUMN)
            assert fk["target_columns"][position] == DISTRIBUTION_COLUMN, name
        if source is Placement.COORDINATOR:
            pytest.fail(f"{name}: a coordinator table keeps no foreign keys")


def statements() -> Iterator[tuple[str, str]]:
    """("module:CONSTANT", SQL text) for every module-level SQL string of quire.server and
    quire.indexer (f-string values read as "{}")."""
    for package in ("quire.server", "quire.indexer"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            spec = importlib.util.find_spec(info.name)
            if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
                continue
            tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
            for node in tree.body:
                if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                    continue
                target = node.targets[0]
                if not isinstance(target, ast.Name):
                    continue
                value = node.value
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    text = value.value
                elif isinstance(value, ast.JoinedStr):
                    text = "".join(
                        v.value if isinstance(v, ast.Constant) else "{}" for v in value.values
                    )
                else:
                    continue
                if re.match(r"\s*(WITH|SELECT|INSERT|UPDATE|DELETE)\b", text, re.IGNORECASE):
                    yield f"{info.name}:{target.id}", text


TOUCHES = re.compile(r"\b(?:FROM|JOIN|UPDATE|INTO|USING)\s+(\w+)", re.IGNORECASE)
# The organisation taken from an array (several organisations in one statement).
MANY_ORGANISATIONS = re.compile(r"AS\s+\w+\s*\(\s*org_id\b|\borg_id\s*=\s*ANY", re.IGNORECASE)


def multi_tenant(text: str) -> bool:
    return DISTRIBUTION_COLUMN not in text or bool(MANY_ORGANISATIONS.search(text))


def test_statements_over_distributed_tables_name_one_organisation() -> None:
    found = {name: text for name, text in statements()}
    assert len(found) > 150  # the scan sees the code base's SQL
    over_distributed = {
        name: text
        for name, text in found.items()
        if {t.lower() for t in TOUCHES.findall(text)} & DISTRIBUTED
    }
    unlisted = sorted(
        name
        for name, text in over_distributed.items()
        if multi_tenant(text) and name not in MULTI_TENANT_STATEMENTS
    )
    assert unlisted == [], "filter on one organisation, or list it with a reason"
    stale = sorted(
        name
        for name in MULTI_TENANT_STATEMENTS
        if name not in over_distributed or not multi_tenant(over_distributed[name])
    )
    assert stale == [], "listed as multi-tenant but no longer is"


def test_the_docs_table_says_the_same() -> None:
    text = (ROOT / "docs" / "scaling.md").read_text(encoding="utf-8")
    section = text.split("## 4. Citus", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| [^|]+ \| \*\*(\w+)\*\*", section, re.MULTILINE))
    assert rows == {t: p.value for t, p in PLACEMENT.items()}
