"""Generates every per-code, per-RPC and per-field table from the proto contract.

Run `python -m scripts.contractgen` (what `make generate` does) to write the tables, or with
`--check` (what `make check-generated` does) to fail when a committed table is stale.
"""
