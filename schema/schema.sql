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
-- These comments are the schema's documentation: the comment lines right above a CREATE describe the
-- table, and the comment on a column's line (and the comment lines under it) the column, with its
-- unit; tools/schemapage.sh makes them the page tracedb-schema(7), and a test holds every column of a
-- new database to having one.

-- Facts about the database as a whole, one per key: SELECT * FROM meta lists them.
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,   -- e.g. schema_version, tool_version, import_status (complete, partial or
                            -- recording), source_file, trace_name, created_at, cached_from
  value                     -- text, integer or JSON text
);

-- Every event name and category, stored once (the views join them back).
CREATE TABLE string (
  id    INTEGER PRIMARY KEY,  -- what event.name_id and the other *_id columns of a name hold
  value TEXT NOT NULL         -- an interned event name or category
);

-- The kinds of event: the built-in ones, and any category tracedb does not know.
CREATE TABLE kind (
  id    INTEGER PRIMARY KEY,  -- what event.kind holds
  name  TEXT NOT NULL UNIQUE  -- e.g. op, range, gpu_range, python, runtime, driver, kernel, memcpy
);
INSERT INTO kind (id, name) VALUES {kind_rows};  -- the built-in kinds, from util/kinds.h
-- Categories tracedb does not know become kinds of their own (id >= 100, name = the category).

-- One row per trace imported (or recording made) into the database.
CREATE TABLE trace (
  id                INTEGER PRIMARY KEY,  -- the trace's number in the order imported
  source_file       TEXT,     -- the trace's path as given to tracedb import (a recording: its database)
  source_format     TEXT,     -- chrome-array, chrome-object, furiosa-records or recorder
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
  first_ns          INTEGER,  -- the earliest event start, ns (kind trace excluded)
  last_ns           INTEGER   -- the latest event end, ns (kind trace excluded)
);

-- A process of a trace (a pid), as the trace names it.
CREATE TABLE process (
  id         INTEGER PRIMARY KEY,  -- what thread.process_id holds
  trace_id   INTEGER NOT NULL REFERENCES trace(id),  -- the trace it is in
  pid,                        -- as in the file: integer, or text ("Spans")
  name       TEXT,            -- process_name metadata
  labels     TEXT,            -- process_labels metadata
  sort_index INTEGER          -- process_sort_index metadata: the viewer's order
);

-- A track of a process: a CPU thread, or a device stream.
CREATE TABLE thread (
  id         INTEGER PRIMARY KEY,  -- a track: a CPU thread, or a device stream
  process_id INTEGER NOT NULL REFERENCES process(id),  -- the process it is in
  tid,                        -- as in the file: integer, or text
  name       TEXT,            -- thread_name metadata
  sort_index INTEGER          -- thread_sort_index metadata: the viewer's order
);

-- A device (GPU) of a trace, from its deviceProperties.
CREATE TABLE device (
  id         INTEGER NOT NULL,  -- device index as the trace numbers it
  trace_id   INTEGER NOT NULL REFERENCES trace(id),  -- the trace it is in
  name       TEXT,              -- the device's name (e.g. NVIDIA H100 80GB HBM3)
  properties TEXT,              -- the deviceProperties entry, JSON
  PRIMARY KEY (trace_id, id)
);

-- No comma in the comments of event's last two columns: DROP COLUMN of the last column cuts back to
-- the comma before it, even in a comment.

-- Every timed thing of every trace: operators, ranges, API calls, kernels, memcpy, memset, syncs,
-- instants and memory events (the views give each kind its plain name).
CREATE TABLE event (
  id          INTEGER PRIMARY KEY,  -- the event's number (parent_id and launch_id hold one)
  kind        INTEGER NOT NULL,  -- kind.id
  name_id     INTEGER NOT NULL,  -- string.id of the name
  cat_id      INTEGER,           -- string.id of the category as written
  thread_id   INTEGER NOT NULL,  -- thread.id (track)
  start_ns    INTEGER NOT NULL,  -- start, ns on the trace's clock (plus trace.base_time_ns: absolute)
  dur_ns      INTEGER NOT NULL,  -- duration, ns (0 for an instant)
  self_ns     INTEGER NOT NULL,  -- dur_ns minus the direct children's dur_ns
  parent_id   INTEGER,           -- enclosing event on the same track
  depth       INTEGER NOT NULL DEFAULT 0,  -- nesting depth on its track: 0 at the top
  correlation INTEGER,           -- links a launch (runtime/driver call) to its GPU work
  external_id INTEGER,           -- Kineto External id (operator <-> GPU op)
  device      INTEGER,           -- device index: GPU work, ranges on a device and memory events
  stream      INTEGER,           -- GPU work: the stream it ran on
  bytes       INTEGER,           -- memcpy/memset bytes; memory event bytes (negative = free)
  launch_id   INTEGER,           -- GPU work: the runtime/driver call with the same correlation
  args        TEXT,              -- remaining args: a JSON object
  launch_ns   INTEGER,           -- GPU work: the start_ns of its launch (launch_id) kept at import so
                                 -- that reports read it without a lookup; databases made before it lack it
  flow        INTEGER            -- the flow half this event carries (the view flow gives it whole): the
                                 -- half that came right after it on its track at its start with its
                                 -- correlation for id; string.id of its category * 8 + 4 when bp is e
                                 -- + 1 for s or 2 for t or 3 for f
);

-- A kernel's launch geometry, as the trace gives it (the view kernels joins it).
CREATE TABLE kernel_launch (
  event_id      INTEGER PRIMARY KEY,  -- event.id of the kernel
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,     -- the grid, in blocks
  block_x INTEGER, block_y INTEGER, block_z INTEGER,  -- a block, in threads
  registers     INTEGER,              -- registers per thread
  shared_mem    INTEGER,              -- shared memory bytes
  blocks_per_sm REAL,                 -- blocks per SM (the trace's "blocks per SM")
  warps_per_sm  REAL,                 -- warps per SM (the trace's "warps per SM")
  occupancy_pct REAL                  -- est. achieved occupancy %
);

-- What a [memory] event (an allocation or a free) says beyond its bytes.
CREATE TABLE memory_event (
  event_id        INTEGER PRIMARY KEY,  -- event.id of the [memory] instant
  addr            INTEGER,              -- the address allocated or freed
  total_allocated INTEGER,              -- bytes allocated on the device after this event
  total_reserved  INTEGER,              -- bytes reserved by the caching allocator
  device_type     INTEGER               -- 0 cpu, 1 cuda (Kineto numbering)
);

-- Per (trace, kind, name, device): counts and sums computed while importing, so that whole-trace
-- reports read a few thousand rows instead of scanning every event. Time and memory per operator are
-- not among them: tracedb ops computes them from the events (PyTorch's rules need every event of the
-- trace), and the six columns for them hold 0 (an older tracedb's database may hold sums of its own
-- there, which nothing reads).
CREATE TABLE event_stats (
  trace_id INTEGER NOT NULL,  -- trace.id
  kind     INTEGER NOT NULL,  -- kind.id
  name_id  INTEGER NOT NULL,  -- string.id of the name
  device   INTEGER,           -- the device of GPU work (NULL for host events)
  calls    INTEGER NOT NULL,  -- how many events
  total_ns INTEGER NOT NULL,  -- sum of dur_ns
  self_ns  INTEGER NOT NULL,  -- sum of self_ns
  min_ns   INTEGER NOT NULL,  -- the shortest dur_ns
  max_ns   INTEGER NOT NULL,  -- the longest dur_ns
  self_device_ns  INTEGER NOT NULL, -- 0 (device time per operator: tracedb ops)
  device_total_ns INTEGER NOT NULL, -- 0 (device time per operator: tracedb ops)
  self_cpu_mem    INTEGER NOT NULL, -- 0 (memory per operator: tracedb ops)
  cpu_mem         INTEGER NOT NULL, -- 0 (memory per operator: tracedb ops)
  self_device_mem INTEGER NOT NULL, -- 0 (memory per operator: tracedb ops)
  device_mem      INTEGER NOT NULL  -- 0 (memory per operator: tracedb ops)
);

-- Per (trace, device), the whole-trace utilisation computed at import (HTA's temporal breakdown):
-- span = last_ns - first_ns; idle = span - busy; non-computation (IO-wait) = busy - run.
CREATE TABLE device_stats (
  trace_id INTEGER NOT NULL,  -- trace.id
  device   INTEGER NOT NULL,  -- the device index
  first_ns INTEGER NOT NULL,  -- the first GPU event's start on this device, ns
  last_ns  INTEGER NOT NULL,  -- the last GPU event's end, ns
  busy_ns  INTEGER NOT NULL,  -- the union of kernel, memcpy and memset intervals, ns
  run_ns   INTEGER NOT NULL,  -- the union of computation kernels' intervals, ns
  events   INTEGER NOT NULL   -- how many GPU events the device ran
);

-- Counter samples (Chrome "C" events, tdb_counter): one row per series and time.
CREATE TABLE counter (
  id        INTEGER PRIMARY KEY,  -- the sample's number
  thread_id INTEGER NOT NULL REFERENCES thread(id),  -- the track it was recorded on
  name_id   INTEGER NOT NULL,  -- string.id: "<event name>.<series>" or the series alone
  ts_ns     INTEGER NOT NULL,  -- when, ns on the trace's clock
  value     REAL               -- the sample
);

-- Flow arrows' halves (s, t, f). Nearly every one a profiler writes comes right after its event, on
-- its track at its start, with the event's correlation for id (Kineto's ac2g: launch -> kernel): that
-- event's row carries it (event.flow), and no row of its own is written (a third of a trace's rows).
-- The rest are flow_loose's rows. The view flow lists both; ad-hoc SQL reads it as the table it was.
CREATE TABLE flow_loose (
  id        INTEGER PRIMARY KEY,  -- the half's number in the order they came
  flow_id   INTEGER,           -- the id shared by the halves (correlation for ac2g)
  cat_id    INTEGER,           -- string.id of the category
  phase     TEXT NOT NULL,     -- s, t or f
  thread_id INTEGER NOT NULL,  -- thread.id (track) it is on
  ts_ns     INTEGER NOT NULL,  -- its time, ns on the trace's clock
  bind_enclosing INTEGER       -- 1 when bp = "e"
);

-- Every flow arrow's half as the trace gave it: flow_loose's rows, and the halves events carry.
--   id: a loose half's number in the order they came (NULL for a half an event carries)
--   event_id: the event carrying it (NULL for a loose half)
CREATE VIEW flow AS
SELECT id, flow_id, cat_id, phase, thread_id, ts_ns, bind_enclosing, NULL AS event_id FROM flow_loose
UNION ALL
SELECT NULL, correlation, flow >> 3, substr('stf', flow & 3, 1), thread_id, start_ns, (flow >> 2) & 1, id
FROM event WHERE flow IS NOT NULL;
