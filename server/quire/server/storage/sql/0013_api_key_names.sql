-- ListApiKeys shows each key's name (a label given at creation) and when it last
-- authenticated a call (auth.py records it at most once a minute per key and process).
ALTER TABLE api_keys ADD COLUMN name text NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
