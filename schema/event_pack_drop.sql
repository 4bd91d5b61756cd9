-- event_pack_drop.sql: an import appending to a database, or one whose pack did not come out whole,
-- takes the pack away (event_pack.sql, event_pack_triggers.sql) before it changes the event table.
DROP TRIGGER IF EXISTS main.event_pack_stale_insert;
DROP TRIGGER IF EXISTS main.event_pack_stale_delete;
DROP TRIGGER IF EXISTS main.event_pack_stale_update;
DROP TABLE IF EXISTS main.event_pack;
DROP TABLE IF EXISTS main.event_pack_fix;
DROP TABLE IF EXISTS main.event_pack_stale;
DROP TABLE IF EXISTS main.event_pack_less;
DELETE FROM main.meta WHERE key IN ('event_pack', 'event_pack_v2');
