"""Writes (or with --check, verifies) every generated table. Emitters register in EMITTERS."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from scripts.contractgen import (
    bounds,
    docs_errors,
    go,
    java,
    python_client,
    server_tables,
    tools,
    typescript,
)
from scripts.contractgen.contract import ROOT, Contract, load
from scripts.contractgen.facts import ContractError

# Each emitter returns {path relative to the repository root: file content}.
Emitter = Callable[[Contract], dict[str, str]]
EMITTERS: list[Emitter] = [
    python_client.emit,
    server_tables.emit,
    typescript.emit,
    go.emit,
    java.emit,
    docs_errors.emit,
    bounds.emit,
    tools.emit,
]


def generated(contract: Contract) -> dict[str, str]:
    """Every generated file's content by path, from every emitter."""
    files: dict[str, str] = {}
    for emit in EMITTERS:
        files.update(emit(contract))
    return files


def stale(files: dict[str, str], root: Path) -> list[str]:
    """The paths under `root` whose content is not (or no longer) what the contract generates."""
    out: list[str] = []
    for rel, content in files.items():
        path = root / rel
        if not path.exists() or path.read_text() != content:
            out.append(rel)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="contractgen")
    parser.add_argument("--check", action="store_true", help="fail when a table is stale")
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the checkout to write or check (default: this one)"
    )
    args = parser.parse_args(argv)
    try:
        files = generated(load())
    except ContractError as exc:
        print(f"contractgen: the contract is incomplete: {exc}", file=sys.stderr)
        return 2
    outdated = stale(files, args.root)
    if args.check:
        if outdated:
            print("Generated tables are stale: run 'make generate' and commit:", file=sys.stderr)
            for rel in outdated:
                print(f"  {rel}", file=sys.stderr)
            return 1
        print("generated tables are up to date")
        return 0
    for rel in outdated:
        path = args.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[rel])
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
