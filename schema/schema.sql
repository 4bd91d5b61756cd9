-- tracedb schema, version 1: the tables every trace lands in.
--
-- Design, argued:
-- * One `event` table for every timed thing (operators, ranges, API calls, kernels, memcpy, memset,
--   syncs, instants, memory events). Every report needs the same spine (kind, name, thread/track,
--   start, duration, parent, depth, self time), and the per-thread nesting sweep runs over all kinds
--   at once (an operator's children are other operators, runtime calls and [memory] instants alike).
--   One table keeps that sweep a single ordered scan and keeps ad-hoc SQL free of UNIONs.
--   Kind-specific detail that only some rows have lives in side tables keyed by event id
--   (`kernel_launch`, `memory_event`), so the common row stays small.
-- * Integer nanoseconds everywhere. `start_ns` is the trace's own clock (Chrome `ts` * 1000, exact);
--   the absolute time is `trace.base_time_ns + start_ns` when the trace gives a base.
-- * Names and categories are interned in `string`; the views join them back so SQL reads plainly.
-- * `args` holds, as JSON text, only the event args that did not become columns.
-- * parent_id/depth/self_ns are computed once at import by a sort and a stack sweep per track.
-- Views with plain names (ops, kernels, memcpy, ...) live in views.sql; indexes in indexes.sql
-- (built after the bulk load).

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,   -- e.g. schema_version, tool_version, import_status, source_file
  value                     -- text, integer or JSON text
);

CREATE TABLE string (
  id    INTEGER PRIMARY KEY,
  value TEXT NOT NULL       -- an interned event name or category
);

CREATE TABLE kind (
  id    INTEGER PRIMARY KEY,
  name  TEXT NOT NULL UNIQUE  -- op, range, gpu_range, python, runtime, driver, kernel, ...
);
INSERT INTO kind (id, name) VALUES {kind_rows};  -- the built-in kinds, from util/kinds.h
-- Categories tracedb does not know become kinds of their own (id >= 100, name = the category).

CREATE TABLE trace (
  id                INTEGER PRIMARY KEY,
  source_file       TEXT,
  source_format     TEXT,     -- chrome-array, chrome-object, recorder
  name              TEXT,     -- the trace's traceName
  base_time_ns      INTEGER,  -- baseTimeNanoseconds, when given
  rank              INTEGER,  -- distributedInfo.rank, when given
  device_properties TEXT,     -- JSON array as in the file
  distributed_info  TEXT,     -- JSON object as in the file
  extra             TEXT,     -- every other top-level key, as one JSON object
  status            TEXT,     -- complete | partial
  skipped_events    INTEGER,  -- events not imported (damaged, unmatched B, bad values)
  overlaps          INTEGER,  -- events overlapping their sibling without nesting
  error             TEXT,     -- the first error met, with byte offset
  first_ns          INTEGER,  -- the earliest event start (kind trace excluded)
  last_ns           INTEGER   -- the latest event end (kind trace excluded)
);

CREATE TABLE process (
  id         INTEGER PRIMARY KEY,
  trace_id   INTEGER NOT NULL REFERENCES trace(id),
  pid,                        -- as in the file: integer, or text ("Spans")
  name       TEXT,            -- process_name metadata
  labels     TEXT,            -- process_labels metadata
  sort_index INTEGER
);

CREATE TABLE thread (
  id         INTEGER PRIMARY KEY,  -- a track: a CPU thread, or a device stream
  process_id INTEGER NOT NULL REFERENCES process(id),
  tid,                        -- as in the file: integer, or text
  name       TEXT,            -- thread_name metadata
  sort_index INTEGER
);

CREATE TABLE device (
  id         INTEGER NOT NULL,  -- device index as the trace numbers it
  trace_id   INTEGER NOT NULL REFERENCES trace(id),
  name       TEXT,
  properties TEXT,              -- the deviceProperties entry, JSON
  PRIMARY KEY (trace_id, id)
);

CREATE TABLE event (
  id          INTEGER PRIMARY KEY,
  kind        INTEGER NOT NULL,  -- kind.id
  name_id     INTEGER NOT NULL,  -- string.id
  cat_id      INTEGER,           -- string.id of the category as written
  thread_id   INTEGER NOT NULL,  -- thread.id (track)
  start_ns    INTEGER NOT NULL,
  dur_ns      INTEGER NOT NULL,
  self_ns     INTEGER NOT NULL,  -- dur_ns minus the direct children's dur_ns
  parent_id   INTEGER,           -- enclosing event on the same track
  depth       INTEGER NOT NULL DEFAULT 0,
  correlation INTEGER,           -- links a launch (runtime/driver call) to its GPU work
  external_id INTEGER,           -- Kineto External id (operator <-> GPU op)
  device      INTEGER,
  stream      INTEGER,
  bytes       INTEGER,           -- memcpy/memset bytes; memory event bytes (negative = free)
  launch_id   INTEGER,           -- GPU work: the runtime/driver call with the same correlation
  args        TEXT,              -- remaining args: a JSON object (no comma in this comment: DROP COLUMN
                                 -- of the last column cuts back to the comma before it even in a comment)
  launch_ns   INTEGER,           -- GPU work: the start_ns of its launch (launch_id) kept at import so
                                 -- that reports read it without a lookup; databases made before it lack it
  flow        INTEGER            -- the flow half this event carries (the view flow gives it whole): the
                                 -- half that came right after it on its track at its start with its
                                 -- correlation for id; string.id of its category * 8 + 4 when bp is e
                                 -- + 1 for s or 2 for t or 3 for f (no comma in this comment nor in the
                                 -- one above: DROP COLUMN of the last column cuts back to the comma
                                 -- before it even in a comment)
);

CREATE TABLE kernel_launch (
  event_id      INTEGER PRIMARY KEY,  -- event.id of the kernel
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
  block_x INTEGER, block_y INTEGER, block_z INTEGER,
  registers     INTEGER,              -- registers per thread
  shared_mem    INTEGER,              -- shared memory bytes
  blocks_per_sm REAL,
  warps_per_sm  REAL,
  occupancy_pct REAL                  -- est. achieved occupancy %
);

CREATE TABLE memory_event (
  event_id        INTEGER PRIMARY KEY,  -- event.id of the [memory] instant
  addr            INTEGER,
  total_allocated INTEGER,              -- bytes allocated on the device after this event
  total_reserved  INTEGER,              -- bytes reserved by the caching allocator
  device_type     INTEGER               -- 0 cpu, 1 cuda (Kineto numbering)
);

-- Per (trace, kind, name, device): counts and sums computed while importing, so that whole-trace
-- reports read a few thousand rows instead of scanning every event.
CREATE TABLE event_stats (
  trace_id INTEGER NOT NULL,
  kind     INTEGER NOT NULL,
  name_id  INTEGER NOT NULL,
  device   INTEGER,
  calls    INTEGER NOT NULL,
  total_ns INTEGER NOT NULL,  -- sum of dur_ns
  self_ns  INTEGER NOT NULL,  -- sum of self_ns
  min_ns   INTEGER NOT NULL,
  max_ns   INTEGER NOT NULL,
  self_device_ns  INTEGER NOT NULL, -- GPU work launched by these events' own runtime calls
  device_total_ns INTEGER NOT NULL, -- ... by them or anything below them
  self_cpu_mem    INTEGER NOT NULL, -- host bytes allocated minus freed directly inside them
  cpu_mem         INTEGER NOT NULL, -- ... inside them or anything below them
  self_device_mem INTEGER NOT NULL, -- device bytes, likewise
  device_mem      INTEGER NOT NULL
);

-- Per (trace, device), the whole-trace utilisation computed at import (HTA's temporal breakdown):
-- span = last_ns - first_ns; idle = span - busy; non-computation (IO-wait) = busy - run.
CREATE TABLE device_stats (
  trace_id INTEGER NOT NULL,
  device   INTEGER NOT NULL,
  first_ns INTEGER NOT NULL,  -- the first GPU event's start on this device
  last_ns  INTEGER NOT NULL,  -- the last GPU event's end
  busy_ns  INTEGER NOT NULL,  -- the union of kernel, memcpy and memset intervals
  run_ns   INTEGER NOT NULL,  -- the union of computation kernels' intervals
  events   INTEGER NOT NULL
);

CREATE TABLE counter (
  id        INTEGER PRIMARY KEY,
  thread_id INTEGER NOT NULL REFERENCES thread(id),
  name_id   INTEGER NOT NULL,  -- string.id: "<event name>.<series>" or the series alone
  ts_ns     INTEGER NOT NULL,
  value     REAL
);

-- Flow arrows' halves (s, t, f). Nearly every one a profiler writes comes right after its event, on
-- its track at its start, with the event's correlation for id (Kineto's ac2g: launch -> kernel): that
-- event's row carries it (event.flow), and no row of its own is written (a third of a trace's rows).
-- The rest are flow_loose's rows. The view flow lists both; ad-hoc SQL reads it as the table it was.
CREATE TABLE flow_loose (
  id        INTEGER PRIMARY KEY,
  flow_id   INTEGER,           -- the id shared by the halves (correlation for ac2g)
  cat_id    INTEGER,
  phase     TEXT NOT NULL,     -- s, t or f
  thread_id INTEGER NOT NULL,
  ts_ns     INTEGER NOT NULL,
  bind_enclosing INTEGER       -- 1 when bp = "e"
);

-- id: a loose half's number in the order they came (NULL for a half an event carries); event_id: the
-- event carrying it (NULL for a loose half).
CREATE VIEW flow AS
SELECT id, flow_id, cat_id, phase, thread_id, ts_ns, bind_enclosing, NULL AS event_id FROM flow_loose
UNION ALL
SELECT NULL, correlation, flow >> 3, substr('stf', flow & 3, 1), thread_id, start_ns, (flow >> 2) & 1, id
FROM event WHERE flow IS NOT NULL;
