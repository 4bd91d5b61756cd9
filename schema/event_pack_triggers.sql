-- event_pack_triggers.sql: made by a fresh import at its end, when its pack is whole (event_pack.sql).
-- Any later change to the event table, by any program, takes the pack away: reports then read the
-- rows themselves. (An import appending to the database drops these and the pack first.)
CREATE TRIGGER event_pack_stale_insert AFTER INSERT ON event
BEGIN
  DELETE FROM event_pack; DELETE FROM event_pack_fix; DELETE FROM event_pack_stale; DELETE FROM event_pack_less;
  DELETE FROM meta WHERE key IN ('event_pack', 'event_pack_v2');
END;
CREATE TRIGGER event_pack_stale_delete AFTER DELETE ON event
BEGIN
  DELETE FROM event_pack; DELETE FROM event_pack_fix; DELETE FROM event_pack_stale; DELETE FROM event_pack_less;
  DELETE FROM meta WHERE key IN ('event_pack', 'event_pack_v2');
END;
CREATE TRIGGER event_pack_stale_update AFTER UPDATE OF id, kind, name_id, cat_id, thread_id, start_ns, dur_ns, correlation,
  device, stream, launch_id, args, parent_id, self_ns, launch_ns ON event
BEGIN
  DELETE FROM event_pack; DELETE FROM event_pack_fix; DELETE FROM event_pack_stale; DELETE FROM event_pack_less;
  DELETE FROM meta WHERE key IN ('event_pack', 'event_pack_v2');
END;
