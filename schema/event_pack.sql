-- event_pack.sql: made by a fresh import (recorder/store/ingest.c), before its rows. The event table's
-- columns critical-path and ops read, packed by the row writer in blocks of rows as it writes them
-- (recorder/store/event_pack.c has the format): a report reads 491 blobs instead of 2 M rows.
-- The pack is whole only while meta holds 'event_pack_v2' (its rows' count; 'event_pack' in a database
-- made before its format 2): the import writes it last, and the triggers of event_pack_triggers.sql
-- take it away at any change to the event table.

-- A copy of the event table's columns critical-path and ops read (id, kind, name, category, track,
-- start, duration, correlation, device, stream, launch; parent, self time, launch's start), packed in
-- blobs of rows; read only while whole (meta event_pack_v2 holds its row count), gone after any change
-- to the event table.
CREATE TABLE event_pack (
  block INTEGER PRIMARY KEY, -- the blob's number, in the order written
  rows  INTEGER NOT NULL,    -- how many events it holds
  data  BLOB NOT NULL        -- the packed rows (recorder/store/event_pack.c has the format)
);
-- Rows whose launch_id the import's end changed after they were packed (late links: ingest_sweep.c
-- tells the import each one; a trigger would make SQLite's UPDATE of them take two passes, and its
-- rows out of id order).
CREATE TABLE event_pack_fix (
  id        INTEGER PRIMARY KEY,  -- event.id of the row
  launch_id INTEGER               -- its launch_id as it is now
);
-- Rows whose parent_id, self_ns, launch_id or launch_ns the import's end changed after they were packed
-- (its nesting of tracks that came out of order), as ranges of ids: a report reads those rows' values
-- from the event table.
CREATE TABLE event_pack_stale (
  lo INTEGER NOT NULL, -- the first id of the range
  hi INTEGER NOT NULL  -- its last
);
-- Self times made less after their rows were packed (a parent's, by a child that came later), packed in
-- blobs of fixes (recorder/store/event_pack.c has the format): a report takes each from the packed value.
CREATE TABLE event_pack_less (
  block INTEGER PRIMARY KEY, -- the blob's number, in the order written
  rows  INTEGER NOT NULL,    -- how many fixes it holds
  data  BLOB NOT NULL        -- the fixes (an id's self time less a time), in the order made
);
-- For this import only: a change to a packed row that event_pack_fix cannot say (none by the import's
-- own code: these watch that it stays so). No column the import's end rewrites is watched, so its
-- UPDATEs stay one pass in id order.
CREATE TEMP TABLE event_pack_broken (why TEXT);
CREATE TEMP TRIGGER event_pack_update AFTER UPDATE OF id, kind, name_id, cat_id, thread_id, start_ns, dur_ns, correlation,
  device, stream, args ON main.event
WHEN OLD.id IS NOT NEW.id OR OLD.kind IS NOT NEW.kind OR OLD.name_id IS NOT NEW.name_id OR OLD.cat_id IS NOT NEW.cat_id
  OR OLD.thread_id IS NOT NEW.thread_id OR OLD.start_ns IS NOT NEW.start_ns OR OLD.dur_ns IS NOT NEW.dur_ns
  OR OLD.correlation IS NOT NEW.correlation OR OLD.device IS NOT NEW.device OR OLD.stream IS NOT NEW.stream
  OR OLD.args IS NOT NEW.args
BEGIN
  INSERT INTO event_pack_broken VALUES ('update');
END;
CREATE TEMP TRIGGER event_pack_delete AFTER DELETE ON main.event
BEGIN
  INSERT INTO event_pack_broken VALUES ('delete');
END;
