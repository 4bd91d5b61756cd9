/* ingest_internal.h: what the store's writer (ingest.c) shares with its end-of-trace parts,
 * ingest_sweep.c (nesting, links, per-name sums) and ingest_checks.c (repeated traces, time bases,
 * anomalies, meta). Internal to recorder/store: not a public header. */
#ifndef TDB_INGEST_INTERNAL_H
#define TDB_INGEST_INTERNAL_H
#include "device_time.h"
#include "ingest.h"
#include "strmap.h"
#include <pthread.h>
#include <sqlite3.h>
#include <time.h>

/* correlation -> ordinal, open addressing; TDB_NULL marks an empty slot */
struct corrmap {
    int64_t *key;
    uint32_t *val;
    size_t cap, count;
};

/* Something the end of the trace attributes to the operators around it. */
enum attrib_what {
    AT_LINK,      /* GPU work that is not device time (sync): linked to its launch only */
    AT_DEVICE,    /* kernel, memcpy, memset: device time of the operator that launched it */
    AT_MEM_CPU,   /* a [memory] event on the host: bytes for the operator around it */
    AT_MEM_DEVICE /* a [memory] event on a device */
};

struct attrib {
    uint32_t ord;  /* the event */
    uint16_t what; /* enum attrib_what */
    uint16_t early; /* the launch was known when the row was written: launch_id is in the row already */
    int64_t key;   /* correlation of the launch (AT_LINK, AT_DEVICE) or bytes (AT_MEM_*) */
};

#define LAUNCH_IN_ROW 0x80000000u /* launch[] flag: the row already holds this launch_id */

/* Running aggregates of one (kind, name, device) in the current trace. */
struct stat_row {
    int64_t kind, name_id, device;
    int64_t calls, total, self, min, max;
    int64_t self_device, device_total;     /* GPU work launched directly / by it or its children */
    int64_t self_cpu_mem, cpu_mem;         /* host bytes allocated (minus freed) directly / in all */
    int64_t self_device_mem, device_mem;   /* device bytes, likewise */
};

struct nest_result;

struct tdb_ingest {
    sqlite3 *db;
    struct row_writer *rows; /* every hot-path row goes through it (a background thread) */
    FILE *err;               /* where errors are reported */
    char *path;              /* the database the user named */
    char *tmp_path;          /* where a new database is built, or NULL for an append */
    int fresh;               /* a database made by this ingest (not an append, not a recording) */
    int borrowed;            /* db is the process's in-memory database: rolled back, never closed */
    struct nest_result *nest_slot; /* what tdb_nest() answers from, during the nesting update */
    int nest_registered;
    int replace;             /* --force: the new database replaces path at the end */
    int64_t anomalies[TDB_ANOMALY_COUNT]; /* counted for meta */
    struct strmap strings;   /* interned names/categories -> string.id */
    struct strmap processes; /* (trace, pid) -> process.id */
    struct strmap threads;   /* (trace, pid, tid) -> thread.id */
    struct strmap kinds;     /* custom category (lower case) -> kind.id */
    char *key;               /* scratch for composite map keys */
    size_t key_cap;
    int64_t next_string, next_process, next_thread, next_event, next_kind;
    int64_t trace_id;          /* current trace */
    int64_t trace_first_event; /* first event id of the current trace */
    int64_t first_event;       /* first event id of this load */
    int64_t events;            /* events added by this load */
    int64_t overlaps;          /* overlaps found by the sweep of the current trace */
    /* per event of the current trace, by ordinal (id - trace_first_event): the sweep's keys */
    uint32_t *key_track;       /* thread id; becomes the parent ordinal + 1 after the sweep */
    int64_t *key_start;        /* start; becomes self time after the sweep */
    int64_t *key_dur;
    uint16_t *key_depth;
    uint32_t *key_stat;        /* index in stats */
    size_t keys_cap;
    struct strmap stat_index;  /* (kind, name, device) -> index in stats */
    struct stat_row *stats;
    size_t nstats, stats_cap;
    int64_t first_ns, last_ns; /* span of the current trace */
    struct corrmap launches;   /* correlation -> ordinal of the runtime/driver call */
    struct device_time devices; /* GPU intervals of the current trace, for device_stats */
    struct attrib *attribs;    /* GPU work and memory events, attributed at the end of the trace */
    size_t nattribs, attribs_cap;
    int timing;                /* TRACEDB_TIMING set: print how long each phase took */
    int live;                  /* TDB_OPEN_LIVE: written in place; nothing per event kept in memory */
    int resuming;              /* inside tdb_ingest_resume_trace */
    pthread_t indexer;         /* a live recording's end: builds the indexes on a second connection ... */
    int indexing, index_rc;    /* ... while this one reads the rows back (ingest.c) */
    int reading_back;          /* keys come from rows written before (no launch_id in them) */
    int64_t *key_id;           /* a read-back trace: the id of each ordinal (ids may have gaps: ranges a
                                * killed recording began and never ended); NULL: id - trace_first_event */
    struct timespec phase_start;
};

/* ingest.c's helpers for its parts */
void ingest_phase(struct tdb_ingest *ing, const char *done); /* with TRACEDB_TIMING: how long it took */
int ingest_fail(struct tdb_ingest *ing, const char *what);   /* prints the database's error; -1 */
int ingest_step(struct tdb_ingest *ing, sqlite3_stmt *st);   /* steps to the end; 0 or -1 (printed) */
int ingest_run(struct tdb_ingest *ing, const char *sql);     /* one statement (through the cache) */
int ingest_sync(struct tdb_ingest *ing);                     /* waits for the row writer */
int64_t corrmap_get(const struct corrmap *m, int64_t key);

/* ingest_sweep.c */
int ingest_nest_and_link(struct tdb_ingest *ing);
int ingest_write_stats(struct tdb_ingest *ing);

/* ingest_checks.c */
int ingest_write_meta(struct tdb_ingest *ing, int complete);

#endif
