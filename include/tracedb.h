/* tracedb.h: the public C API of libtracedb.
 *
 * Import traces people already have into one SQLite database:
 *     const char *traces[] = {"trace.json.gz"};
 *     int rc = tdb_import("run.db", traces, 1, 0, stderr);
 * The database's tables and views are documented in schema/ and in the README; read it with any
 * SQLite client. (The live recorder API arrives with the recorder.) */
#ifndef TRACEDB_H
#define TRACEDB_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TDB_IMPORT_FORCE 1u    /* replace an existing database (atomically, when done) */
#define TDB_IMPORT_APPEND 2u   /* add to an existing database, in one transaction */
#define TDB_IMPORT_PROGRESS 4u /* a progress line on stderr when it is a terminal */
#define TDB_IMPORT_STRICT 8u    /* anomalies (negative dur, an E with no B, a B never ended) are errors */
#define TDB_IMPORT_DUPLICATE 16u /* --append: allow a trace the database already holds */

/* Imports Chrome trace JSON files (plain or gzip; "-" is standard input) into db_path. A directory
 * stands for the traces in it: its files named *.json or *.json.gz (not hidden, not in subdirectories),
 * sorted by name, as PyTorch's tensorboard_trace_handler writes one per rank and cycle; one with none
 * is an error.
 * Returns 0 when every event was imported; 1 when some input was damaged (every whole event is kept,
 * each problem is described on err with its file and byte offset, and the database's meta says
 * import_status = partial); -1 when nothing could be written (err says why; no file is left behind,
 * an existing database is unchanged). */
int tdb_import(const char *db_path, const char *const *traces, int ntraces, unsigned flags, FILE *err);

/* The same, recording rank first_rank + i for the i-th trace (a directory's each in turn) when the trace
 * itself names no rank (distributedInfo.rank); first_rank < 0 leaves such ranks empty. */
int tdb_import_ranked(const char *db_path, const char *const *traces, int ntraces, unsigned flags, long first_rank,
                      FILE *err);

/* Every import option. */
struct tdb_import_options {
    unsigned flags;    /* TDB_IMPORT_* */
    long first_rank;   /* as tdb_import_ranked; < 0: none */
    size_t max_string; /* the longest string kept, in bytes (0: 64 MiB); an event holding a longer one is
                        * skipped and reported, its neighbours kept */
};
int tdb_import_with(const char *db_path, const char *const *traces, int ntraces, const struct tdb_import_options *opt,
                    FILE *err);

/* Merges tracedb databases (one per rank, say) into a new database at db_path; ranks come from each
 * input's traces, or are the input's position when it has none. Same return values as tdb_import;
 * TDB_IMPORT_FORCE replaces an existing db_path. */
int tdb_merge(const char *db_path, const char *const *inputs, int ninputs, unsigned flags, FILE *err);

/* ---- Recording: events are staged beside the database while the program runs ------------------
 * One recording per process. Setting TRACEDB_OUTPUT=run.db records any program linked with
 * libtracedb with no code change (opened at start, closed at exit). The event functions are cheap
 * (no lock, no allocation, no wait) and do nothing when no recording is open. A writer thread appends
 * them to run.db-stage; a converter thread builds rows from it in the background (readable while
 * recording); closing builds the rest and removes the staging file. */

typedef struct tdb_recording tdb_recording;

struct tdb_options {
    int level;           /* 1: device work only (CUPTI); 2 (default): also host ranges, marks, counters, memory */
    const char *kinds;   /* or exactly these, comma-separated: range, instant, counter, memory */
    /* PyTorch's schedule, in steps (tdb_step, or the end of a range named like ProfilerStep*; TRACEDB_STEP
     * names others where TRACEDB_OUTPUT opens the recording): skip_first, then cycles of wait, warmup and
     * active steps, repeat times (0: forever). Events are kept during active steps only. active = 0: no
     * schedule. */
    int skip_first, wait, warmup, active, repeat;
    void (*on_cycle)(tdb_recording *rec, void *arg); /* after each completed cycle (on_trace_ready) */
    void *on_cycle_arg;
};

/* Starts recording into a new database at path (refused if it exists). NULL on failure (printed).
 * opt may be NULL for the defaults. */
tdb_recording *tdb_open(const char *path, const struct tdb_options *opt);
/* Stops: stages and converts everything recorded, writes the per-name sums and the drop count, removes
 * the staging file and closes. 0 on success (else the staging file is kept for tdb_finish; but a schedule
 * that saw no step and kept nothing writes no database at all, says so, and returns -1).
 * Call it when no other thread is inside a tdb_ call (at the end of the run, or after joining them);
 * threads may record again into a later recording. */
int tdb_close(tdb_recording *rec);
/* The recording open in this process, or NULL. */
tdb_recording *tdb_current(void);

void tdb_range_push(const char *name);  /* a range on this thread, nested in the open ones */
/* ... with args kept as JSON, e.g. "{\"Input Dims\":[[32,128],[128,64]]}" (shapes group in tracedb ops) */
void tdb_range_push_args(const char *name, const char *args_json);
void tdb_range_pop(void);
int64_t tdb_range_start(const char *name); /* a range that may end on another thread */
void tdb_range_end(int64_t id);
void tdb_section(const char *label);    /* a labelled section ("warm up"), ended by tdb_section_end */
void tdb_section_end(void);
void tdb_instant(const char *name);     /* a mark */
void tdb_counter(const char *name, double value);
void tdb_mem_alloc(const void *addr, size_t bytes, int device); /* device -1: host memory */
void tdb_mem_free(const void *addr, size_t bytes, int device);
void tdb_step(void);                    /* a training/inference step boundary: ProfilerStep#N */
int tdb_flush(void);                    /* stage, convert and commit now (the converter commits every 100 ms) */
int64_t tdb_dropped(void);              /* events dropped so far: a ring was full (its writer stalled) */

/* A range for the rest of the enclosing block (GCC/Clang): TDB_SCOPE("forward"); */
static inline void tdb_scope_end_(int *unused)
{
    (void)unused;
    tdb_range_pop();
}
#define TDB_CAT2_(a, b) a##b
#define TDB_CAT_(a, b) TDB_CAT2_(a, b)
#define TDB_SCOPE(name)                                                                                      \
    __attribute__((cleanup(tdb_scope_end_), unused)) int TDB_CAT_(tdb_scope_, __LINE__) = (tdb_range_push(name), 0)

/* Completes a recording whose program was killed before tdb_close: builds db_path again from the
 * staging file beside it (db_path + "-stage"), every event staged before the crash, and removes it;
 * without one (an older recording, a killed import), gives its committed events parents, self time,
 * launch links and sums. The trace is then marked partial. 0 on success. */
int tdb_finish(const char *db_path, FILE *err);

/* Runs one tracedb command in this process, as the tracedb program does (libtracedb.so): argv[0] is the
 * command ("summary", "diff", "report", "sql", ...; "record" excepted: it runs a program), then its
 * arguments. What it prints goes to out_fd, its messages to err_fd. Returns its exit status: 0 done,
 * 1 failed (err_fd says why), 2 a usage error, 3 diff's gate failed. Commands run one at a time in a
 * process: a call from another thread waits. */
int tdb_run(int argc, const char *const *argv, int out_fd, int err_fd);

/* The library's version, e.g. "0.1.0". */
const char *tdb_version(void);

#ifdef __cplusplus
}
#endif
#endif
