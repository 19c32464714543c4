"""Derives the blocking Python client from the asyncio one (run by scripts/generate-python.sh).

aio.py and _aio_interceptors.py are the only source: unasync rewrites them token by token
(`async`/`await` dropped, `AsyncIterator` → `Iterator`, `__aenter__` → `__enter__`, ...) with
the renames below, the main one swapping `_aio_transport` for `_blocking_transport`, which
holds the same names for blocking grpc. ruff then formats the result (lines lose `await `), so
the committed files are lint-clean. `--out DIR` writes under DIR/quire/client instead of the
client distribution (check-generated.sh compares the two).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import unasync

ROOT = Path(__file__).resolve().parent.parent
CLIENT = Path("quire/client")
SOURCES = {"aio.py": "blocking.py", "_aio_interceptors.py": "_blocking_interceptors.py"}
RENAMES = {
    "AsyncQuireClient": "QuireClient",
    "DiscoveryValidator": "SyncDiscoveryValidator",
    "_aio_transport": "_blocking_transport",
    "_aio_interceptors": "_blocking_interceptors",
    "aupload_requests": "upload_requests",
    "aclosing": "closing",
}
HEADER = "# Generated from {source} by scripts/unasync_client.py (make generate); do not edit.\n"


def derive(out: Path) -> list[Path]:
    source_dir = ROOT / "clients/python" / CLIENT
    target_dir = out / CLIENT
    target_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        rule = unasync.Rule(f"{source_dir}/", f"{tmp}/", additional_replacements=RENAMES)
        unasync.unasync_files([str(source_dir / name) for name in SOURCES], [rule])
        for source, target in SOURCES.items():
            text = (Path(tmp) / source).read_text()
            path = Path(tmp) / target
            path.write_text(HEADER.format(source=source) + text)
            written.append(path)
        ruff = [str(Path(sys.executable).parent / "ruff")]
        config = ["--config", str(ROOT / "pyproject.toml")]
        files = [str(p) for p in written]
        # The unsafe fix is UP028 (`for x in it: yield x` → `yield from it`), which is safe for
        # these generators: nobody sends into them.
        fix = ["check", "--fix", "--unsafe-fixes", "--quiet"]
        subprocess.run([*ruff, *fix, *config, *files], check=True)
        subprocess.run([*ruff, "format", "--quiet", *config, *files], check=True)
        for path in written:
            shutil.copyfile(path, target_dir / path.name)
    return [target_dir / path.name for path in written]


def main() -> int:
    parser = argparse.ArgumentParser(prog="unasync_client")
    parser.add_argument("--out", type=Path, default=ROOT / "clients/python")
    args = parser.parse_args()
    derive(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
