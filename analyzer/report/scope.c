/* scope.c: shared report options and the event window (see scope.h). A window is a set of
 * [start, end) intervals in temp table scope_window; the temp view scope_event keeps the events
 * that start inside one of them. Without a window, scope_event is every event. scope_reopen gives a C
 * pass a second connection with the same temp objects, to read half the events on another thread. */
#include "scope.h"
#include "kinds.h"
#include "render.h"
#include "report.h"
#include "shards.h"
#include "db_guard.h"
#include "hta_round.h"
#include "sqlfuncs.h"
#include <stdlib.h>
#include <string.h>

/* Where the trace starts: the import's first_ns, or for a recording not closed, its first event. */
/* the trace's start: its first timestamp, else its first event's; 0 when it has none (a recording killed
 * before its first commit, an empty trace: the window then holds nothing, not a NULL bound) */
#define TRACE_START "coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event), 0)"

void scope_init(struct scope *s, const char *default_sort)
{
    memset(s, 0, sizeof *s);
    s->format = FMT_TABLE;
    s->limit = -1;
    s->sort = default_sort;
}

int scope_parse_duration(const char *text, int64_t *ns)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text)
        return -1;
    double scale = 1;
    if (*end == 0 || strcmp(end, "ns") == 0)
        scale = 1;
    else if (strcmp(end, "us") == 0)
        scale = 1e3;
    else if (strcmp(end, "ms") == 0)
        scale = 1e6;
    else if (strcmp(end, "s") == 0)
        scale = 1e9;
    else
        return -1;
    double r = v * scale;
    if (r < -9e18 || r > 9e18)
        return -1;
    *ns = (int64_t)(r + (r < 0 ? -0.5 : 0.5));
    return 0;
}

static int scope_exec(sqlite3 *db, const char *sql, struct report_io *io)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, msg ? msg : "SQL error");
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* scope_exec of a statement made by sqlite3_mprintf (NULL: out of memory), which it frees. */
static int scope_view(sqlite3 *db, char *sql, struct report_io *io)
{
    int rc = sql ? scope_exec(db, sql, io) : -1;
    if (!sql)
        fprintf(io->err, "%s: out of memory\n", io->prog);
    sqlite3_free(sql);
    return rc;
}

/* The sums (event_stats) hold a row for every kind the events have, so they alone tell; the events are
 * searched only in a recording not closed, which has no sums yet (on a trace with no memory events that
 * search read all of them: 0.2-0.38 s for every report on 2 M events; CASE stops at the first answer,
 * where OR evaluated both sides). */
void scope_hide_absent(sqlite3 *db, struct scope *s)
{
    char *hide = s->hide_absent;
    sqlite3_stmt *facts;
    hide[0] = 0;
    if (sqlite3_prepare_v2(db,
                           "WITH rec(yes) AS (SELECT EXISTS (SELECT 1 FROM meta WHERE key = 'import_status' AND value = 'recording')) "
                           "SELECT CASE WHEN EXISTS (SELECT 1 FROM event_stats WHERE kind IN (SELECT id FROM kind WHERE name IN "
                           "('kernel', 'memcpy', 'memset'))) THEN 1 WHEN (SELECT yes FROM rec) THEN EXISTS (SELECT 1 FROM event "
                           "WHERE kind IN (SELECT id FROM kind WHERE name IN ('kernel', 'memcpy', 'memset'))) ELSE 0 END, "
                           "CASE WHEN EXISTS (SELECT 1 FROM event_stats WHERE kind = (SELECT id FROM kind WHERE name = 'memory')) "
                           "THEN 1 WHEN (SELECT yes FROM rec) THEN EXISTS (SELECT 1 FROM event WHERE kind = (SELECT id FROM kind "
                           "WHERE name = 'memory')) ELSE 0 END",
                           -1, &facts, NULL) == SQLITE_OK &&
        sqlite3_step(facts) == SQLITE_ROW)
        snprintf(hide, sizeof s->hide_absent, "%s%s", sqlite3_column_int(facts, 0) ? "" : "device,",
                 sqlite3_column_int(facts, 1) ? "" : "mem");
    sqlite3_finalize(facts);
    s->hide = hide;
}

void scope_tables(struct scope *s, const char *hint)
{
    s->table = (struct render_options){.report = 1, .hide = s->hide, .wide = s->wide, .columns = s->columns,
                                       .empty_hint = hint, .first_name = s->by_step ? "step" : NULL,
                                       .wide_only = s->wide_only, .pytorch_bytes = s->pytorch_bytes};
}

/* GPU work: the kinds HTA's window keeps by their launch, not their own start. */
#define SCOPE_GPU_KINDS "(7, 8, 9, 10, 3)" /* kernel, memcpy, memset, sync, gpu_range (util/kinds.h) */
/* scope_gpu: GPU work with its launch's start (the row's launch_ns), duration and name, joined once (up
 * to its WHERE); a query that reads only the start does not join (SQLite leaves an unused LEFT JOIN on a
 * key out). A database made before event.launch_ns gets the start from the join, as a column of that
 * name; scope_event from a lookup. */
#define SCOPE_GPU_VIEW                                                                                        \
    "CREATE TEMP VIEW scope_gpu AS SELECT %s, %s AS launch_dur_ns, "                                         \
    "la.name_id AS launch_name_id FROM main.event e LEFT JOIN main.event la ON la.id = e.launch_id"
#define SCOPE_GPU_VIEW_OLD                                                                                    \
    "CREATE TEMP VIEW scope_gpu AS SELECT %s, %s AS launch_ns, %s AS launch_dur_ns, "                        \
    "la.name_id AS launch_name_id FROM main.event e LEFT JOIN main.event la ON la.id = e.launch_id"
#define SCOPE_LAUNCH_LOOKUP "(SELECT a.start_ns FROM main.event a WHERE a.id = e.launch_id)"

/* --hta-rounding: a time column of the views as HTA's parser makes it (hta_round.c), else as it is */
#define HTA_START(round, x) ((round) ? "hta_start(" x ")" : x)
#define HTA_DUR(round, a) ((round) ? "hta_end(" a ".start_ns, " a ".dur_ns) - hta_start(" a ".start_ns)" : a ".dur_ns")

/* The event table's columns as the views give them (sqlite3_free): e.* as they are; with round, every
 * column named, the start, duration and launch start as HTA's parser rounds them. NULL on error. */
static char *scope_event_columns(sqlite3 *db, int round)
{
    if (!round)
        return sqlite3_mprintf("e.*");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT * FROM main.event LIMIT 0", -1, &st, NULL) != SQLITE_OK)
        return NULL;
    char *cols = sqlite3_mprintf("%s", "");
    for (int c = 0; cols && c < sqlite3_column_count(st); c++) {
        const char *name = sqlite3_column_name(st, c), *sep = c ? ", " : "";
        if (strcmp(name, "start_ns") == 0)
            cols = sqlite3_mprintf("%z%shta_start(e.start_ns) AS start_ns", cols, sep);
        else if (strcmp(name, "dur_ns") == 0)
            cols = sqlite3_mprintf("%z%shta_end(e.start_ns, e.dur_ns) - hta_start(e.start_ns) AS dur_ns", cols, sep);
        else if (strcmp(name, "launch_ns") == 0)
            cols = sqlite3_mprintf("%z%shta_start(e.launch_ns) AS launch_ns", cols, sep);
        else
            cols = sqlite3_mprintf("%z%se.\"%w\"", cols, sep, name);
    }
    sqlite3_finalize(st);
    return cols;
}

/* Whether the database's events hold launch_ns (every database tracedb writes now; see schema.sql). */
static int scope_has_launch_ns(sqlite3 *db)
{
    return tdb_db_compiles(db, "SELECT launch_ns FROM main.event LIMIT 0");
}
_Static_assert(TDB_KIND_KERNEL == 7 && TDB_KIND_MEMCPY == 8 && TDB_KIND_MEMSET == 9 && TDB_KIND_SYNC == 10 &&
                   TDB_KIND_GPU_RANGE == 3 && TDB_KIND_RANGE == 2,
               "SCOPE_GPU_KINDS and scope_last_step name kinds by number");

/* How the tracks hold their traces (temp table scope_trace_threads): TRACKS_ONE_TRACE (one trace, or
 * none), TRACKS_IN_RUNS (several, each trace's tracks numbered without a gap and apart from the others':
 * an import's, a merge's; a track's trace is then a range of track ids), TRACKS_MIXED (a stranger's
 * database), or -1 (SQLite's error said). */
enum { TRACKS_ONE_TRACE, TRACKS_IN_RUNS, TRACKS_MIXED };
static int scope_tracks_of_traces(sqlite3 *db, struct report_io *io)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*) <= 1, sum(hi - lo + 1 = n) = count(*) AND NOT EXISTS (SELECT 1 FROM "
                           "scope_trace_threads a JOIN scope_trace_threads b ON a.trace_id < b.trace_id AND a.lo <= b.hi "
                           "AND b.lo <= a.hi) FROM scope_trace_threads",
                           -1, &st, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return -1;
    }
    int how = sqlite3_step(st) != SQLITE_ROW ? -1
              : sqlite3_column_int(st, 0) ? TRACKS_ONE_TRACE
              : sqlite3_column_int(st, 1) ? TRACKS_IN_RUNS
                                          : TRACKS_MIXED;
    if (how < 0)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return how;
}

/* --drop-last-step: temp table scope_last (thread_id, last_start): for each track of a trace holding
 * two ProfilerStep#N names or more, when its last ProfilerStep starts. */
static int scope_last_step(sqlite3 *db, const struct scope *s, struct report_io *io)
{
    if (!s->drop_last_step)
        return 0;
    return scope_exec(db,
                      "CREATE TEMP TABLE scope_last AS "
                      "WITH last AS (SELECT p.trace_id, max(e.start_ns) AS last_start FROM main.event e "
                      "  JOIN main.string n ON n.id = e.name_id JOIN main.thread t ON t.id = e.thread_id "
                      "  JOIN main.process p ON p.id = t.process_id "
                      "  WHERE e.kind = 2 AND n.value GLOB 'ProfilerStep#[0-9]*' "
                      "  GROUP BY p.trace_id HAVING count(DISTINCT n.value) >= 2) "
                      "SELECT t.id AS thread_id, l.last_start FROM main.thread t JOIN main.process p ON p.id = t.process_id "
                      "JOIN last l ON l.trace_id = p.trace_id",
                      io);
}

/* What scope_last holds: 0 no track (nothing to drop), 1 every track with the same last start (*one),
 * 2 anything else (the view joins it); -1 on error. */
static int scope_last_shape(sqlite3 *db, int64_t *one)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT count(*), count(DISTINCT last_start), min(last_start), "
                               "(SELECT count(*) FROM main.thread) FROM temp.scope_last", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int how = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        int64_t rows = sqlite3_column_int64(st, 0), distinct = sqlite3_column_int64(st, 1);
        int64_t threads = sqlite3_column_int64(st, 3);
        *one = sqlite3_column_int64(st, 2);
        how = rows == 0 ? 0 : rows == threads && distinct == 1 && sqlite3_column_type(st, 2) == SQLITE_INTEGER ? 1 : 2;
    }
    sqlite3_finalize(st);
    return how;
}

/* A shard directory (tracedb-mpi import) as one database, for the reports that read only sums. */
static sqlite3 *scope_shards(const char *path, const struct scope *s, struct report_io *io)
{
    if (!s->shards_ok) {
        fprintf(io->err, "%s: %s is a directory of shards: this report does not read shards in this form yet; "
                         "`tracedb merge %s/shard-*.db -o one.db` makes one database\n",
                io->prog, path, path);
        return NULL;
    }
    if (s->from || s->to || s->range || s->by_step || (s->drop_last_step && !s->shards_last_step)) {
        fprintf(io->err, "%s: %s is a directory of shards: windows (--from, --to, --range, --by-step; --drop-last-step "
                         "but for HTA's analyses, kernels, memops and device) over shards are not built yet\n",
                io->prog, path);
        return NULL;
    }
    /* HTA's window keeps GPU work by its launch call: those come at SHARDS_HOST */
    int level = s->drop_last_step && s->shards_ok < SHARDS_HOST ? SHARDS_HOST : s->shards_ok;
    return shards_open(path, 0, -1, (enum shards_level)level, s->shards_each, io);
}

sqlite3 *scope_open(const char *path, struct scope *s, struct report_io *io)
{
    int64_t from = 0, to = 0;
    scope_tables(s, s->from || s->to || s->range ? "no events in this window" : NULL);
    if (s->from && scope_parse_duration(s->from, &from) != 0) {
        fprintf(io->err, "%s: --from wants a duration such as 250us or 1.5ms, not '%s'\n", io->prog, s->from);
        return NULL;
    }
    if (s->to && scope_parse_duration(s->to, &to) != 0) {
        fprintf(io->err, "%s: --to wants a duration such as 250us or 1.5ms, not '%s'\n", io->prog, s->to);
        return NULL;
    }
    if (s->from && s->to && from >= to) {
        fprintf(io->err, "%s: the window is empty: --from %s is not before --to %s\n", io->prog, s->from, s->to);
        return NULL;
    }
    sqlite3 *db = shards_is_dir(path) ? scope_shards(path, s, io) : report_open(path, 0, io);
    if (!db)
        return NULL;
    /* a recording not closed has no sums yet: every report reads its events, through the window */
    int recording = report_is_recording(db, path, s->quiet ? NULL : io);
    s->filtered = s->from || s->to || s->range || recording || s->drop_last_step;
    int has = scope_has_launch_ns(db); /* else scope_event looks the start up, scope_gpu joins it */
    int round = s->hta_rounding;
    char *cols = scope_event_columns(db, round), *gpu_view = NULL;
    const char *event_cols = has ? "" : round ? ", hta_start(" SCOPE_LAUNCH_LOOKUP ") AS launch_ns" : ", " SCOPE_LAUNCH_LOOKUP " AS launch_ns";
    if (cols)
        gpu_view = has ? sqlite3_mprintf(SCOPE_GPU_VIEW, cols, HTA_DUR(round, "la"))
                       : sqlite3_mprintf(SCOPE_GPU_VIEW_OLD, cols, HTA_START(round, "la.start_ns"), HTA_DUR(round, "la"));
    if (!gpu_view) {
        fprintf(io->err, "%s: %s\n", io->prog, cols ? "out of memory" : sqlite3_errmsg(db));
        goto fail;
    }
    /* a window's trace: a range's own (in a database of several traces each keeps its own ranges' events),
     * and the first and last of its tracks' ids; NULL, every trace (--from/--to) */
    if (scope_exec(db, "CREATE TEMP TABLE scope_window (start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, trace_id INTEGER, "
                       "thread_lo INTEGER, thread_hi INTEGER)",
                   io) != 0)
        goto fail;
    /* each track's rank, looked up by queries/parts/rank_of_event.sql (one key lookup a row, not three joins),
     * and its trace; each trace's tracks (scope_tracks_of_traces) */
    if (scope_exec(db, "CREATE TEMP TABLE scope_rank (thread_id INTEGER PRIMARY KEY, rank, trace_id); "
                       "INSERT INTO scope_rank SELECT th.id, t.rank, t.id FROM main.thread th JOIN main.process pr ON pr.id = th.process_id "
                       "JOIN main.trace t ON t.id = pr.trace_id; "
                       "CREATE TEMP TABLE scope_trace_threads (trace_id INTEGER PRIMARY KEY, lo, hi, n); "
                       "INSERT INTO scope_trace_threads SELECT trace_id, min(thread_id), max(thread_id), count(*) FROM scope_rank "
                       "GROUP BY trace_id",
                   io) != 0)
        goto fail;
    /* the steps, for --by-step: an event belongs to the step its start (a GPU op's: its launch's) falls in.
     * Each event looks its step up by start (step_index.h), each output row its step's start
     * by name: both indexed (a scan of every step for each of 2 M events took minutes). The ranges are
     * found by index event_ranges, whose rows are those of `kind = <range's id>`: the id must be written
     * as that constant for the planner to use it (a subquery for it scanned 2 M events: 0.17-0.37 s). */
    char steps[320];
    snprintf(steps, sizeof steps,
             "INSERT INTO scope_steps SELECT n.value, e.start_ns, e.start_ns + e.dur_ns FROM event e "
             "JOIN string n ON n.id = e.name_id WHERE e.kind = %d AND n.value GLOB 'ProfilerStep#[0-9]*' "
             "ORDER BY e.start_ns",
             TDB_KIND_RANGE);
    if (scope_exec(db, "CREATE TEMP TABLE scope_steps (name TEXT, start_ns INTEGER, end_ns INTEGER)", io) != 0 ||
        (s->by_step && scope_exec(db, steps, io) != 0) ||
        (s->by_step && scope_exec(db, "CREATE INDEX temp.scope_steps_start ON scope_steps(start_ns); "
                                      "CREATE INDEX temp.scope_steps_name ON scope_steps(name, start_ns)", io) != 0))
        goto fail;
    if (s->filtered) {
        sqlite3_stmt *st;
        /* time bounds relative to the first event; a range narrows them to each of its instances */
        const char *sql =
            s->range ? "INSERT INTO scope_window SELECT x.s, x.e, x.tr, t.lo, t.hi FROM "
                       "(SELECT max(e.start_ns, b.lo) AS s, min(e.start_ns + e.dur_ns, b.hi) AS e, "
                       "        (SELECT trace_id FROM scope_rank r WHERE r.thread_id = e.thread_id) AS tr "
                       " FROM event e JOIN string n ON n.id = e.name_id, "
                       " (SELECT " TRACE_START " + ?1 AS lo, "
                       "         CASE WHEN ?2 THEN " TRACE_START " + ?3 ELSE 9223372036854775807 END AS hi) b "
                       " WHERE e.kind IN (?5, ?6, ?7) AND (n.value = ?4 OR n.value GLOB ?4)) x "
                       "LEFT JOIN scope_trace_threads t ON t.trace_id = x.tr"
                     : "INSERT INTO scope_window SELECT " TRACE_START " + ?1, "
                       "CASE WHEN ?2 THEN " TRACE_START " + ?3 ELSE 9223372036854775807 END, NULL, NULL, NULL";
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
            fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
            goto fail;
        }
        sqlite3_bind_int64(st, 1, s->from ? from : (int64_t)-4611686018427387904LL);
        sqlite3_bind_int(st, 2, s->to != NULL);
        sqlite3_bind_int64(st, 3, to);
        if (s->range) { /* a range, an operator or a step */
            sqlite3_bind_text(st, 4, s->range, -1, SQLITE_STATIC);
            sqlite3_bind_int(st, 5, TDB_KIND_OP);
            sqlite3_bind_int(st, 6, TDB_KIND_RANGE);
            sqlite3_bind_int(st, 7, TDB_KIND_GPU_RANGE);
        }
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE) {
            fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
            goto fail;
        }
        if (s->range && sqlite3_changes(db) == 0) {
            fprintf(io->err, "%s: no range, operator or step named '%s' in %s\n", io->prog, s->range, path);
            goto fail;
        }
        /* the outer bounds first (two constants), then the windows themselves: one window is the
         * bounds (its test on each of 2 M rows cost 0.1-0.3 s) */
        int several = sqlite3_changes(db) > 1;
        /* ranges of a database of several traces: each event inside one of its own trace's (a rank's
         * ProfilerStep#551 keeps that rank's events, not another's that started in it) */
        int own_trace = s->range ? scope_tracks_of_traces(db, io) : TRACKS_ONE_TRACE;
        if (own_trace < 0)
            goto fail;
        if (scope_last_step(db, s, io) != 0)
            goto fail;
        char join[96] = "", last[512] = "", gpu_last[256] = "";
        if (s->drop_last_step) {
            /* every track's last step starting at one time (one trace: nearly always) is a constant
             * in the test, not a join on each of 2 M rows (0.15 s); no track with one keeps all */
            int64_t one = 0;
            int how = scope_last_shape(db, &one);
            if (how < 0)
                goto fail;
            /* (with HTA's rounding, the times compared are rounded as HTA compares them) */
            const char *at = HTA_START(round, "l.last_start");
            char value[32];
            if (how == 1) {
                snprintf(value, sizeof value, "%lld", (long long)(round ? tdb_hta_start(one) : one));
                at = value;
            }
            if (how == 2)
                snprintf(join, sizeof join, " LEFT JOIN scope_last l ON l.thread_id = e.thread_id");
            if (how != 0)
                snprintf(last, sizeof last,
                         " AND (%s OR CASE WHEN e.kind IN " SCOPE_GPU_KINDS " THEN %s < %s ELSE %s < %s END)",
                         how == 2 ? "l.last_start IS NULL" : "0",
                         has ? HTA_START(round, "e.launch_ns") : HTA_START(round, SCOPE_LAUNCH_LOOKUP), at,
                         HTA_START(round, "e.start_ns"), at);
            if (how != 0) /* the same test in scope_gpu, its launch joined once */
                snprintf(gpu_last, sizeof gpu_last, " AND (%s OR %s < %s)", how == 2 ? "l.last_start IS NULL" : "0",
                         has ? HTA_START(round, "e.launch_ns") : HTA_START(round, "la.start_ns"), at);
        }
        char window[512]; /* the window's test, the same in both views; an event's trace by its track's id
                           * where each trace's tracks are a run of ids (a lookup a row cost 0.3 us more) */
        snprintf(window, sizeof window,
                 "e.start_ns >= (SELECT min(start_ns) FROM scope_window) "
                 "AND e.start_ns < (SELECT max(end_ns) FROM scope_window)%s",
                 own_trace == TRACKS_IN_RUNS ? " AND EXISTS (SELECT 1 FROM scope_window w WHERE e.start_ns >= w.start_ns "
                                               "AND e.start_ns < w.end_ns AND e.thread_id BETWEEN w.thread_lo AND w.thread_hi)"
                 : own_trace == TRACKS_MIXED ? " AND EXISTS (SELECT 1 FROM scope_window w WHERE e.start_ns >= w.start_ns "
                                               "AND e.start_ns < w.end_ns AND w.trace_id IS (SELECT trace_id FROM scope_rank r "
                                               "WHERE r.thread_id = e.thread_id))"
                 : several ? " AND EXISTS (SELECT 1 FROM scope_window w WHERE e.start_ns >= w.start_ns AND e.start_ns < w.end_ns)"
                           : "");
        if (scope_view(db, sqlite3_mprintf("CREATE TEMP VIEW scope_event AS SELECT %s%s FROM main.event e%s WHERE %s%s", cols,
                                           event_cols, join, window, last), io) != 0 ||
            scope_view(db, sqlite3_mprintf("%s%s WHERE e.kind IN " SCOPE_GPU_KINDS " AND %s%s", gpu_view, join, window, gpu_last),
                       io) != 0)
            goto fail;
    } else {
        if (scope_view(db, sqlite3_mprintf("CREATE TEMP VIEW scope_event AS SELECT %s%s FROM main.event e", cols, event_cols), io) != 0 ||
            scope_view(db, sqlite3_mprintf("%s WHERE e.kind IN " SCOPE_GPU_KINDS, gpu_view), io) != 0)
            goto fail;
    }
    sqlite3_free(cols), sqlite3_free(gpu_view);
    return db;
fail:
    sqlite3_free(cols), sqlite3_free(gpu_view);
    sqlite3_close(db);
    return NULL;
}

/* Copies the rows of temp table `name` from db to db2. 0, or -1. */
static int scope_copy_rows(sqlite3 *db, sqlite3 *db2, const char *name)
{
    char *from = sqlite3_mprintf("SELECT * FROM temp.\"%w\"", name);
    sqlite3_stmt *get = NULL, *put = NULL;
    int rc = from && sqlite3_prepare_v2(db, from, -1, &get, NULL) == SQLITE_OK ? 0 : -1;
    sqlite3_free(from);
    int n = rc == 0 ? sqlite3_column_count(get) : 0;
    char *into = rc == 0 ? sqlite3_mprintf("INSERT INTO temp.\"%w\" VALUES (?", name) : NULL;
    for (int c = 1; into && c <= n; c++) /* a parameter a column, then the parenthesis */
        into = sqlite3_mprintf(c < n ? "%z, ?" : "%z)", into);
    if (rc == 0 && (!into || sqlite3_prepare_v2(db2, into, -1, &put, NULL) != SQLITE_OK))
        rc = -1;
    sqlite3_free(into);
    while (rc == 0 && sqlite3_step(get) == SQLITE_ROW) {
        for (int c = 0; c < n; c++)
            sqlite3_bind_value(put, c + 1, sqlite3_column_value(get, c));
        rc = sqlite3_step(put) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(put);
    }
    sqlite3_finalize(put);
    if (sqlite3_finalize(get) != SQLITE_OK)
        rc = -1;
    return rc;
}

sqlite3 *scope_reopen(sqlite3 *db)
{
    const char *file = sqlite3_db_filename(db, "main");
    sqlite3 *db2 = NULL;
    if (!file || !*file || tdb_db_open(file, SQLITE_OPEN_READONLY, &db2) != SQLITE_OK || tdb_register_functions(db2) != 0) {
        sqlite3_close(db2);
        return NULL;
    }
    sqlite3_busy_timeout(db2, 5000);
    /* temp.sqlite_master keeps each object's CREATE without its TEMP: put it back (an index goes where
     * its table is); tables first, in the order they were made, so that views and indexes find them */
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT type, name, sql FROM temp.sqlite_master WHERE sql IS NOT NULL "
                                    "ORDER BY type <> 'table', rowid", -1, &st, NULL) == SQLITE_OK ? 0 : -1;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(st, 0), *name = (const char *)sqlite3_column_text(st, 1);
        const char *sql = (const char *)sqlite3_column_text(st, 2);
        if (!type || !name || !sql)
            continue;
        int table = strcmp(type, "table") == 0, view = strcmp(type, "view") == 0;
        const char *head = table ? "CREATE TABLE " : view ? "CREATE VIEW " : NULL;
        char *create = NULL;
        if (head && strncmp(sql, head, strlen(head)) == 0)
            create = sqlite3_mprintf("CREATE TEMP %s %s", table ? "TABLE" : "VIEW", sql + strlen(head));
        else if (!head)
            create = sqlite3_mprintf("%s", sql);
        rc = create && sqlite3_exec(db2, create, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
        sqlite3_free(create);
        if (rc == 0 && table)
            rc = scope_copy_rows(db, db2, name);
    }
    sqlite3_finalize(st);
    if (rc != 0) {
        sqlite3_close(db2);
        return NULL;
    }
    return db2;
}

const char *scope_sort_column(const struct scope *s, const char *const *keys, struct report_io *io)
{
    for (size_t i = 0; keys[i]; i += 2)
        if (strcmp(s->sort, keys[i]) == 0)
            return keys[i + 1];
    fprintf(io->err, "%s: unknown --sort key '%s' (one of:", io->prog, s->sort);
    for (size_t i = 0; keys[i]; i += 2)
        fprintf(io->err, " %s", keys[i]);
    fprintf(io->err, ")\n");
    return NULL;
}

void scope_bind(sqlite3_stmt *st, struct scope *s, const char *sort_column)
{
    report_bind_int(st, ":limit", s->limit < 0 ? -1 : s->limit);
    if (sort_column)
        report_bind_text(st, ":sort", sort_column);
    s->table.keep = sort_column; /* a table never leaves out the column it is sorted by */
    report_bind_int(st, ":by_rank", s->by_rank);
    report_bind_int(st, ":by_step", s->by_step);
    report_bind_int(st, ":hta_rounding", s->hta_rounding);
}

int scope_render(sqlite3_stmt *st, const struct scope *s, struct report_io *io)
{
    int first = s->by_rank || s->by_step ? 0 : 1;
    if (io->sink) /* the rows the format would print, to a table function */
        return render_to_sink(st, first, &s->table, io->sink, io->err) < 0 ? -1 : 0;
    return render_query_from(st, s->format, first, &s->table, io->out, io->err) < 0 ? -1 : 0;
}

int scope_run(sqlite3 *db, const char *query, struct scope *s, const char *sort_column,
              const struct scope_param *params, struct report_io *io)
{
    sqlite3_stmt *st = report_prepare(db, query, io);
    if (!st)
        return 1;
    scope_bind(st, s, sort_column);
    for (const struct scope_param *p = params; p && p->name; p++) {
        if (p->text)
            report_bind_text(st, p->name, p->text);
        else
            report_bind_int(st, p->name, p->value);
    }
    int rc = scope_render(st, s, io) != 0;
    sqlite3_finalize(st);
    return rc;
}
