-- An organisation whose content-addressed vectors (vector_store) are filed under another one:
-- the gate's scratch organisations, made for one run and purged after it, file their vectors
-- under the organisation that ran the gate, so its next run of the same public data set embeds
-- nothing, whichever worker (the gate's own or a `quire worker`) indexes the documents.
ALTER TABLE organisations
    ADD COLUMN vectors_filed_under uuid REFERENCES organisations ON DELETE SET NULL;
