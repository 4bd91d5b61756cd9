/* render.c: output modes kept apart from the data (after SQLite's shell): table for people, csv
 * (RFC 4180, via libcsv) and json (an array of row objects, integers as integers) for programs. */
#include "render.h"
#include "jsonbuf.h"
#include <csv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A CSV field: quoted only when it has to be (RFC 4180), quoting done by libcsv. */
static void csv_field(FILE *out, const char *s, size_t n)
{
    if (!utf8_valid(s, n)) { /* invalid UTF-8 leaves as U+FFFD, as in json */
        char *fixed = malloc(3 * n + 1);
        if (fixed) {
            size_t m = utf8_repair(fixed, s, n);
            fixed[m] = 0;
            csv_field(out, fixed, m);
            free(fixed);
            return;
        }
    }
    if (n == 0 || strpbrk(s, ",\"\r\n") || s[0] == ' ' || s[n - 1] == ' ') /* "" is an empty text, not NULL */
        csv_fwrite(out, s, n);
    else
        fwrite(s, 1, n, out);
}

static int64_t render_csv(sqlite3_stmt *st, int first, FILE *out, FILE *err)
{
    int ncol = sqlite3_column_count(st) - first;
    for (int i = 0; i < ncol; i++) {
        const char *h = render_column_name(st, first + i);
        if (i)
            fputc(',', out);
        csv_field(out, h, strlen(h));
    }
    fputs("\r\n", out);
    int64_t rows = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < ncol; i++) {
            if (i)
                fputc(',', out);
            switch (sqlite3_column_type(st, first + i)) {
            case SQLITE_NULL:
                break;
            case SQLITE_INTEGER:
                fprintf(out, "%lld", (long long)sqlite3_column_int64(st, first + i));
                break;
            case SQLITE_FLOAT: {
                char num[40];
                double d = sqlite3_column_double(st, first + i);
                snprintf(num, sizeof num, "%.15g", d);
                if (strtod(num, NULL) != d)
                    snprintf(num, sizeof num, "%.17g", d);
                fputs(num, out);
                break;
            }
            default: {
                const char *t = (const char *)sqlite3_column_text(st, first + i);
                csv_field(out, t, (size_t)sqlite3_column_bytes(st, first + i));
            }
            }
        }
        fputs("\r\n", out);
        rows++;
    }
    if (rc != SQLITE_DONE) {
        render_step_error(st, err);
        return -1;
    }
    return rows;
}

static int64_t render_json(sqlite3_stmt *st, int first, FILE *out, FILE *err)
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
            const char *h = render_column_name(st, first + i);
            jw_key(&w, h, strlen(h));
            char num[40];
            switch (sqlite3_column_type(st, first + i)) {
            case SQLITE_NULL:
                jw_raw(&w, "null", 4);
                break;
            case SQLITE_INTEGER:
                snprintf(num, sizeof num, "%lld", (long long)sqlite3_column_int64(st, first + i));
                jw_raw(&w, num, strlen(num));
                break;
            case SQLITE_FLOAT: {
                double d = sqlite3_column_double(st, first + i);
                if (isfinite(d)) { /* the shortest text that reads back as the same double */
                    snprintf(num, sizeof num, "%.15g", d);
                    if (strtod(num, NULL) != d)
                        snprintf(num, sizeof num, "%.17g", d);
                }
                else
                    snprintf(num, sizeof num, "null");
                jw_raw(&w, num, strlen(num));
                break;
            }
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

int64_t render_query_from(sqlite3_stmt *st, enum render_format fmt, int first, FILE *out, FILE *err)
{
    if (first >= sqlite3_column_count(st))
        first = 0;
    switch (fmt) {
    case FMT_CSV:
        return render_csv(st, first, out, err);
    case FMT_JSON:
        return render_json(st, first, out, err);
    default:
        return render_table(st, first, out, err);
    }
}

void render_step_error(sqlite3_stmt *st, FILE *err)
{
    const char *msg = sqlite3_errmsg(sqlite3_db_handle(st));
    if (strcmp(msg, "integer overflow") == 0) /* SQLite's sum() past 2^63 */
        fprintf(err, "tracedb: integer overflow: a sum of the database's values passed 2^63, which no trace's do "
                     "(a damaged or edited database)\n");
    else
        fprintf(err, "tracedb: %s\n", msg);
}

int64_t render_query(sqlite3_stmt *st, enum render_format fmt, FILE *out, FILE *err)
{
    return render_query_from(st, fmt, 0, out, err);
}
