"""Where each table goes on a Citus cluster, by organisation (docs/scaling.md §4).

The plan, kept as data so `tests/integration/test_distribution_plan.py` can hold the schema
and the SQL to it: a new table must be placed here, a distributed table must carry the
distribution column in every key and in every foreign key to another distributed table, and
a statement over distributed tables must name one organisation (or be listed below with the
reason it may touch several).
"""

from __future__ import annotations

from enum import Enum

DISTRIBUTION_COLUMN = "org_id"


class Placement(Enum):
    # Sharded by organisation; all of one organisation's rows share a shard group
    # (co-located), so per-tenant joins stay on one node.
    DISTRIBUTED = "distributed"
    # Copied to every node: small, read by key from any tenant's queries.
    REFERENCE = "reference"
    # A plain table on the coordinator: cross-tenant work that needs row locks or is
    # deployment-wide bookkeeping.
    COORDINATOR = "coordinator"


PLACEMENT: dict[str, Placement] = {
    # Small, every query's first join; its unique name is fine on a reference table.
    "organisations": Placement.REFERENCE,
    # Verification looks a key up by key_id alone (auth.SELECT_KEY): a reference table keeps
    # that a single-node lookup, and keys are few.
    "api_keys": Placement.REFERENCE,
    "deployment_settings": Placement.REFERENCE,
    "server_secrets": Placement.REFERENCE,
    # Looked up by fingerprint, deployment-wide (cache.GATE_PASSED, gate runner).
    "gate_results": Placement.REFERENCE,
    # Claims are cross-tenant SELECT … FOR UPDATE SKIP LOCKED, which Citus does not run
    # across shards.
    "jobs": Placement.COORDINATOR,
    "schema_migrations": Placement.COORDINATOR,
    # Deployment-wide: each worker's last heartbeat, read by servers (quire/server/workers.py).
    "worker_heartbeats": Placement.COORDINATOR,
    "audit_log": Placement.DISTRIBUTED,
    "namespaces": Placement.DISTRIBUTED,
    "pages": Placement.DISTRIBUTED,
    "page_chunks": Placement.DISTRIBUTED,
    "page_lexeme_stats": Placement.DISTRIBUTED,
    "page_term_totals": Placement.DISTRIBUTED,
    "collections": Placement.DISTRIBUTED,
    "documents": Placement.DISTRIBUTED,
    "document_originals": Placement.DISTRIBUTED,
    "agents": Placement.DISTRIBUTED,
    "index_generations": Placement.DISTRIBUTED,
    "knowledge_chunks": Placement.DISTRIBUTED,
    "lexeme_stats": Placement.DISTRIBUTED,
    "generation_stats": Placement.DISTRIBUTED,
    "index_backlog": Placement.DISTRIBUTED,
    "search_cache": Placement.DISTRIBUTED,
    "vector_store": Placement.DISTRIBUTED,
    "shadow_samples": Placement.DISTRIBUTED,
}

# Statements over distributed tables that may touch several organisations, by
# "module:CONSTANT", with what they become on Citus. Every other statement over a distributed
# table filters on one organisation (a router query).
MULTI_TENANT_STATEMENTS: dict[str, str] = {
    "quire.indexer.worker.claims:EXPIRE_CACHE": (
        "expiry sweep of search_cache: a multi-shard DELETE, run every 30 s by each worker; "
        "fine as is (no row locks across shards), or one per organisation"
    ),
    "quire.indexer.worker.backlog:RECORD": (
        "the worker's batch of several organisations' documents: split the batch per "
        "organisation (one statement each)"
    ),
    "quire.indexer.worker.backlog:CLEAR_WRITTEN": "batch per organisation, as RECORD",
    "quire.indexer.worker.generations:LOCK_DOCUMENTS": "batch per organisation, as RECORD",
    "quire.indexer.worker.generations:DELETE_CHUNKS_MANY": "batch per organisation, as RECORD",
    "quire.indexer.worker.document_queries:START_EXTRACTION": "batch per organisation, as RECORD",
    "quire.indexer.worker.document_queries:STORE_TEXTS": "batch per organisation, as RECORD",
    "quire.indexer.worker.cancel:DELETED_AMONG": (
        "the worker's check, at each lease renewal, of which collections it holds work of were "
        "deleted: one statement per organisation of that set, as RECORD"
    ),
}
