/* render.c: output modes kept apart from the data (after SQLite's shell): table for people, csv
 * (RFC 4180, via libcsv) and json (an array of row objects, integers as integers) for programs. */
#include "render.h"
#include "../recorder/jsonbuf.h"
#include <csv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_TEXT_MAX 60 /* longer names are cut, as PyTorch's table does */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

void render_time(char *dst, size_t n, int64_t ns)
{
    double us = (double)ns / 1000.0;
    if (fabs(us) >= 1e6)
        snprintf(dst, n, "%.3fs", us / 1e6);
    else if (fabs(us) >= 1e3)
        snprintf(dst, n, "%.3fms", us / 1e3);
    else
        snprintf(dst, n, "%.3fus", us);
}

static void render_memory(char *dst, size_t n, int64_t b)
{
    const double kb = 1024.0, mb = kb * 1024, gb = mb * 1024;
    double a = fabs((double)b);
    if (a >= gb)
        snprintf(dst, n, "%.2f Gb", (double)b / gb);
    else if (a >= mb)
        snprintf(dst, n, "%.2f Mb", (double)b / mb);
    else if (a >= kb)
        snprintf(dst, n, "%.2f Kb", (double)b / kb);
    else
        snprintf(dst, n, "%lld b", (long long)b);
}

/* The display form of the character at p (len bytes left) into piece: control characters (C0, DEL,
 * C1) as \xNN or \u00NN escapes, so that a name cannot move the cursor or retitle the window;
 * invalid UTF-8 as U+FFFD. Sets *used to the bytes consumed; returns the piece's length. */
static size_t table_char(const unsigned char *p, size_t len, char piece[8], size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    size_t k = p[0] < 0x80 ? 1 : utf8_seq_len(p, len);
    *used = k ? k : 1;
    if (k == 1 && (p[0] < 0x20 || p[0] == 0x7f)) {
        piece[0] = '\\', piece[1] = 'x', piece[2] = hex[p[0] >> 4], piece[3] = hex[p[0] & 15];
        return 4;
    }
    if (k == 2 && p[0] == 0xC2 && p[1] < 0xA0) { /* U+0080..U+009F */
        memcpy(piece, "\\u00", 4);
        piece[4] = hex[p[1] >> 4], piece[5] = hex[p[1] & 15];
        return 6;
    }
    if (k == 0) {
        memcpy(piece, "\xEF\xBF\xBD", 3);
        return 3;
    }
    memcpy(piece, p, k);
    return k;
}

/* Text for a terminal (table_char for each character), cut at TABLE_TEXT_MAX characters with "...",
 * never inside a character. dst has n >= 16 bytes. */
static void table_text(char *dst, size_t n, const char *t, size_t len)
{
    const unsigned char *p = (const unsigned char *)t;
    char piece[8];
    size_t used, total = 0; /* the display width */
    for (size_t i = 0; i < len; i += used) {
        size_t pn = table_char(p + i, len - i, piece, &used);
        total += pn == used ? 1 : pn;
    }
    size_t limit = total > TABLE_TEXT_MAX ? TABLE_TEXT_MAX - 3 : total, o = 0, shown = 0;
    for (size_t i = 0; i < len; i += used) {
        size_t pn = table_char(p + i, len - i, piece, &used), w = pn == used ? 1 : pn;
        if (shown + w > limit || o + pn + 4 > n)
            break;
        memcpy(dst + o, piece, pn);
        o += pn, shown += w;
    }
    if (total > limit)
        memcpy(dst + o, "...", 3), o += 3;
    dst[o] = 0;
}

/* The table text of one value. */
static void table_cell(sqlite3_stmt *st, int i, const char *col, char *dst, size_t n)
{
    int type = sqlite3_column_type(st, i);
    if (type == SQLITE_NULL) {
        snprintf(dst, n, "-");
        return;
    }
    if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
        if (ends_with(col, "_ns")) {
            render_time(dst, n, (int64_t)llround(sqlite3_column_double(st, i)));
            return;
        }
        if (ends_with(col, "_bytes")) {
            render_memory(dst, n, sqlite3_column_int64(st, i));
            return;
        }
        if (ends_with(col, "_pct")) {
            snprintf(dst, n, "%.2f%%", sqlite3_column_double(st, i));
            return;
        }
        if (type == SQLITE_FLOAT) {
            snprintf(dst, n, "%.3f", sqlite3_column_double(st, i));
            return;
        }
    }
    const char *t = (const char *)sqlite3_column_text(st, i);
    table_text(dst, n, t ? t : "", (size_t)sqlite3_column_bytes(st, i));
}

/* UTF-8 aware display width (counts code points). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* Table output buffers every row to size the columns; a column that is NULL in every row is left out
 * (a report's optional columns, such as flops without --with-flops). */
static int64_t render_table(sqlite3_stmt *st, int first, FILE *out, FILE *err)
{
    int ncol = sqlite3_column_count(st) - first;
    struct buf cells = {0};   /* every cell, NUL-terminated, row after row */
    size_t *width = calloc((size_t)ncol, sizeof *width);
    int *numeric = calloc((size_t)ncol, sizeof *numeric);
    int *shown = calloc((size_t)ncol, sizeof *shown);
    int64_t rows = 0;
    int rc;
    if (!width || !numeric || !shown) {
        free(width), free(numeric), free(shown);
        return -1;
    }
    for (int i = 0; i < ncol; i++)
        width[i] = text_width(sqlite3_column_name(st, first + i));
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < ncol; i++) {
            char cell[512];
            table_cell(st, first + i, sqlite3_column_name(st, first + i), cell, sizeof cell);
            int t = sqlite3_column_type(st, first + i);
            if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
                numeric[i] = 1;
            if (t != SQLITE_NULL)
                shown[i] = 1;
            size_t w = text_width(cell);
            if (w > width[i])
                width[i] = w;
            buf_add(&cells, cell, strlen(cell) + 1);
        }
        rows++;
    }
    if (rc != SQLITE_DONE) {
        fprintf(err, "tracedb: %s\n", sqlite3_errmsg(sqlite3_db_handle(st)));
        free(width), free(numeric), free(shown), buf_free(&cells);
        return -1;
    }
    if (rows == 0) /* no rows: show every header */
        for (int i = 0; i < ncol; i++)
            shown[i] = 1;
    int last = -1;
    size_t total = 0;
    for (int i = 0; i < ncol; i++)
        if (shown[i])
            total += width[i] + 2, last = i;
    for (size_t k = 0; k < total; k++)
        fputc('-', out);
    fputc('\n', out);
    for (int i = 0; i < ncol; i++) {
        if (!shown[i])
            continue;
        const char *h = sqlite3_column_name(st, first + i);
        int pad = (int)(width[i] - text_width(h));
        if (numeric[i])
            fprintf(out, "%*s%s  ", pad, "", h);
        else
            fprintf(out, "%s%*s  ", h, i == last ? 0 : pad, "");
    }
    fputc('\n', out);
    for (size_t k = 0; k < total; k++)
        fputc('-', out);
    fputc('\n', out);
    const char *p = cells.p;
    for (int64_t r = 0; r < rows; r++) {
        for (int i = 0; i < ncol; i++) {
            if (shown[i]) {
                int pad = (int)(width[i] - text_width(p));
                if (numeric[i])
                    fprintf(out, "%*s%s  ", pad, "", p);
                else
                    fprintf(out, "%s%*s  ", p, i == last ? 0 : pad, "");
            }
            p += strlen(p) + 1;
        }
        fputc('\n', out);
    }
    for (size_t k = 0; k < total; k++)
        fputc('-', out);
    fputc('\n', out);
    free(width), free(numeric), free(shown), buf_free(&cells);
    return rows;
}

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
        const char *h = sqlite3_column_name(st, first + i);
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
        fprintf(err, "tracedb: %s\n", sqlite3_errmsg(sqlite3_db_handle(st)));
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
            const char *h = sqlite3_column_name(st, first + i);
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
        fprintf(err, "tracedb: %s\n", sqlite3_errmsg(sqlite3_db_handle(st)));
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

int64_t render_query(sqlite3_stmt *st, enum render_format fmt, FILE *out, FILE *err)
{
    return render_query_from(st, fmt, 0, out, err);
}
