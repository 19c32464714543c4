"""What the database failing looks like to the worker's stages.

LOST_DATABASE: the connection went away (a restart, a failover, a pooler dropping it, the
network); DATABASE_ERRORS adds a statement the server refused. A stage catches
DATABASE_ERRORS around its statements and retries the jobs concerned (in_flight.py); the
claim loop waits and goes on (claims.py). Anything else is a bug and is not caught there.
"""

from __future__ import annotations

import asyncpg

LOST_DATABASE = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.InternalClientError,
)
DATABASE_ERRORS = (asyncpg.PostgresError, *LOST_DATABASE)
