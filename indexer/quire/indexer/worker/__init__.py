"""The indexer worker: jobs from PostgreSQL, extraction, chunking, embedding, generations."""
