"""The ingestion pipeline shared by page sync and knowledge indexing: chunk (chunks.py) → fair,
batched embedding (embed_stage.py over schedule.py) → the caller's write (pages are published
one transaction per page, knowledge chunks in batches by the worker). docs/architecture.md,
"One ingestion pipeline", draws it."""
