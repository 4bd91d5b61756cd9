/* html_timeline.c: the HTML report's timeline, from one scan of the events (queries/report_timeline_rows.sql)
 * in no order: per track (a CPU thread or a GPU stream) its label, the share of each of TL_BINS bins
 * that its top-level work covers and the class of work that filled most of it, and its events: every
 * one when the trace holds at most TL_EVENTS of them, else TL_EVENTS shared out fairly between the
 * tracks (a track with fewer keeps all of its own, the rest split what is left), each track keeping its
 * longest (so a 2 M-event trace stays a page of about a MB). A CPU track's events keep their depth, up to
 * 2, as lanes; a GPU stream's work is one lane, classed by HTA's kernel type (gpu_name_types.sql). */
#include "html_timeline.h"
#include "jsonbuf.h"
#include "kinds.h"
#include "report.h"
#include "strmap.h"
#include "time_range.h"
#include "type_union.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TL_BINS 1200
#define TL_EVENTS 12000
#define TL_LANES 3

/* The classes the page colours (report_timeline.js names them in this order). */
enum { CL_OP, CL_RUNTIME, CL_CPU_OTHER, CL_COMPUTE, CL_COMM, CL_MEMORY, CL_GPU_OTHER, NCLASSES };

struct tl_event {
    int64_t s, d, name;
    int32_t track;
    uint8_t cls, lane;
};

struct tl_track {
    float *cover;     /* TL_BINS x NCLASSES: the share of each bin each class covers (lane 0) */
    struct tl_event *heap; /* its longest events: a min-heap on d, TL_EVENTS at most */
    size_t n, cap;
    int gpu, lanes;   /* a GPU stream; lanes used */
    int64_t device, stream, events;
    int has_device;
};

struct tl_state {
    struct tl_track *tracks;
    int64_t ntracks;
    struct tl_event *heap; /* the events kept, every track's */
    size_t n;
    struct strmap types;   /* GPU name id -> TU_* */
};

static int gpu_kind(int kind)
{
    return kind == TDB_KIND_KERNEL || kind == TDB_KIND_MEMCPY || kind == TDB_KIND_MEMSET || kind == TDB_KIND_SYNC ||
           kind == TDB_KIND_EXECUTION;
}

static int class_of(const struct tl_state *t, int kind, int64_t name)
{
    switch (kind) {
    case TDB_KIND_OP:
        return CL_OP;
    case TDB_KIND_RUNTIME:
    case TDB_KIND_DRIVER:
        return CL_RUNTIME;
    case TDB_KIND_MEMCPY:
    case TDB_KIND_MEMSET:
        return CL_MEMORY;
    case TDB_KIND_KERNEL: {
        int64_t ty = strmap_get(&t->types, &name, sizeof name);
        return ty == TU_COMMUNICATION ? CL_COMM : ty == TU_MEMORY ? CL_MEMORY : ty == TU_COMPUTATION ? CL_COMPUTE : CL_GPU_OTHER;
    }
    default:
        return gpu_kind(kind) ? CL_GPU_OTHER : CL_CPU_OTHER;
    }
}

static int before(const struct tl_event *a, const struct tl_event *b) /* the heap's order: shorter first */
{
    return a->d < b->d || (a->d == b->d && a->s > b->s);
}

static void sift_down(struct tl_event *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && before(&h[l], &h[m]))
            m = l;
        if (l + 1 < n && before(&h[l + 1], &h[m]))
            m = l + 1;
        if (m == i)
            return;
        struct tl_event x = h[i];
        h[i] = h[m], h[m] = x, i = m;
    }
}

/* Keeps e among its track's TL_EVENTS longest. 0, or -1 when out of memory. */
static int keep(struct tl_track *tr, const struct tl_event *e)
{
    if (tr->n < TL_EVENTS) {
        if (tr->n == tr->cap) {
            size_t cap = tr->cap ? 2 * tr->cap : 256;
            struct tl_event *h = realloc(tr->heap, (cap < TL_EVENTS ? cap : TL_EVENTS) * sizeof *h);
            if (!h)
                return -1;
            tr->heap = h, tr->cap = cap < TL_EVENTS ? cap : TL_EVENTS;
        }
        size_t i = tr->n++;
        tr->heap[i] = *e;
        while (i && before(&tr->heap[i], &tr->heap[(i - 1) / 2])) {
            struct tl_event x = tr->heap[i];
            tr->heap[i] = tr->heap[(i - 1) / 2], tr->heap[(i - 1) / 2] = x, i = (i - 1) / 2;
        }
    } else if (before(&tr->heap[0], e)) {
        tr->heap[0] = *e;
        sift_down(tr->heap, tr->n, 0);
    }
    return 0;
}

static int by_count(const void *a, const void *b)
{
    const struct tl_track *x = *(struct tl_track *const *)a, *y = *(struct tl_track *const *)b;
    return x->n < y->n ? -1 : x->n > y->n;
}

/* TL_EVENTS shared out: the tracks by how many they hold, each given the rest's fair share or all of
 * its own when fewer; each keeps its longest that many (the shortest popped off its heap). */
static int share_out(struct tl_state *t)
{
    size_t with = 0, left = TL_EVENTS;
    struct tl_track **order = malloc(((size_t)t->ntracks + 1) * sizeof *order);
    if (!order || !(t->heap = malloc(TL_EVENTS * sizeof *t->heap))) {
        free(order);
        return -1;
    }
    for (int64_t i = 0; i <= t->ntracks; i++)
        if (t->tracks[i].n)
            order[with++] = &t->tracks[i];
    qsort(order, with, sizeof *order, by_count);
    for (size_t i = 0; i < with; i++) {
        struct tl_track *tr = order[i];
        size_t quota = left / (with - i);
        while (tr->n > quota) { /* the shortest off the heap */
            tr->heap[0] = tr->heap[--tr->n];
            sift_down(tr->heap, tr->n, 0);
        }
        memcpy(t->heap + t->n, tr->heap, tr->n * sizeof *tr->heap);
        t->n += tr->n, left -= tr->n;
    }
    free(order);
    return 0;
}

/* Adds [s, e) to the bins of class c (fractions of each bin's width). */
static void cover(float *bins, int c, int64_t t0, double width, int64_t s, int64_t e)
{
    double a = (double)(s - t0) / width, b = (double)(e - t0) / width;
    if (a < 0)
        a = 0;
    if (b > TL_BINS)
        b = TL_BINS;
    for (int k = (int)a; a < b && k < TL_BINS && k < b; k++) {
        double lo = k > a ? k : a, hi = k + 1 < b ? k + 1 : b;
        if (hi > lo)
            bins[k * NCLASSES + c] += (float)(hi - lo);
    }
}

static int load_types(struct tl_state *t, sqlite3 *db, struct report_io *io)
{
    sqlite3_stmt *st = report_prepare(db, "gpu_name_types", io);
    if (!st)
        return -1;
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *ty = (const char *)sqlite3_column_text(st, 1);
        if (ty && strmap_get(&t->types, &id, sizeof id) < 0)
            rc = strmap_put(&t->types, &id, sizeof id, type_union_of(ty));
    }
    sqlite3_finalize(st);
    return rc;
}

static int scan(struct tl_state *t, sqlite3 *db, int64_t t0, int64_t t1, struct report_io *io)
{
    sqlite3_stmt *st = report_prepare(db, "report_timeline_rows", io);
    if (!st)
        return -1;
    double width = (double)(t1 - t0) / TL_BINS;
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id < 0 || id > t->ntracks)
            continue;
        struct tl_track *tr = &t->tracks[id];
        int kind = sqlite3_column_int(st, 1), gpu = gpu_kind(kind);
        int64_t depth = sqlite3_column_int64(st, 2);
        struct tl_event e = {tdb_time_held(sqlite3_column_int64(st, 3)), tdb_time_held(sqlite3_column_int64(st, 4)),
                             sqlite3_column_int64(st, 5), (int32_t)id, 0, (uint8_t)(gpu ? 0 : depth)};
        if (!gpu && (depth < 0 || depth >= TL_LANES))
            continue;
        if (!tr->cover && !(tr->cover = calloc(TL_BINS * NCLASSES, sizeof *tr->cover))) {
            rc = -1;
            break;
        }
        e.cls = (uint8_t)class_of(t, kind, e.name);
        tr->gpu |= gpu;
        if (gpu && !tr->has_device && sqlite3_column_type(st, 6) == SQLITE_INTEGER)
            tr->has_device = 1, tr->device = sqlite3_column_int64(st, 6), tr->stream = sqlite3_column_int64(st, 7);
        if (e.lane + 1 > tr->lanes)
            tr->lanes = e.lane + 1;
        tr->events++;
        if (e.lane == 0)
            cover(tr->cover, e.cls, t0, width, e.s, e.s + e.d);
        rc = keep(tr, &e);
    }
    sqlite3_finalize(st);
    return rc;
}

static int by_track_start(const void *a, const void *b)
{
    const struct tl_event *x = a, *y = b;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    return x->s < y->s ? -1 : x->s > y->s ? 1 : x->lane - y->lane;
}

static void add_int(struct buf *b, int64_t v)
{
    char t[32];
    buf_add(b, t, (size_t)snprintf(t, sizeof t, "%lld", (long long)v));
}

static void add_key(struct buf *b, const char *key)
{
    buf_add_json_string(b, key, strlen(key));
    buf_addc(b, ':');
}

/* A track's label: "GPU 0, stream 7" for a stream, else its thread's name (or "thread TID"), with its
 * rank first when the database holds several traces. */
static void add_label(struct buf *b, sqlite3_stmt *st, const struct tl_track *tr)
{
    char text[600];
    int n = 0;
    if (sqlite3_column_int(st, 7)) {
        if (sqlite3_column_type(st, 2) == SQLITE_INTEGER)
            n = snprintf(text, sizeof text, "rank %lld, ", (long long)sqlite3_column_int64(st, 2));
        else
            n = snprintf(text, sizeof text, "trace %lld, ", (long long)sqlite3_column_int64(st, 1));
    }
    const char *tname = (const char *)sqlite3_column_text(st, 6), *tid = (const char *)sqlite3_column_text(st, 5);
    if (tr->gpu && tr->has_device && tid && strcmp(tid, "-1") != 0)
        snprintf(text + n, sizeof text - (size_t)n, "GPU %lld, stream %lld", (long long)tr->device, (long long)tr->stream);
    else if (tr->gpu && tr->has_device)
        snprintf(text + n, sizeof text - (size_t)n, "GPU %lld, %s", (long long)tr->device, tname ? tname : "device");
    else if (tname && *tname)
        snprintf(text + n, sizeof text - (size_t)n, "%s", tname);
    else
        snprintf(text + n, sizeof text - (size_t)n, "thread %s", tid ? tid : "?");
    size_t len = strlen(text);
    while (len && text[len - 1] == ' ') /* Kineto's "stream 7 " */
        text[--len] = 0;
    buf_add_json_string(b, text, len);
}

/* The bins as two arrays: busy (the share covered, capped at 1) and cls (per bin, the class covering
 * most of it as one digit, '-' where nothing ran). */
static void add_bins(struct buf *b, const float *cover)
{
    add_key(b, "busy"), buf_addc(b, '[');
    char cls[TL_BINS + 1];
    for (int k = 0; k < TL_BINS; k++) {
        double sum = 0, most = 0;
        int c = -1;
        for (int j = 0; j < NCLASSES; j++) {
            sum += cover[k * NCLASSES + j];
            if (cover[k * NCLASSES + j] > most)
                most = cover[k * NCLASSES + j], c = j;
        }
        char text[16];
        int n = sum > 0 ? snprintf(text, sizeof text, "%s%.3g", k ? "," : "", sum > 1 ? 1.0 : sum)
                        : snprintf(text, sizeof text, "%s0", k ? "," : "");
        buf_add(b, text, (size_t)n);
        cls[k] = c < 0 ? '-' : (char)('0' + c);
    }
    buf_add(b, "],", 2);
    add_key(b, "cls"), buf_add_json_string(b, cls, TL_BINS);
}

/* The events kept, sorted by track then start; names interned in names (id -> index in "names"). */
static int write_tracks(struct tl_state *t, sqlite3 *db, int64_t t0, struct buf *b, struct buf *names, struct report_io *io)
{
    qsort(t->heap, t->n, sizeof *t->heap, by_track_start);
    sqlite3_stmt *st = report_prepare(db, "report_tracks", io), *nm = report_prepare(db, "report_name", io);
    struct strmap index;
    strmap_init(&index);
    int64_t nnames = 0;
    int first = 1, rc = st && nm ? 0 : -1;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id < 0 || id > t->ntracks || !t->tracks[id].cover)
            continue;
        struct tl_track *tr = &t->tracks[id];
        buf_add(b, first ? "{" : ",{", first ? 1 : 2);
        first = 0;
        add_key(b, "label"), add_label(b, st, tr), buf_addc(b, ',');
        add_key(b, "gpu"), buf_add(b, tr->gpu ? "true," : "false,", tr->gpu ? 5 : 6);
        add_key(b, "lanes"), add_int(b, tr->lanes), buf_addc(b, ',');
        add_key(b, "events"), add_int(b, tr->events), buf_addc(b, ',');
        add_bins(b, tr->cover);
        buf_addc(b, ',');
        /* ev: start (from t0), duration, name index, class, lane; five numbers an event */
        add_key(b, "ev"), buf_addc(b, '[');
        size_t lo = 0, hi = t->n; /* this track's events: a binary search in the sorted array */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (t->heap[mid].track < id)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t i = lo; rc == 0 && i < t->n && t->heap[i].track == id; i++) {
            const struct tl_event *e = &t->heap[i];
            int64_t k = strmap_get(&index, &e->name, sizeof e->name);
            if (k < 0) {
                sqlite3_reset(nm);
                report_bind_int(nm, ":id", e->name);
                const unsigned char *v = sqlite3_step(nm) == SQLITE_ROW ? sqlite3_column_text(nm, 0) : NULL;
                buf_add(names, nnames ? "," : "", nnames ? 1 : 0);
                buf_add_json_string(names, v ? (const char *)v : "?", v ? strlen((const char *)v) : 1);
                k = nnames++;
                rc = strmap_put(&index, &e->name, sizeof e->name, k);
            }
            if (i > lo)
                buf_addc(b, ',');
            add_int(b, e->s - t0), buf_addc(b, ','), add_int(b, e->d), buf_addc(b, ',');
            add_int(b, k), buf_addc(b, ','), add_int(b, e->cls), buf_addc(b, ','), add_int(b, e->lane);
        }
        buf_add(b, "]}", 2);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(nm);
    strmap_free(&index);
    return rc;
}

int html_timeline_json(sqlite3 *db, int64_t t0, int64_t t1, struct buf *b, struct report_io *io)
{
    struct tl_state t = {0};
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT max(id) FROM thread", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        t.ntracks = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (t.ntracks < 0 || t.ntracks > 1000000)
        t.ntracks = 0; /* not tracks tracedb numbered: no timeline */
    strmap_init(&t.types);
    t.tracks = calloc((size_t)t.ntracks + 1, sizeof *t.tracks);
    int rc = t.tracks ? 0 : -1;
    if (rc == 0)
        rc = load_types(&t, db, io);
    if (rc == 0)
        rc = scan(&t, db, t0, t1, io);
    if (rc == 0)
        rc = share_out(&t);
    struct buf names = {0};
    int64_t total = 0;
    for (int64_t i = 0; t.tracks && i <= t.ntracks; i++)
        total += t.tracks[i].events;
    buf_addc(b, '{');
    add_key(b, "t0"), add_int(b, t0), buf_addc(b, ',');
    add_key(b, "t1"), add_int(b, t1), buf_addc(b, ',');
    add_key(b, "bins"), add_int(b, TL_BINS), buf_addc(b, ',');
    add_key(b, "events"), add_int(b, total), buf_addc(b, ',');
    add_key(b, "shown"), add_int(b, (int64_t)t.n), buf_addc(b, ',');
    add_key(b, "tracks"), buf_addc(b, '[');
    if (rc == 0)
        rc = write_tracks(&t, db, t0, b, &names, io);
    buf_add(b, "],", 2);
    add_key(b, "names"), buf_addc(b, '[');
    buf_add(b, names.p, names.n);
    buf_add(b, "],", 2);
    add_key(b, "steps"), buf_addc(b, '[');
    st = rc == 0 ? report_prepare(db, "report_steps", io) : NULL;
    for (int i = 0; st && sqlite3_step(st) == SQLITE_ROW; i++) {
        buf_add(b, i ? ",{" : "{", i ? 2 : 1);
        add_key(b, "name");
        const unsigned char *n = sqlite3_column_text(st, 0);
        buf_add_json_string(b, n ? (const char *)n : "", n ? strlen((const char *)n) : 0);
        buf_addc(b, ',');
        add_key(b, "start"), add_int(b, sqlite3_column_int64(st, 1)), buf_addc(b, ',');
        add_key(b, "end"), add_int(b, sqlite3_column_int64(st, 2)), buf_addc(b, '}');
    }
    sqlite3_finalize(st);
    buf_add(b, "]}", 2);
    buf_free(&names);
    for (int64_t i = 0; t.tracks && i <= t.ntracks; i++)
        free(t.tracks[i].cover), free(t.tracks[i].heap);
    free(t.tracks);
    free(t.heap);
    strmap_free(&t.types);
    return rc;
}
