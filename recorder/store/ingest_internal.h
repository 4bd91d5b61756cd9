/* ingest_internal.h: what the parts of the store's writer share: ingest.c (the database file: open,
 * finish), ingest_sql.c (statements, errors), ingest_names.c (names, tracks, kinds, devices),
 * ingest_events.c (events taken in), ingest_trace.c (a trace's beginning and end), ingest_sweep.c
 * (nesting, links, per-name sums) and ingest_checks.c (repeated traces, time bases, anomalies, meta).
 * Internal to recorder/store: not a public header. */
#ifndef TDB_INGEST_INTERNAL_H
#define TDB_INGEST_INTERNAL_H
#include "device_time.h"
#include "event_pack.h"
#include "paged.h"
#include "ingest.h"
#include "phase_clock.h"
#include "spill_map.h"
#include "spill_sort.h"
#include "stream_nest.h"
#include "strmap.h"
#include <pthread.h>
#include <sqlite3.h>
#include <time.h>

/* What the end of a trace writes back to a row: one stream ordered by (ord, what), merged from the
 * sweep and the launch links. 24 bytes. */
enum result_what {
    RES_NEST,      /* the sweep's parent (ord + 1), depth and self time (val) */
    RES_LINK       /* GPU work: parent = the ord of its launch (the row holds none, or another), val = its start */
};

struct result_rec {
    uint32_t ord;
    uint16_t what, depth;
    uint32_t parent, pad;
    int64_t val;
};

/* A correlation met in the trace: its launch (a runtime or driver call) or GPU work it launched;
 * sorted by (correlation, what, ord) they pair each piece of work with the first launch. 32 bytes. */
enum corr_what { CORR_LAUNCH, CORR_WORK /* kernels, memcpy, memset */, CORR_LINK /* a sync */ };

struct corr_rec {
    int64_t corr, t; /* a launch: its start (its work's launch_ns); else 0 */
    uint32_t ord, what;
    uint32_t in_row; /* GPU work: the ord + 1 of the launch its row was written with, 0 = none */
    uint32_t pad;
};

/* The most recent launches by correlation (direct-mapped): GPU work that follows its launch closely,
 * as a recording's does, is written with its launch_id and needs no update. */
#define RECENT_LAUNCHES 65536

/* Names found lately, kept by a hash of their length and three of their bytes: most events repeat a
 * few names, found again without hashing the whole name. */
#define STRING_HINTS 256

/* Names (and categories) an ingest keeps in memory for a sort budget of b bytes (32 Ki at 8 MiB; real
 * traces have a few thousand): past them the oldest wait in a temporary table (spill_map.h). */
#define NAMES_IN_MEMORY(b) ((b) / 256 < 4 ? 4 : (b) / 256)

/* Names whose ids index their aggregates directly (name_stats: a directory entry per 16,384 of them). */
#define NAME_STATS_IDS ((int64_t)1 << 28)

/* Bytes of memory each of the end of trace's sorts may hold (then they spill to disk). */
#define SORT_BUDGET (8u << 20)

/* ingest_events.c: the records' orders */
int corr_rec_cmp(const void *a, const void *b);   /* correlation, what, ord */
int ingest_same_name(void *ctx, uint32_t a, uint32_t b); /* aggregates a and b count one name */
int result_rec_cmp(const void *a, const void *b); /* ord, what */

/* Running aggregates of one (kind, name, device) in the current trace. */
struct stat_row {
    int64_t kind, name_id, device;
    int64_t calls, total, self, min, max;
    int device_class;                      /* GPU work: device_time_class() of its kind and name; -1 until asked */
    uint32_t next_same_name;               /* the name's next aggregate: its index + 1, 0 none (stat_find);
                                            * (no padding: the record goes to a file as it is, paged.h) */
    int64_t stream_self;                   /* self time as the rows streamed in (stream_nest.c) */
};

struct tdb_ingest {
    sqlite3 *db;
    struct row_writer *rows; /* every hot-path row goes through it (a background thread) */
    FILE *err;               /* where errors are reported */
    char *path;              /* the database the user named */
    char *tmp_path;          /* where a new database is built, or NULL for an append */
    int fresh;               /* a database made by this ingest (not an append, not a recording) */
    int lent;                /* tdb_ingest_sqlite gave the connection out: rows may come other ways */
    int packing;             /* its event rows go to event_pack too (event_pack.h): a fresh import's file */
    int pack_broken;         /* a row packed changed beyond what event_pack_fix can say: no pack */
    int64_t (*pack_fixes)[2]; /* (id, launch_id) of rows packed that its end linked late */
    size_t npack_fixes, cap_pack_fixes;
    struct tdb_pack_stale pack_stale; /* rows packed whose nesting or launch its end rewrote */
    int borrowed;            /* db is the process's in-memory database: rolled back, never closed */
    int replace;             /* --force: the new database replaces path at the end */
    int64_t anomalies[TDB_ANOMALY_COUNT]; /* counted for meta */
    struct spill_map strings; /* interned names/categories -> string.id (the latest in memory, the rest
                              * in a temporary table: memory does not grow with the names) */
    size_t string_hint[STRING_HINTS]; /* slots in strings' memory where names were found lately (ingest_string) */
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
    int64_t same_name;         /* events inside one of their own name (whatever the kinds), every trace
                                * of this ingest: PyTorch's same-name merge may apply (meta's
                                * ops.same_name_nesting) */
    int64_t traces_nested;     /* traces this ingest nested (each counted in same_name) */
    uint64_t stream_abs;       /* the sum of every stream_self term's size: past INT64_MAX, the sweep sums */
    /* per event of the current trace, in bounded memory (external sorts, spill_sort.h) */
    struct spill_sort *keys;     /* the sweep's keys (struct nesting_key; nesting_held_key when held_keys) */
    int held_keys;               /* a recording's: each key holds what its row was written with, so that the
                                  * end rewrites only the rows that hold other values */
    int keys_in_rows;            /* the trace's keys were not kept as its events came (nested as they streamed
                                  * in, the sweep seldom runs): when it must, ingest_keys_from_rows reads them */
    struct spill_sort *corrs;    /* correlations (struct corr_rec) */
    struct spill_sort *results;  /* rows to rewrite, values to attribute (struct result_rec) */
    int64_t rewrites;            /* of them, rows to rewrite (RES_NEST, RES_LINK) */
    int64_t changed;             /* rows the rewrite changed (TRACEDB_TIMING) */
    size_t sort_budget;          /* bytes of memory per sort (TRACEDB_SORT_KIB) */
    char *sort_dir;              /* where sorts spill: beside the database */
    struct recent_launch {       /* RECENT_LAUNCHES slots: a correlation, the start of its first launch
                                  * seen and that launch's ord (one cache line holds all three); used 0:
                                  * an empty slot (calloc'd: an import touches only the pages it uses) */
        int64_t corr, start;
        uint32_t ord, used;
    } *recent;
    /* the per-name sums grow with the trace's names: their records in pages (paged.h), the latest in
     * memory, the rest in a temporary file; their keys in spill maps */
    struct paged_file sums_file;  /* the pages of stats (and of the sweep's stack) beyond memory */
    struct paged name_stats;      /* per name id below NAME_STATS_IDS (uint32_t): its latest aggregate's
                                   * index + 1, 0 none; the name's others chained (stat_row.next_same_name) */
    struct spill_map stat_index;  /* (kind, name, device) -> index in stats, for names of larger ids (a
                                   * database appended to may hold any) */
    struct paged stats;           /* struct stat_row (stat_at) */
    size_t nstats;
    struct stat_row stat_sink;    /* what stat_at gives once the pages failed (the end of the trace then
                                   * says why: ingest_write_stats) */
    size_t last_stat; /* the stat row of the event being kept (ingest_stat) */
    struct stat_seen {        /* aggregates met lately, by a hash of their key: most events repeat a few */
        int64_t kind, name_id, device;
        size_t index;         /* + 1; 0: empty */
    } stat_seen[64];
    char thread_last[2][48];  /* the last two track keys looked up (tdb_ingest_thread), and their ids */
    size_t thread_last_n[2];  /* 0: none */
    int64_t thread_last_id[2];
    int thread_last_next;     /* the slot the next key found goes to */
    int64_t ids_last[2][4];   /* tdb_ingest_thread_ids' last two tracks: trace, pid, tid, id (id 0: none) */
    int ids_last_next;
    int64_t first_ns, last_ns; /* span of the current trace */
    struct device_time devices; /* GPU intervals of the current trace, for device_stats */
    struct stream_nest *stream; /* an import's rows on their way to the writer, nested as they come */
    /* the event just come, when it has a correlation: the first flow half to come after it, on its track at
     * its start with its correlation for id, goes in its row (event.flow), not a row of its own */
    int carrier;
    int64_t carrier_id, carrier_thread, carrier_start, carrier_corr;
    int live;                  /* TDB_OPEN_LIVE: written in place; keys kept in the external sorts */
    int resuming;              /* ending a recording's trace (tdb_ingest_resume_trace, or a live end) */
    pthread_t indexer;         /* a live recording's end: builds the indexes on a second connection ... */
    int indexing, index_rc;    /* ... while this one nests the rows (ingest.c) */
    int reading_back;          /* keys come from rows read back (no launch_id in them) */
    int read_back;             /* the current trace's rows were read back, or are a recording's (they may
                                * hold nesting already; their ids may have gaps: ranges a killed
                                * recording never ended) */
    int64_t trace_end_event;   /* one past the last id of the current trace */
    struct tdb_phase_clock phases; /* TRACEDB_TIMING: how long each phase took */
};

/* Aggregate i's record: valid until the second call after this one (paged_at). */
static inline struct stat_row *stat_at(struct tdb_ingest *ing, size_t i)
{
    struct stat_row *r = paged_at(&ing->stats, i);
    return r ? r : &ing->stat_sink;
}

/* ingest_sql.c: the connection, for every part */
void ingest_phase(struct tdb_ingest *ing, const char *done); /* with TRACEDB_TIMING: how long it took */
int ingest_fail(struct tdb_ingest *ing, const char *what);   /* prints the database's error; -1 */
int ingest_step(struct tdb_ingest *ing, sqlite3_stmt *st);   /* steps to the end; 0 or -1 (printed) */
int ingest_run(struct tdb_ingest *ing, const char *sql);     /* one statement (through the cache) */
int ingest_exec(struct tdb_ingest *ing, const char *sql);    /* statements (sqlite3_exec); 0 or -1 (printed) */
int ingest_exec_file(struct tdb_ingest *ing, const char *file); /* an embedded SQL file's statements, likewise */
int ingest_sync(struct tdb_ingest *ing);                     /* waits for the row writer */
int ingest_sort_failed(struct tdb_ingest *ing, struct spill_sort *s); /* prints why; -1 */

/* ingest_names.c */
int64_t ingest_string(struct tdb_ingest *ing, struct tdb_str s); /* string.id of s, interned on first sight; -1 */

/* ingest_events.c: what the end of a trace needs of the events */
int ingest_keys_from_rows(struct tdb_ingest *ing); /* the current trace's sweep keys, from its rows: 0 or -1 (printed) */
/* Keeps what the end of the trace needs about event ord (named name_id); the ord of its launch when seen
 * just before (with its start, *launch_ns), -2 otherwise, -1 on error. */
int64_t ingest_keep_keys(struct tdb_ingest *ing, size_t ord, const struct tdb_event *ev, int64_t name_id,
                         int64_t *launch_ns);
int ingest_keep_gpu_time(struct tdb_ingest *ing, size_t ord, const struct tdb_event *ev); /* 0, or -1 (printed) */
/* The event of the current row of st, a scan of event rows (columns: see ingest_events.c). */
void ingest_event_of_row(sqlite3_stmt *st, struct tdb_event *ev);
void ingest_free_keys(struct tdb_ingest *ing); /* the per-trace keys, sorts and sums: after the trace's end, or on abort */

/* ingest_sweep.c */
int ingest_sweep(struct tdb_ingest *ing);      /* the sweep and the launch pairs: no table touched */
int ingest_write_back(struct tdb_ingest *ing); /* ... written back, and attributed */
int ingest_write_stats(struct tdb_ingest *ing);
/* Registers tdb_nest(), the function the nesting update reads its values from (the update passes it its
 * cursor), on a connection the ingest opens: before any statement is prepared on it (registering later
 * would expire them), and once for the in-memory database that outlives each ingest. 0, or -1. */
int ingest_nest_register(sqlite3 *db);

/* ingest_checks.c */
int ingest_write_meta(struct tdb_ingest *ing, int complete);

#endif
