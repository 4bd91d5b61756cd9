/* critical_path.c: `tracedb critical-path`'s pass (see critical_path.h): for each trace (rank), HTA's
 * window, the trace's rows (cp_rows.c, read by cp_read.c), the graph and its longest path (cp_graph.c),
 * and the rows the report prints (temp tables critical_path_sums and critical_path_steps). */
#include "critical_path.h"
#include "cp_graph.h"
#include "cp_rows.h"
#include "kinds.h"
#include "report.h"
#include "sweep_group.h"
#include "time_range.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_START "coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event))"
#define TRACE_THREADS "(SELECT th.id FROM thread th JOIN process p ON p.id = th.process_id WHERE p.trace_id = ?1)"

/* The trace's window [lo, hi], and with --drop-last-step the cutoff: HTA's loader drops the host rows
 * starting at or after the last ProfilerStep's start, and the GPU work they launched, before any
 * analysis (so they count in no queue either). 1 when the trace has it, 0 when it has no instance of the range
 * (*instances says how many it has), -1 on error. */
static int window_of(sqlite3 *db, int64_t trace, const struct cp_window *w, int64_t *lo, int64_t *hi,
                     int64_t *cutoff, size_t *instances, struct report_io *io)
{
    *lo = INT64_MIN, *hi = INT64_MAX, *cutoff = INT64_MAX, *instances = 0;
    sqlite3_stmt *st = NULL;
    if (w->range) {
        size_t n;
        char sql[512];
        snprintf(sql, sizeof sql,
                 "SELECT e.start_ns, e.start_ns + e.dur_ns FROM event e JOIN string n ON n.id = e.name_id "
                 "WHERE e.thread_id IN " TRACE_THREADS " AND e.kind IN (%d, %d, %d) AND (n.value = ?2 OR n.value GLOB ?2) "
                 "ORDER BY e.start_ns, e.id",
                 TDB_KIND_OP, TDB_KIND_RANGE, TDB_KIND_GPU_RANGE);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            goto sql_error;
        sqlite3_bind_int64(st, 1, trace);
        sqlite3_bind_text(st, 2, w->range, -1, SQLITE_STATIC);
        int64_t a = INT64_MAX, b = INT64_MIN;
        int rc;
        for (n = 0; (rc = sqlite3_step(st)) == SQLITE_ROW; n++)
            if (w->first < 0 || (n >= (size_t)w->first && n <= (size_t)w->last)) {
                int64_t s = tdb_time_held(sqlite3_column_int64(st, 0)), e = tdb_time_held(sqlite3_column_int64(st, 1));
                a = s < a ? s : a, b = e > b ? e : b;
            }
        if (rc != SQLITE_DONE)
            goto sql_error;
        sqlite3_finalize(st), st = NULL;
        *instances = n;
        if (a > b)
            return 0;
        *lo = a, *hi = b;
    }
    if (w->has_from || w->has_to) {
        if (sqlite3_prepare_v2(db, "SELECT " TRACE_START, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
            goto sql_error;
        int64_t t0 = tdb_time_held(sqlite3_column_int64(st, 0));
        sqlite3_finalize(st), st = NULL;
        int64_t from = tdb_sat_add(t0, w->from), to = tdb_sat_add(tdb_sat_add(t0, w->to), -1);
        if (w->has_from && from > *lo)
            *lo = from;
        if (w->has_to && to < *hi)
            *hi = to;
    }
    if (w->drop_last_step) {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "SELECT max(e.start_ns), count(DISTINCT n.value) FROM event e JOIN string n ON n.id = e.name_id "
                 "WHERE e.thread_id IN " TRACE_THREADS " AND e.kind = %d AND n.value GLOB 'ProfilerStep#[0-9]*'",
                 TDB_KIND_RANGE);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            goto sql_error;
        sqlite3_bind_int64(st, 1, trace);
        if (sqlite3_step(st) != SQLITE_ROW)
            goto sql_error;
        if (sqlite3_column_int64(st, 1) >= 2)
            *cutoff = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st), st = NULL;
    }
    return 1;
sql_error:
    fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return -1;
}

static const char *const type_names[] = {"operator", "dependency", "launch_delay", "kernel_gap", "sync"};
static const char *const bound_names[] = {"", "cpu", "gpu_compute", "gpu_comm", "launch", "kernel_gap"};

/* Edges go STEPS_A_STATEMENT to an INSERT (one each cost SQLite a statement's run per edge: 2.8 M of them
 * for a 2 M-event trace), the rest one at a time. */
#define STEPS_A_STATEMENT 16
#define STEP_COLUMNS 9

/* Binds edge i of r (its seq is i + 1) as the row whose first parameter is at. */
static void bind_step(sqlite3_stmt *st, int at, sqlite3_value *rank, const struct cp_row *rows, const int64_t *names,
                      const struct cp_result *r, size_t i)
{
    const struct cp_step *s = &r->steps[i];
    sqlite3_bind_value(st, at, rank);
    sqlite3_bind_int64(st, at + 1, (int64_t)i + 1);
    sqlite3_bind_text(st, at + 2, type_names[s->type], -1, SQLITE_STATIC);
    sqlite3_bind_text(st, at + 3, bound_names[s->bound], -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, at + 4, s->weight);
    sqlite3_bind_int64(st, at + 5, s->from_ts);
    sqlite3_bind_int64(st, at + 6, s->to_ts);
    int32_t row = s->event >= 0 ? s->event : s->to_row;
    sqlite3_bind_int64(st, at + 7, rows[row].id);
    if (names[row] != NO_NAME_ID)
        sqlite3_bind_int64(st, at + 8, names[row]);
    else
        sqlite3_bind_null(st, at + 8);
}

/* Where the window's events lie: the first start and the last end of the host rows in it and the GPU work
 * they launched (lo > hi: none). */
struct span {
    int64_t lo, hi;
};

static struct span window_span(const struct cp_row *rows, size_t n)
{
    struct span s = {INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < n; i++)
        if (rows[i].clipped) {
            s.lo = rows[i].ts < s.lo ? rows[i].ts : s.lo;
            s.hi = rows[i].end > s.hi ? rows[i].end : s.hi;
        }
    return s;
}

static int write_path(sqlite3_stmt *sums, sqlite3_stmt *steps, sqlite3_stmt *many, int64_t limit, sqlite3_value *rank,
                      int64_t trace, const struct cp_row *rows, size_t nrows, const int64_t *names, const struct cp_result *r)
{
    struct span sp = window_span(rows, nrows), *span = &sp;
    sqlite3_bind_value(sums, 1, rank);
    sqlite3_bind_int64(sums, 2, trace);
    sqlite3_bind_int64(sums, 3, r->length);
    sqlite3_bind_int64(sums, 4, r->bound_ns[CP_BOUND_CPU]);
    sqlite3_bind_int64(sums, 5, r->bound_ns[CP_BOUND_COMPUTE]);
    sqlite3_bind_int64(sums, 6, r->bound_ns[CP_BOUND_COMM]);
    sqlite3_bind_int64(sums, 7, r->bound_ns[CP_BOUND_LAUNCH]);
    sqlite3_bind_int64(sums, 8, r->bound_ns[CP_BOUND_GAP]);
    if (r->nsteps)
        sqlite3_bind_int64(sums, 9, r->start_ts);
    else
        sqlite3_bind_null(sums, 9);
    sqlite3_bind_int64(sums, 10, (int64_t)r->events);
    sqlite3_bind_int64(sums, 11, (int64_t)r->nsteps);
    sqlite3_bind_int64(sums, 12, (int64_t)r->nodes);
    sqlite3_bind_int64(sums, 13, (int64_t)r->edges);
    if (r->nsteps)
        sqlite3_bind_int64(sums, 14, r->end_ts);
    else
        sqlite3_bind_null(sums, 14);
    if (span->lo <= span->hi)
        sqlite3_bind_int64(sums, 15, span->lo), sqlite3_bind_int64(sums, 16, span->hi);
    else
        sqlite3_bind_null(sums, 15), sqlite3_bind_null(sums, 16);
    int ok = sqlite3_step(sums) == SQLITE_DONE;
    sqlite3_reset(sums);
    size_t n = steps && r->steps ? r->nsteps : 0, i = 0;
    if (limit >= 0 && (uint64_t)limit < n)
        n = (size_t)limit;
    for (; ok && many && i + STEPS_A_STATEMENT <= n; i += STEPS_A_STATEMENT) {
        for (int k = 0; k < STEPS_A_STATEMENT; k++)
            bind_step(many, 1 + k * STEP_COLUMNS, rank, rows, names, r, i + (size_t)k);
        ok = sqlite3_step(many) == SQLITE_DONE;
        sqlite3_reset(many);
    }
    for (; ok && i < n; i++) {
        bind_step(steps, 1, rank, rows, names, r, i);
        ok = sqlite3_step(steps) == SQLITE_DONE;
        sqlite3_reset(steps);
    }
    return ok ? 0 : -1;
}

/* Whether any op, range or GPU range of the database is named name (or matches it as a glob). */
static int names_something(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st;
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT EXISTS (SELECT 1 FROM event e JOIN string n ON n.id = e.name_id WHERE e.kind IN (%d, %d, %d) "
             "AND (n.value = ?1 OR n.value GLOB ?1))",
             TDB_KIND_OP, TDB_KIND_RANGE, TDB_KIND_GPU_RANGE);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int yes = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return yes;
}

/* NAME#k and NAME#a-b pick instances (0-based, in time order) unless the whole text names something
 * itself ('ProfilerStep#3' is a step's own name). *buf holds the name when it was split. */
static void resolve_range(sqlite3 *db, struct cp_window *w, char **buf)
{
    const char *hash = w->range ? strrchr(w->range, '#') : NULL;
    if (!hash || w->first >= 0 || names_something(db, w->range))
        return;
    char *end;
    long long a = strtoll(hash + 1, &end, 10), b = a;
    if (end == hash + 1 || a < 0)
        return;
    if (*end == '-') {
        const char *s = end + 1;
        b = strtoll(s, &end, 10);
        if (end == s || b < a)
            return;
    }
    if (*end || !(*buf = malloc((size_t)(hash - w->range) + 1)))
        return;
    memcpy(*buf, w->range, (size_t)(hash - w->range));
    (*buf)[hash - w->range] = 0;
    w->range = *buf, w->first = a, w->last = b;
}

int critical_path(sqlite3 *db, const char *path, const struct cp_window *given, struct report_io *io)
{
    struct cp_window win = *given, *w = &win;
    char *name = NULL;
    resolve_range(db, w, &name);
    sqlite3_stmt *sums = NULL, *steps = NULL, *many = NULL, *traces = NULL;
    struct id_value *flags = NULL;
    struct id_map flag_of = {0};
    size_t nflags, windows = 0, most = 0;
    int rc = 1;
    if (sweep_table(db,
                    "critical_path_sums (rank, trace_id, path_ns, cpu_ns, gpu_compute_ns, gpu_comm_ns, launch_ns, "
                    "kernel_gap_ns, start_ns, path_events, path_edges, graph_nodes, graph_edges, end_ns, window_lo, "
                    "window_hi)",
                    16, &sums, io) != 0 ||
        cp_row_register(db, io) != 0 ||
        (w->each && sweep_table(db, "critical_path_steps (rank, seq, type, bound, dur_ns, from_ns, to_ns, event_id, name_id)", 9,
                                &steps, io) != 0) ||
        cp_load_flags(db, &flags, &nflags, io) != 0)
        goto done;
    if (steps) { /* and STEPS_A_STATEMENT edges at once (none: one at a time) */
        char sql[64 + STEPS_A_STATEMENT * (2 * STEP_COLUMNS + 3)];
        int o = snprintf(sql, sizeof sql, "INSERT INTO temp.critical_path_steps VALUES ");
        for (int k = 0; k < STEPS_A_STATEMENT; k++)
            for (int c = 0; c < STEP_COLUMNS; c++)
                o += snprintf(sql + o, sizeof sql - (size_t)o, "%s?%s", c ? "," : k ? ",(" : "(", c == STEP_COLUMNS - 1 ? ")" : "");
        if (sqlite3_prepare_v2(db, sql, -1, &many, NULL) != SQLITE_OK)
            many = NULL;
    }
    cp_id_map_init(&flag_of, flags, nflags);
    report_phase("cp: start");
    if (sqlite3_prepare_v2(db, "SELECT id, rank FROM trace ORDER BY rank, id", -1, &traces, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        goto done;
    }
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    int st;
    while ((st = sqlite3_step(traces)) == SQLITE_ROW) {
        int64_t trace = sqlite3_column_int64(traces, 0), lo, hi, cutoff;
        size_t instances;
        int has = window_of(db, trace, w, &lo, &hi, &cutoff, &instances, io);
        if (has < 0)
            goto done;
        most = instances > most ? instances : most;
        if (has == 0)
            continue;
        windows++;
        struct cp_row *rows;
        struct cp_wait *waits = NULL;
        size_t n;
        int64_t *names = NULL;
        if (cp_load_rows(db, trace, &flag_of, lo, hi, cutoff, w->round_us, &rows, &n, &waits, steps ? &names : NULL, io) != 0) {
            free(waits);
            goto done;
        }
        struct cp_result res;
        int built = cp_build(rows, n, waits, w->hta_launch_edges ? CP_LAUNCH_HTA : CP_LAUNCH_EVERY, steps != NULL, &res);
        free(waits);
        if (built != 0) {
            fprintf(io->err, "%s: %s: trace %lld: no critical path: %s\n", io->prog, path, (long long)trace, res.error);
            cp_result_free(&res), free(rows), free(names);
            goto done;
        }
        int wrote =
            res.nodes ? write_path(sums, steps, many, w->each_limit, sqlite3_column_value(traces, 1), trace, rows, n, names, &res) : 0;
        if (w->hta_launch_edges && res.launch_delays < res.gpu_work) {
            const unsigned char *rank = sqlite3_column_text(traces, 1);
            fprintf(io->err,
                    "%s: %s%s%sHTA's rule links %zu of the %zu GPU work items in the window to their launch (those "
                    "whose stream was idle at the launch), so the path cannot run from the host into the others; "
                    "without --hta-launch-edges all of them are linked\n",
                    io->prog, rank ? "rank " : "", rank ? (const char *)rank : "", rank ? ": " : "", res.launch_delays,
                    res.gpu_work);
        }
        cp_result_free(&res), free(rows), free(names);
        report_phase("cp: free");
        if (wrote != 0) {
            fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
            goto done;
        }
    }
    if (st != SQLITE_DONE) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        goto done;
    }
    if (w->range && windows == 0) {
        if (most == 0 && name) /* NAME#k split: say the text as given, and the name it was read as */
            fprintf(io->err, "%s: no range, operator or step named '%s' or '%s' (NAME#k: NAME's k-th instance) in %s\n",
                    io->prog, given->range, w->range, path);
        else if (most == 0)
            fprintf(io->err, "%s: no range, operator or step named '%s' in %s\n", io->prog, w->range, path);
        else
            fprintf(io->err, "%s: '%s' has %zu instance%s in %s (#0 to #%zu): #%lld is not one\n", io->prog, w->range,
                    most, most == 1 ? "" : "s", path, most - 1, (long long)(w->first >= (int64_t)most ? w->first : w->last));
        goto done;
    }
    rc = 0;
done:
    sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    sqlite3_finalize(sums), sqlite3_finalize(steps), sqlite3_finalize(many), sqlite3_finalize(traces);
    cp_id_map_free(&flag_of);
    free(flags), free(name);
    return rc;
}
