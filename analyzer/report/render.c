/* render.c: output modes kept apart from the data (after SQLite's shell): table for people, csv
 * (RFC 4180, via libcsv) and json (an array of row objects, integers as integers) for programs. */
#include "render.h"
#include "jsonbuf.h"
#include <csv.h>
#include <stdlib.h>
#include <string.h>

/* A CSV field appended to b: quoted only when it has to be (RFC 4180), quoting done by libcsv; invalid
 * UTF-8 as U+FFFD, as in json. -1 when out of memory. */
static int csv_field(struct buf *b, const char *s, size_t n)
{
    if (!utf8_valid(s, n)) {
        char *fixed = malloc(3 * n + 1);
        if (!fixed)
            return -1;
        size_t m = utf8_repair(fixed, s, n);
        fixed[m] = 0;
        int rc = csv_field(b, fixed, m);
        free(fixed);
        return rc;
    }
    if (n == 0 || strpbrk(s, ",\"\r\n") || s[0] == ' ' || s[n - 1] == ' ') { /* "" is an empty text, not NULL */
        size_t need = csv_write(NULL, 0, s, n);
        if (buf_reserve(b, need) != 0)
            return -1;
        b->n += csv_write(b->p + b->n, need, s, n);
        return 0;
    }
    return buf_add(b, s, n);
}

/* Each row is made in a buffer and written in one call (a printf and a putc a field cost a fifth of a
 * large export's time). */
static int64_t render_csv(sqlite3_stmt *st, int first, const struct render_options *opt, FILE *out, FILE *err)
{
    int ncol = sqlite3_column_count(st) - first;
    struct buf b = {0};
    int oom = 0;
    for (int i = 0; i < ncol; i++) {
        const char *h = render_column_name(st, first + i, opt);
        oom |= (i && buf_addc(&b, ',') != 0) || csv_field(&b, h, strlen(h)) != 0;
    }
    oom |= buf_add(&b, "\r\n", 2) != 0;
    int64_t rows = 0;
    int rc = SQLITE_DONE;
    while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (b.n >= 1 << 16) { /* written a block at a time */
            fwrite(b.p, 1, b.n, out);
            b.n = 0;
        }
        for (int i = 0; i < ncol && !oom; i++) {
            if (i)
                oom |= buf_addc(&b, ',') != 0;
            switch (sqlite3_column_type(st, first + i)) {
            case SQLITE_NULL:
                break;
            case SQLITE_INTEGER:
                oom |= buf_add_digits(&b, sqlite3_column_int64(st, first + i), 0) != 0;
                break;
            case SQLITE_FLOAT:
                oom |= buf_add_real(&b, sqlite3_column_double(st, first + i)) != 0;
                break;
            default: {
                const char *t = (const char *)sqlite3_column_text(st, first + i);
                oom |= csv_field(&b, t, (size_t)sqlite3_column_bytes(st, first + i)) != 0;
            }
            }
        }
        oom |= buf_add(&b, "\r\n", 2) != 0;
        rows++;
    }
    if (b.n)
        fwrite(b.p, 1, b.n, out);
    buf_free(&b);
    if (oom) {
        fprintf(err, "tracedb: out of memory\n");
        return -1;
    }
    if (rc != SQLITE_DONE) {
        render_step_error(st, err);
        return -1;
    }
    return rows;
}

static int64_t render_json(sqlite3_stmt *st, int first, const struct render_options *opt, FILE *out, FILE *err)
{
    int ncol = sqlite3_column_count(st) - first;
    struct buf b = {0};
    int64_t rows = 0;
    int rc;
    fputc('[', out);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct jw w;
        b.n = 0;
        jw_init(&w, &b);
        jw_open(&w, '{');
        for (int i = 0; i < ncol; i++) {
            const char *h = render_column_name(st, first + i, opt);
            jw_key(&w, h, strlen(h));
            switch (sqlite3_column_type(st, first + i)) {
            case SQLITE_NULL:
                jw_raw(&w, "null", 4);
                break;
            case SQLITE_INTEGER:
                jw_int(&w, sqlite3_column_int64(st, first + i));
                break;
            case SQLITE_FLOAT:
                jw_real(&w, sqlite3_column_double(st, first + i));
                break;
            default:
                jw_string(&w, (const char *)sqlite3_column_text(st, first + i), (size_t)sqlite3_column_bytes(st, first + i));
            }
        }
        jw_close(&w, '}');
        fputs(rows ? ",\n" : "\n", out);
        fwrite(b.p, 1, b.n, out);
        rows++;
    }
    fputs(rows ? "\n]\n" : "]\n", out);
    buf_free(&b);
    if (rc != SQLITE_DONE) {
        render_step_error(st, err);
        return -1;
    }
    return rows;
}

int64_t render_query_from(sqlite3_stmt *st, enum render_format fmt, int first, const struct render_options *opt,
                          FILE *out, FILE *err)
{
    if (first >= sqlite3_column_count(st))
        first = 0;
    switch (fmt) {
    case FMT_CSV:
        return render_csv(st, first, opt, out, err);
    case FMT_JSON:
        return render_json(st, first, opt, out, err);
    default:
        return render_table(st, first, opt, out, err);
    }
}

int64_t render_to_sink(sqlite3_stmt *st, int first, const struct render_options *opt, struct render_sink *sink,
                       FILE *err)
{
    if (first >= sqlite3_column_count(st))
        first = 0;
    int ncol = sqlite3_column_count(st) - first;
    const char **names = malloc(sizeof *names * (size_t)(ncol > 0 ? ncol : 1));
    if (!names) {
        fprintf(err, "tracedb: out of memory\n");
        return -1;
    }
    for (int i = 0; i < ncol; i++)
        names[i] = render_column_name(st, first + i, opt);
    int go = sink->columns(sink, ncol, names);
    free(names);
    if (go != 0) {
        if (go < 0)
            fprintf(err, "tracedb: out of memory\n");
        return go < 0 ? -1 : 0;
    }
    int64_t rows = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sink->row(sink, st, first, ncol) != 0) {
            fprintf(err, "tracedb: out of memory\n");
            return -1;
        }
        rows++;
    }
    if (rc != SQLITE_DONE) {
        render_step_error(st, err);
        return -1;
    }
    return rows;
}

int64_t render_query(sqlite3_stmt *st, enum render_format fmt, const struct render_options *opt, FILE *out, FILE *err)
{
    return render_query_from(st, fmt, 0, opt, out, err);
}
