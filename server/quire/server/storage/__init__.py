"""PostgreSQL access: the pool, migrations and the embedded server."""
