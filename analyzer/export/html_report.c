/* html_report.c: `tracedb report`: one self-contained HTML page (analyzer/export/report.html, embedded
 * in the binary) with the data it draws put in as one JSON object. The tables and charts show what the
 * reports print, because they are the reports: ops, kernels, latency, device and memory run here with
 * --format json into memory, as the commands run them; and with a baseline, the diff's sections and the
 * gate's verdict and the baseline's own timeline, steps and device time. Two things are computed for
 * the page alone, aggregated so that a million-event trace stays small: the timeline (html_timeline.c)
 * and the memory series here (per device, the highest allocated bytes in each bin). The page's script
 * is report.html's with its parts (report_*.js) pasted where their markers stand. */
#define _GNU_SOURCE
#include "html_report.h"
#include "html_timeline.h"
#include "device_sweep.h"
#include "memory_sweep.h"
#include "idle_sweep.h"
#include "type_sweep.h"
#include "launch_sweep.h"
#include "kernel_sweep.h"
#include "ops_sweep.h"
#include "diff_gate.h"
#include "embedded.h"
#include "jsonbuf.h"
#include "kinds.h"
#include "render.h"
#include "report.h"
#include "scope.h"
#include "time_range.h"
#include "version.h"
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TIMELINE_BINS 1200
#define TABLE_ROWS 500 /* operator and kernel rows in the page (the charts show the top 20) */

/* Runs queries/NAME.sql as `tracedb NAME --format json` would and appends its JSON array to out. */
static int capture(sqlite3 *db, const char *query, struct scope *sc, const char *sort, const struct scope_param *params,
                   struct buf *out, struct report_io *io)
{
    char *text = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&text, &n);
    if (!mem)
        return 1;
    struct report_io to = {mem, io->err, io->prog, NULL, NULL, io->opened}; /* (takes nothing handed over) */
    int rc = scope_run(db, query, sc, sort, params, &to);
    fclose(mem);
    if (rc == 0)
        buf_add(out, text, n);
    free(text);
    return rc;
}

/* The same for a prepared statement of the diff (its rank column left out). */
static int capture_stmt(sqlite3_stmt *st, struct buf *out, struct report_io *io)
{
    char *text = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&text, &n);
    if (!mem)
        return 1;
    int rc = render_query_from(st, FMT_JSON, 1, NULL, mem, io->err) < 0;
    fclose(mem);
    if (rc == 0)
        buf_add(out, text, n);
    free(text);
    return rc;
}

static void add_num(struct buf *b, double v)
{
    char t[40];
    int n = isfinite(v) ? snprintf(t, sizeof t, "%.17g", v) : snprintf(t, sizeof t, "null");
    buf_add(b, t, (size_t)n);
}

static void add_key(struct buf *b, const char *key)
{
    buf_add_json_string(b, key, strlen(key));
    buf_addc(b, ':');
}

static void add_text(struct buf *b, const unsigned char *s)
{
    if (s)
        buf_add_json_string(b, (const char *)s, strlen((const char *)s));
    else
        buf_add(b, "null", 4);
}

/* The span every chart shares: the traces' first and last ns. 0, or -1 on error (said). */
static int span_of(sqlite3 *db, int64_t *t0, int64_t *t1, struct report_io *io)
{
    sqlite3_stmt *st;
    *t0 = *t1 = 0;
    if (sqlite3_prepare_v2(db, "SELECT coalesce((SELECT min(first_ns) FROM trace), min(start_ns)), "
                               "coalesce((SELECT max(last_ns) FROM trace), max(start_ns + dur_ns)) FROM event",
                           -1, &st, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db)); /* a stranger's table lacks a column */
        return -1;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) /* held within +-2^62: t1 - t0 fits */
        *t0 = tdb_time_held(sqlite3_column_int64(st, 0)), *t1 = tdb_time_held(sqlite3_column_int64(st, 1));
    else
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return -1;
    if (*t1 <= *t0)
        *t1 = *t0 + 1;
    return 0;
}

/* "steps": every ProfilerStep#N's start and duration, for the step charts. */
static int steps_json(sqlite3 *db, struct buf *b, struct report_io *io)
{
    sqlite3_stmt *st = report_prepare(db, "report_steps", io);
    if (!st)
        return -1;
    buf_addc(b, '[');
    for (int i = 0; sqlite3_step(st) == SQLITE_ROW; i++) {
        buf_add(b, i ? ",{" : "{", i ? 2 : 1);
        add_key(b, "name"), add_text(b, sqlite3_column_text(st, 0)), buf_addc(b, ',');
        add_key(b, "start_ns"), add_num(b, (double)sqlite3_column_int64(st, 1)), buf_addc(b, ',');
        add_key(b, "dur_ns"), add_num(b, (double)sqlite3_column_int64(st, 3)), buf_addc(b, '}');
    }
    sqlite3_finalize(st);
    buf_addc(b, ']');
    return 0;
}

/* "memory_series": per device, the highest allocated bytes in each bin (null where no event falls),
 * from the memory timeline the report computes (queries/memory_timeline.sql). */
static int memory_json(sqlite3 *db, int64_t span, struct buf *b, struct report_io *io)
{
    sqlite3_stmt *st = report_prepare(db, "memory_timeline", io);
    if (!st)
        return -1;
    report_bind_int(st, ":limit", -1);
    double width = (double)span / TIMELINE_BINS;
    double *max = malloc(TIMELINE_BINS * sizeof *max);
    char device[128] = "";
    int series = 0, open = 0;
    buf_add(b, "{\"bins\":", 8);
    add_num(b, TIMELINE_BINS);
    buf_add(b, ",\"span_ns\":", 11);
    add_num(b, (double)span);
    buf_add(b, ",\"series\":[", 11);
    /* columns: rank, device, ts_ns, bytes, allocated_bytes, reserved_bytes; ordered by device */
    for (int more = max != NULL;;) {
        more = more && sqlite3_step(st) == SQLITE_ROW;
        const char *dev = more ? (const char *)sqlite3_column_text(st, 1) : NULL;
        if (open && (!more || !dev || strcmp(dev, device) != 0)) { /* the series before ends */
            buf_add(b, series ? ",{" : "{", series ? 2 : 1);
            series++;
            add_key(b, "device"), add_text(b, (const unsigned char *)device), buf_addc(b, ',');
            add_key(b, "max"), buf_addc(b, '[');
            for (int k = 0; k < TIMELINE_BINS; k++) {
                if (k)
                    buf_addc(b, ',');
                if (isnan(max[k]))
                    buf_add(b, "null", 4);
                else
                    add_num(b, max[k]);
            }
            buf_add(b, "]}", 2);
            open = 0;
        }
        if (!more)
            break;
        if (!open) {
            snprintf(device, sizeof device, "%s", dev ? dev : "?");
            for (int k = 0; k < TIMELINE_BINS; k++)
                max[k] = NAN;
            open = 1;
        }
        double at = (double)sqlite3_column_int64(st, 2) / width;
        int k = at < 0 ? 0 : at >= TIMELINE_BINS ? TIMELINE_BINS - 1 : (int)at;
        double v = sqlite3_column_double(st, 4);
        if (isnan(max[k]) || v > max[k])
            max[k] = v;
    }
    sqlite3_finalize(st);
    free(max);
    buf_add(b, "]}", 2);
    return 0;
}

/* "meta": what the header says. */
static void meta_json(sqlite3 *db, const struct html_report_options *o, const char *shown, int64_t t0, int64_t t1,
                      struct buf *b)
{
    int64_t events = 0, tracks = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM event), (SELECT count(*) FROM thread)", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        events = sqlite3_column_int64(st, 0), tracks = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%d %H:%M UTC", &tm);
    buf_addc(b, '{');
    add_key(b, "file"), add_text(b, (const unsigned char *)shown), buf_addc(b, ',');
    add_key(b, "baseline"), add_text(b, (const unsigned char *)o->baseline), buf_addc(b, ',');
    add_key(b, "chrome_trace"), add_text(b, (const unsigned char *)o->chrome_trace), buf_addc(b, ',');
    add_key(b, "events"), add_num(b, (double)events), buf_addc(b, ',');
    add_key(b, "tracks"), add_num(b, (double)tracks), buf_addc(b, ',');
    add_key(b, "span_ns"), add_num(b, (double)(t1 - t0)), buf_addc(b, ',');
    add_key(b, "generated"), add_text(b, (const unsigned char *)now), buf_addc(b, ',');
    add_key(b, "version"), add_text(b, (const unsigned char *)TDB_VERSION), buf_addc(b, '}');
}

/* "diff": the sections of `tracedb diff baseline run`, the gate's verdict on the step median, and the
 * sentence saying the runs used different GPUs when they did (gpus_differ, else null). */
static int diff_json(const char *baseline, const char *db_path, const struct html_report_options *o, struct buf *b,
                     struct report_io *io)
{
    sqlite3 *db = diff_open(baseline, db_path, 0, io);
    if (!db)
        return -1;
    static const char *const sections[][2] = {{"ops", "diff"}, {"steps", "diff_steps"}, {"device", "diff_device"},
                                              {"memory", "diff_memory"}};
    int rc = 0;
    buf_addc(b, '{');
    for (size_t i = 0; i < 4 && rc == 0; i++) {
        sqlite3_stmt *st = report_prepare(db, sections[i][1], io);
        if (!st) {
            rc = -1;
            break;
        }
        report_bind_int(st, ":limit", -1);
        report_bind_text(st, ":kinds", "");
        int t = sqlite3_bind_parameter_index(st, ":tolerance");
        if (t > 0)
            sqlite3_bind_double(st, t, 1.0);
        add_key(b, sections[i][0]);
        rc = capture_stmt(st, b, io) ? -1 : 0;
        buf_addc(b, ',');
        sqlite3_finalize(st);
    }
    char gpus[1024] = "";
    int differ = rc == 0 ? diff_gpus_differ(db, gpus, sizeof gpus, io) : 0;
    rc = differ < 0 ? -1 : rc;
    add_key(b, "gpus_differ");
    if (differ > 0)
        add_text(b, (const unsigned char *)gpus);
    else
        buf_add(b, "null", 4);
    buf_addc(b, ',');
    char line[512] = "";
    int gate = rc == 0 ? diff_gate(db, o->metric, o->fail_above, o->alpha, 1, line, sizeof line, io) : 1;
    add_key(b, "gate_rc"), add_num(b, gate), buf_addc(b, ',');
    add_key(b, "verdict"), add_text(b, (const unsigned char *)line), buf_addc(b, '}');
    sqlite3_close(db);
    return rc;
}

/* The data, where the page's marker stands. Every '<', '>' and '&' of the JSON (they occur only inside
 * its strings) is written as a \u escape, so that no name in a trace can end the script element, open a
 * comment ("<!--") or a script inside it ("<script"): the HTML parser sees none of them. U+2028 and
 * U+2029 too, which older JavaScript does not take inside a string. */
static void write_data(FILE *f, const struct buf *data)
{
    for (size_t i = 0; i < data->n; i++) {
        char c = data->p[i];
        if (c == '<' || c == '>' || c == '&')
            fprintf(f, "\\u%04x", (unsigned)c);
        else if (c == '\xe2' && i + 2 < data->n && data->p[i + 1] == '\x80' &&
                 (data->p[i + 2] == '\xa8' || data->p[i + 2] == '\xa9')) {
            fputs(data->p[i + 2] == '\xa8' ? "\\u2028" : "\\u2029", f);
            i += 2;
        } else
            fputc(c, f);
    }
}

/* The page: report.html with each TRACEDB_PART:FILE marker (in a comment) replaced by that embedded
 * script (ours, no data in it) and the TRACEDB_DATA marker by the data. -1 when one is missing. */
static int write_page(FILE *f, const struct buf *data)
{
    static const char part[] = "/*TRACEDB_PART:", datamark[] = "/*TRACEDB_DATA*/null";
    const char *page = tdb_embedded_get("analyzer/export/report.html");
    int have_data = 0;
    while (page && *page) {
        const char *p = strstr(page, part), *d = strstr(page, datamark);
        const char *next = p && (!d || p < d) ? p : d;
        if (!next) {
            fputs(page, f);
            break;
        }
        fwrite(page, 1, (size_t)(next - page), f);
        if (next == d) {
            write_data(f, data);
            have_data = 1;
            page = d + strlen(datamark);
            continue;
        }
        const char *end = strstr(p, "*/");
        char name[128];
        if (!end || end - p - (ptrdiff_t)strlen(part) >= (ptrdiff_t)sizeof name)
            return -1;
        snprintf(name, sizeof name, "%.*s", (int)(end - p - (ptrdiff_t)strlen(part)), p + strlen(part));
        const char *js = tdb_embedded_get(name);
        if (!js)
            return -1;
        fputs(js, f);
        page = end + 2;
    }
    return !page || !have_data || ferror(f) ? -1 : 0;
}

/* The page's parts, each a JSON value under its key, computed by two threads on connections of their own
 * (the reports' two slowest, kernels and device, and the timeline's scan then run side by side). */
struct part_ctx {
    sqlite3 *db;
    struct scope *sc;
    int64_t t0, t1;
    struct report_io *io;
};

static int part_timeline(struct part_ctx *c, struct buf *b)
{
    return html_timeline_json(c->db, c->t0, c->t1, b, c->io);
}

static int part_ops(struct part_ctx *c, struct buf *b)
{
    c->sc->limit = TABLE_ROWS;
    const struct ops_sweep_options so = {.sort = "self_cpu_ns"}; /* `tracedb ops`'s pass, the CPU-side rows */
    return ops_sweep(c->db, &so, c->io) != 0 ? 1 : capture(c->db, "ops_agg", c->sc, "self_cpu_ns", NULL, b, c->io);
}

static int part_kernels(struct part_ctx *c, struct buf *b)
{
    const struct scope_param params[] = {
        {":kernel", NULL, 1}, {":memcpy", NULL, 0}, {":memset", NULL, 0}, {":group_by", "name", 0}, {NULL, NULL, 0}};
    static const int64_t kinds[3] = {1, 0, 0}; /* kernels; memcpy and memset no */
    c->sc->limit = TABLE_ROWS;
    /* the sums by `tracedb kernels`'s pass, printed by its query */
    return kernel_sweep(c->db, c->sc->by_rank, 0, c->sc->by_step, kinds, c->io) != 0
               ? 1
               : capture(c->db, "kernels_summed", c->sc, "total_ns", params, b, c->io);
}

static int part_latency(struct part_ctx *c, struct buf *b)
{
    const struct scope_param params[] = {{":mode", "steps", 0}, {":pattern", "", 0}, {NULL, NULL, 0}};
    c->sc->limit = -1;
    return capture(c->db, "latency", c->sc, "total", params, b, c->io);
}

static int part_steps(struct part_ctx *c, struct buf *b)
{
    return steps_json(c->db, b, c->io);
}

static int part_device(struct part_ctx *c, struct buf *b)
{
    if (device_sweep(c->db, "ProfilerStep#*", c->io) != 0)
        return 1;
    c->sc->limit = -1;
    return capture(c->db, "device", c->sc, "time", NULL, b, c->io);
}

static int part_memory(struct part_ctx *c, struct buf *b)
{
    c->sc->limit = -1;
    if (memory_sweep(c->db, c->io) != 0)
        return 1;
    return capture(c->db, "memory", c->sc, "device", NULL, b, c->io);
}

static int part_overlap(struct part_ctx *c, struct buf *b)
{
    c->sc->limit = -1;
    c->sc->by_rank = 1; /* these reports are per rank */
    int rc = type_sweep(c->db, 1, c->io) != 0 ? 1 : capture(c->db, "overlap", c->sc, "rank", NULL, b, c->io);
    c->sc->by_rank = 0;
    return rc;
}

static int part_idle(struct part_ctx *c, struct buf *b)
{
    c->sc->limit = -1;
    c->sc->by_rank = 1;
    int rc = idle_sweep(c->db, 30000, 0, c->io) != 0 ? 1 : capture(c->db, "idle", c->sc, "stream", NULL, b, c->io);
    c->sc->by_rank = 0;
    return rc;
}

static int part_launches(struct part_ctx *c, struct buf *b)
{
    const struct scope_param params[] = {{":short_below", NULL, 50000}, {":delay_above", NULL, 100000}, {NULL, NULL, 0}};
    c->sc->limit = TABLE_ROWS;
    return launch_sweep(c->db, 50000, 100000, 0, c->io) != 0
               ? 1
               : capture(c->db, "launches", c->sc, "delay_avg_ns", params, b, c->io);
}

static int part_memory_series(struct part_ctx *c, struct buf *b)
{
    return memory_json(c->db, c->t1 - c->t0, b, c->io);
}

static const struct {
    const char *key;
    int (*run)(struct part_ctx *c, struct buf *b);
    int baseline; /* made for the baseline too, to draw both runs */
} parts[] = { /* the slowest first (on the bench database), so that the two threads end together */
    {"idle", part_idle, 0},         {"timeline", part_timeline, 1}, {"overlap", part_overlap, 0},
    {"kernels", part_kernels, 0},   {"device", part_device, 1},     {"launches", part_launches, 0},
    {"memory_series", part_memory_series, 0}, {"memory", part_memory, 0}, {"latency", part_latency, 1},
    {"ops", part_ops, 0},           {"steps", part_steps, 1},
};
#define NPARTS (sizeof parts / sizeof parts[0])

struct part_job {
    const char *db_path;
    int baseline; /* only the parts made for the baseline */
    int64_t t0, t1;
    struct report_io *io;
    struct buf out[NPARTS];
    char *said[NPARTS]; /* each part's diagnostics, said after: one cause met by two parts said once */
    size_t n_said[NPARTS];
    int rc[NPARTS];
    pthread_mutex_t lock;
    size_t next;
};

static void *part_worker(void *arg)
{
    struct part_job *j = arg;
    struct scope sc;
    scope_init(&sc, "");
    sc.format = FMT_JSON;
    sc.quiet = 1; /* html_report's own connection said it */
    sqlite3 *db = scope_open(j->db_path, &sc, j->io);
    struct part_ctx c = {db, &sc, j->t0, j->t1, j->io};
    for (;;) {
        pthread_mutex_lock(&j->lock);
        size_t i = j->next++;
        pthread_mutex_unlock(&j->lock);
        if (i >= NPARTS)
            break;
        if (!j->baseline || parts[i].baseline) {
            FILE *said = open_memstream(&j->said[i], &j->n_said[i]);
            struct report_io io = *j->io;
            io.err = said ? said : j->io->err;
            c.io = &io;
            j->rc[i] = db ? parts[i].run(&c, &j->out[i]) : 1;
            c.io = j->io;
            if (said)
                fclose(said);
        }
    }
    sqlite3_close(db);
    return NULL;
}

/* The parts of the database at path, each as ,"key":value appended to b (with baseline set, only those
 * made for a baseline). 0, or 1 on error (said). */
static int run_parts(const char *path, int baseline, struct buf *b, struct report_io *io)
{
    struct scope sc;
    scope_init(&sc, "");
    sc.format = FMT_JSON;
    sc.quiet = 1; /* html_report's connection and the diff's said it */
    sqlite3 *db = scope_open(path, &sc, io);
    if (!db)
        return 1;
    int64_t t0, t1;
    int rc = span_of(db, &t0, &t1, io) ? 1 : 0;
    sqlite3_close(db);
    struct part_job *j = malloc(sizeof *j);
    if (!j)
        return 1;
    *j = (struct part_job){0};
    j->db_path = path, j->baseline = baseline, j->t0 = t0, j->t1 = t1, j->io = io;
    pthread_mutex_init(&j->lock, NULL);
    pthread_t other;
    int threaded = rc == 0 && pthread_create(&other, NULL, part_worker, j) == 0;
    if (rc == 0)
        part_worker(j);
    if (threaded)
        pthread_join(other, NULL);
    pthread_mutex_destroy(&j->lock);
    for (size_t i = 0; i < NPARTS; i++) { /* each part's diagnostics, unless an earlier part said the same */
        size_t k = 0;
        while (k < i && !(j->n_said[k] == j->n_said[i] && (!j->n_said[i] || memcmp(j->said[k], j->said[i], j->n_said[i]) == 0)))
            k++;
        if (k == i && j->n_said[i])
            fwrite(j->said[i], 1, j->n_said[i], io->err);
    }
    for (size_t i = 0; i < NPARTS; i++)
        free(j->said[i]);
    for (size_t i = 0; i < NPARTS; i++) {
        if (baseline && !parts[i].baseline)
            continue;
        if (j->rc[i] || (rc == 0 && !j->out[i].n))
            rc = 1;
        buf_addc(b, ',');
        add_key(b, parts[i].key);
        buf_add(b, j->out[i].p, j->out[i].n);
        buf_free(&j->out[i]);
    }
    free(j);
    return rc;
}

int html_report(const char *db_path, const struct html_report_options *o, FILE *f, struct report_io *io)
{
    struct scope sc;
    scope_init(&sc, "");
    sc.format = FMT_JSON;
    sqlite3 *db = scope_open(db_path, &sc, io);
    if (!db)
        return 1;
    int64_t t0, t1;
    struct buf b = {0};
    int rc = span_of(db, &t0, &t1, io);
    buf_add(&b, "{\"meta\":", 8);
    meta_json(db, o, o->shown_path ? o->shown_path : db_path, t0, t1, &b);
    sqlite3_close(db);
    if (rc == 0)
        rc = run_parts(db_path, 0, &b, io);
    buf_add(&b, ",\"diff\":", 8);
    if (rc == 0 && o->baseline)
        rc = diff_json(o->baseline, db_path, o, &b, io);
    else
        buf_add(&b, "null", 4);
    buf_add(&b, ",\"baseline\":", 12);
    if (rc == 0 && o->baseline) { /* the baseline's own timeline, steps and device time: both runs drawn */
        buf_add(&b, "{\"file\":", 8);
        add_text(&b, (const unsigned char *)o->baseline);
        rc = run_parts(o->baseline, 1, &b, io);
        buf_addc(&b, '}');
    } else
        buf_add(&b, "null", 4);
    buf_addc(&b, '}');
    if (rc == 0 && write_page(f, &b) != 0) {
        if (!ferror(f)) /* a write error is said with its reason where the file is closed */
            fprintf(io->err, "%s: cannot write the report (its page template is missing)\n", io->prog);
        rc = 1;
    }
    buf_free(&b);
    return rc ? 1 : 0;
}
