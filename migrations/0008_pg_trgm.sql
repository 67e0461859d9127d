-- Trigram matching for the issued-CFE search by receiver name (issue 7 point 1): available as a
-- contrib extension in the embedded PostgreSQL 18 and the machine's PostgreSQL 15 (checked with
-- CREATE EXTENSION on both); trusted since PostgreSQL 13, so a database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
