-- spill_map.sql: a private temporary database (opened as "", gone when closed) where a map of keys to
-- ids (recorder/store/spill_map.c: the names interned, the per-name sums' keys, the call paths) puts the
-- keys its memory cannot hold. Nothing else reads it: no journal, no sync, one transaction for its life.
-- The statements with parameters are the map's lookup and its insert, in that order (prepared once,
-- kept); the others run when the database is made.
PRAGMA journal_mode=OFF;
PRAGMA synchronous=OFF;
PRAGMA locking_mode=EXCLUSIVE;
PRAGMA cache_size=-1024;  -- 1 MiB of its pages in memory; the rest in its file (SQLite's temporary directory)
CREATE TABLE spill (
  key BLOB PRIMARY KEY,  -- the key's bytes: its own index
  id  INTEGER NOT NULL
) WITHOUT ROWID;
BEGIN;
SELECT id FROM spill WHERE key = ?1;
INSERT OR REPLACE INTO spill (key, id) VALUES (?1, ?2);  -- a key put again (a value a database appended to holds twice): its last id, as strmap_put keeps
