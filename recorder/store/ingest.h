/* ingest.h: the one path by which events reach a tracedb database (importers and the live recorder).
 * See ingest.c for how a load runs: create -> events -> finish (nesting sweep, links, indexes). */
#ifndef TDB_INGEST_H
#define TDB_INGEST_H
#include "kinds.h"
#include "time_range.h" /* TDB_TIME_MAX, tdb_time_clamp, tdb_sat_add */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#define TDB_NULL INT64_MIN /* an absent integer field */

/* Binds v, or NULL for TDB_NULL. */
static inline void tdb_bind_int_or_null(sqlite3_stmt *st, int i, int64_t v)
{
    if (v == TDB_NULL)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int64(st, i, v);
}

/* enum tdb_kind: util/kinds.h */

enum tdb_open_mode {
    TDB_OPEN_CREATE, /* refuse if the database exists */
    TDB_OPEN_FORCE,  /* replace an existing database (atomically, at the end) */
    TDB_OPEN_APPEND, /* add to an existing database in one transaction */
    TDB_OPEN_LIVE,   /* the recorder: a new database written in place (WAL), committed as it goes and
                      * readable meanwhile; nesting, links and sums are computed when it ends */
    TDB_OPEN_MEMORY, /* a new database in memory, gone at the end (fuzzing; path is ignored) */
    TDB_OPEN_REBUILD /* tracedb finish: a recording's database made again from its staging file, as
                      * TDB_OPEN_LIVE makes it, but into a file no one reads until it is whole: written
                      * as an import writes one (no WAL, 16 KiB pages), its rows on a thread of their own
                      * beside the conversion (a live recording's converter writes them itself: one core
                      * is the program's) */
};

/* A string that need not be NUL-terminated. */
struct tdb_str {
    const char *p;
    size_t n;
};

/* One timed event as an importer hands it over; integers are TDB_NULL when absent. */
struct tdb_event {
    int kind;                 /* enum tdb_kind, or an id from tdb_ingest_custom_kind() */
    struct tdb_str name, cat; /* cat.p may be NULL */
    int64_t thread_id;        /* from tdb_ingest_thread() */
    int64_t start_ns, dur_ns; /* dur_ns >= 0 */
    int64_t correlation, external_id, device, stream, bytes;
    int64_t launch_id; /* set by the ingest writer: the launching runtime/driver call, when known */
    int64_t launch_ns; /* ... and its start_ns, with it */
    int64_t flow;      /* set by the ingest writer: the flow half the row carries (schema.sql's event.flow) */
    /* nesting known before the end-of-trace sweep (TDB_NULL: none yet; the sweep sets it) */
    int64_t parent_id, self_ns;
    int depth;
    int64_t id; /* a live recording's id from tdb_ingest_reserve_id(), or TDB_NULL: the next one */
    struct tdb_str args; /* JSON object text of the args left over, or p == NULL */
    /* kernel launch details, when has_launch */
    int has_launch;
    int64_t grid[3], block[3], registers, shared_mem;
    double blocks_per_sm, warps_per_sm, occupancy_pct; /* NaN when absent */
    /* memory event details, when kind == TDB_KIND_MEMORY */
    int64_t addr, total_allocated, total_reserved, device_type;
};

/* An event with every optional field absent (TDB_NULL, NaN) and no nesting yet. */
void tdb_event_init(struct tdb_event *ev);

/* What a trace file's top level says about itself. */
struct tdb_trace_info {
    const char *source_file, *source_format, *name;
    int64_t base_time_ns, rank;
    const char *device_properties, *distributed_info, *extra; /* JSON text or NULL */
    const char *status, *error;
    int64_t skipped_events;
};

/* Facts of real traces that are not damage: kept (flagged in the event's args as "tracedb.anomaly")
 * and counted in meta as anomalies.<name>. */
enum tdb_anomaly {
    TDB_ANOMALY_NEGATIVE_DUR,      /* an X event with a negative dur: kept with dur 0 */
    TDB_ANOMALY_END_WITHOUT_BEGIN, /* an E with no open B on its thread: nothing to keep */
    TDB_ANOMALY_NEVER_ENDED,       /* a B never ended: ends at its thread's last timestamp */
    TDB_ANOMALY_END_BEFORE_BEGIN,  /* an E earlier than its B: the range has dur 0 */
    TDB_ANOMALY_COUNT
};
extern const char *const tdb_anomaly_names[TDB_ANOMALY_COUNT];

struct tdb_ingest;

/* Checks the trace just ended against the database's other traces: 1 when it is one of them again (the
 * same span, time base, name, rank and event count; refused unless allow_duplicate, and said on err), 0
 * otherwise, with a warning when its times lie far from the others' (another clock or time base);
 * -1 on a database error. */
int tdb_ingest_check_trace(struct tdb_ingest *ing, int allow_duplicate, const char *file);

/* Adds to the database's anomaly counts (meta anomalies.<name>, summed over appends). */
void tdb_ingest_count_anomalies(struct tdb_ingest *ing, const int64_t counts[TDB_ANOMALY_COUNT]);

/* Opens (creates) the database at path. Errors go to err, naming the path. NULL on failure. */
struct tdb_ingest *tdb_ingest_open(const char *path, enum tdb_open_mode mode, FILE *err);

/* Starts a trace (one imported file); returns its trace id. */
int64_t tdb_ingest_begin_trace(struct tdb_ingest *ing, const char *source_file, const char *format);

/* The track (thread) id for a pid/tid pair. Text ids have is_text set. Never fails silently:
 * returns -1 only when the database refuses. */
int64_t tdb_ingest_thread(struct tdb_ingest *ing, int pid_is_text, struct tdb_str pid, int tid_is_text,
                          struct tdb_str tid);

/* The same for numeric ids (the recorder's and CUPTI's). */
int64_t tdb_ingest_thread_ids(struct tdb_ingest *ing, int64_t pid, int64_t tid);

/* Metadata for a process or thread (M events): field is "process_name", "process_labels",
 * "process_sort_index", "thread_name" or "thread_sort_index". */
int tdb_ingest_thread_meta(struct tdb_ingest *ing, int64_t thread_id, const char *field, struct tdb_str text,
                           int64_t number);

/* The kind id for a category tracedb does not know (created on first use). */
int tdb_ingest_custom_kind(struct tdb_ingest *ing, struct tdb_str cat);

/* A live recording: an id handed out now for an event written later (a range gets its id when it
 * begins, so that what happens inside it can name it as parent before it ends). Any other ingest
 * hands out none (TDB_NULL): its rows are numbered as they come, and the sweep nests them. */
int64_t tdb_ingest_reserve_id(struct tdb_ingest *ing);
/* Whether tdb_ingest_reserve_id gives ids (a live recording). */
int tdb_ingest_reserves_ids(const struct tdb_ingest *ing);

/* Adds one event; returns its id, or -1 on a database error. */
int64_t tdb_ingest_event(struct tdb_ingest *ing, const struct tdb_event *ev);

int tdb_ingest_counter(struct tdb_ingest *ing, int64_t thread_id, struct tdb_str name, int64_t ts_ns, double value);
int tdb_ingest_flow(struct tdb_ingest *ing, int64_t thread_id, int64_t flow_id, struct tdb_str cat, char phase,
                    int64_t ts_ns, int bind_enclosing);
int tdb_ingest_device(struct tdb_ingest *ing, int64_t device_id, struct tdb_str name, struct tdb_str props_json);

/* Ends the current trace: links its GPU work to launches and records its top-level facts. */
int tdb_ingest_end_trace(struct tdb_ingest *ing, const struct tdb_trace_info *info);

/* For a database opened with TDB_OPEN_APPEND whose trace trace_id never ended (a recording killed
 * mid-run): reads its events back into the sweep's keys and ends it as an import would (parents,
 * self time, links, sums, device time). */
int tdb_ingest_resume_trace(struct tdb_ingest *ing, int64_t trace_id, const struct tdb_trace_info *info);

/* Computes nesting, builds indexes and views, writes meta, commits and (for a new database)
 * moves it into place. complete = 0 marks the database as partial in meta. Frees ing. */
int tdb_ingest_finish(struct tdb_ingest *ing, int complete);

/* Gives up: nothing is left behind for a new database; an append is rolled back. Frees ing. */
void tdb_ingest_abort(struct tdb_ingest *ing);

/* Live mode: makes everything queued so far durable and visible to readers. */
int tdb_ingest_commit(struct tdb_ingest *ing);

/* What an importer may hold of its own in memory (bytes, as each sort: TRACEDB_SORT_KIB) before it
 * spills to a temporary file in *dir (beside the database). */
size_t tdb_ingest_spill_budget(const struct tdb_ingest *ing, const char **dir);

/* The database itself, for bulk work done in SQL (merging): waits until every queued row is written.
 * The caller must not leave statements open. */
struct sqlite3 *tdb_ingest_sqlite(struct tdb_ingest *ing);


#endif
