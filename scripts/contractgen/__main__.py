"""Writes (or with --check, verifies) every generated table. Emitters register in EMITTERS."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from scripts.contractgen import bounds, tools
from scripts.contractgen.contract import ROOT, Contract, load

# Each emitter returns {path relative to the repository root: file content}.
Emitter = Callable[[Contract], dict[str, str]]
EMITTERS: list[Emitter] = [bounds.emit, tools.emit]


def main() -> int:
    parser = argparse.ArgumentParser(prog="contractgen")
    parser.add_argument("--check", action="store_true", help="fail when a table is stale")
    args = parser.parse_args()
    contract = load()
    stale: list[str] = []
    for emit in EMITTERS:
        for rel, content in emit(contract).items():
            path = ROOT / rel
            current = path.read_text() if path.exists() else None
            if current == content:
                continue
            if args.check:
                stale.append(rel)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content)
                print(f"wrote {rel}")
    if stale:
        print("Generated tables are stale: run 'make generate' and commit:", file=sys.stderr)
        for rel in stale:
            print(f"  {rel}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
