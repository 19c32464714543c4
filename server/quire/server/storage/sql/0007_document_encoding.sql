-- The character encoding a text-like document (text, csv, markup, calendars, contacts,
-- transcripts) was decoded from: a Python codec name such as 'utf-8', 'cp1252' or 'utf-16-le'
-- (quire.indexer.extraction.decoding). '' for formats whose parser reads the bytes (PDF,
-- Office, email, ...) and for documents extracted before this migration until they are
-- extracted again.
ALTER TABLE documents ADD COLUMN detected_encoding text NOT NULL DEFAULT '';
