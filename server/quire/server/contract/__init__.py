"""The contract as the server holds it: constants of quire.v1 and the tables generated from it.

`tables` (statuses, reasons, scopes) and `bounds` (field bounds) are written by
scripts/contractgen from the proto's options; this module holds the few hand-set constants.
"""

# Every message of quire.v1 that carries `schema_version` is sent with this value; a change
# that breaks the shape of stored or sent messages bumps it.
SCHEMA_VERSION = 1
