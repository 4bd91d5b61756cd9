/* render_cell.c: what a table's cell and header say (render_cell.h): a value as text in its column's unit
 * (times, bytes, percentages, FLOPs, from the column's name), made safe for a terminal, and a report's
 * header in words; the text around a table: a column's name as output shows it, lines wrapped to a width, why a
 * query's step failed. */
#include "render_cell.h"
#include "term_text.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define CELL_MAX 4096  /* longer values are cut in the middle even with --wide */
#define NO_TERMINAL_WIDTH 100 /* what a table fits with no terminal to fit (a pipe, a file) */

int render_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* "[-]I.D..." of r units of 10^-decimals (no point when decimals is 0), then suffix, into dst: 0 when it
 * does not fit. The printf-free tail of the fast paths below. */
static int put_fixed(char *dst, size_t n, uint64_t r, int decimals, int negative, const char *suffix)
{
    char t[48], *p = t + sizeof t;
    for (int d = 0; d < decimals; d++, r /= 10)
        *--p = (char)('0' + r % 10);
    if (decimals)
        *--p = '.';
    do
        *--p = (char)('0' + r % 10);
    while (r /= 10);
    if (negative)
        *--p = '-';
    size_t len = (size_t)(t + sizeof t - p), slen = strlen(suffix);
    if (len + slen + 1 > n)
        return 0;
    memcpy(dst, p, len);
    memcpy(dst + len, suffix, slen + 1);
    return 1;
}

/* v / 10^k rounded to 3 decimals, as "%.3f" prints it, with the unit; 0 when printf must decide (an exact
 * tie, which "%.3f" settles on the double's binary value, or |v| at or past 10^14, where the double's own
 * error could reach the rounding). Away from both, the double is so close to v / 10^k that printf's
 * rounding equals the exact decimal's: a third of each row's cells are times. */
static int time_digits(char *dst, size_t n, int64_t v, int64_t k_pow, const char *unit)
{
    uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v, step = (uint64_t)k_pow / 1000; /* one printed 0.001 */
    if (a >= 100000000000000u || (step > 1 && a % step * 2 == step))
        return 0;
    uint64_t r = step > 1 ? (a + step / 2) / step : a; /* in thousandths of the unit */
    return put_fixed(dst, n, r, 3, v < 0, unit);
}

void render_time(char *dst, size_t n, int64_t ns)
{
    double us = (double)ns / 1000.0;
    if (fabs(us) >= 1e6) {
        if (!time_digits(dst, n, ns, 1000000000, "s"))
            snprintf(dst, n, "%.3fs", us / 1e6);
    } else if (fabs(us) >= 1e3) {
        if (!time_digits(dst, n, ns, 1000000, "ms"))
            snprintf(dst, n, "%.3fms", us / 1e3);
    } else if (!time_digits(dst, n, ns, 1000, "us")) {
        snprintf(dst, n, "%.3fus", us);
    }
}

/* Bytes as PyTorch's tables print them: "%.2f Kb" (Mb, Gb) of b over a power of 1024, or "%lld b".
 * Below 2^53 bytes the quotient is exact (a power of two divides it), so its hundredths are read off the
 * integer, except on an exact tie (printf rounds the binary value's tie to even): the same text as
 * printf's, without printf (a report of 30,000 rows has 120,000 such cells). */
void render_memory(char *dst, size_t n, int64_t b)
{
    const double kb = 1024.0, mb = kb * 1024, gb = mb * 1024;
    double a = fabs((double)b);
    int shift = a >= gb ? 30 : a >= mb ? 20 : a >= kb ? 10 : 0;
    uint64_t m = b < 0 ? -(uint64_t)b : (uint64_t)b;
    if (m < ((uint64_t)1 << 53)) {
        if (shift == 0 && put_fixed(dst, n, m, 0, b < 0, " b"))
            return;
        uint64_t unit = (uint64_t)1 << shift, q = m * 100, r = q >> shift, rem = q & (unit - 1);
        if (shift && rem * 2 != unit &&
            put_fixed(dst, n, r + (rem * 2 > unit), 2, b < 0, shift == 30 ? " Gb" : shift == 20 ? " Mb" : " Kb"))
            return;
    }
    if (a >= gb)
        snprintf(dst, n, "%.2f Gb", (double)b / gb);
    else if (a >= mb)
        snprintf(dst, n, "%.2f Mb", (double)b / mb);
    else if (a >= kb)
        snprintf(dst, n, "%.2f Kb", (double)b / kb);
    else
        snprintf(dst, n, "%lld b", (long long)b);
}

void render_bytes(char *dst, size_t n, int64_t b)
{
    uint64_t m = b < 0 ? -(uint64_t)b : (uint64_t)b;
    if (m < 1000 && put_fixed(dst, n, m, 0, b < 0, " B"))
        return;
    uint64_t step = m >= 1000000000u ? 10000000u : m >= 1000000u ? 10000u : 10u; /* a hundredth of the unit */
    if (!put_fixed(dst, n, m / step + (m % step * 2 >= step), 2, b < 0, step == 10u ? " KB" : step == 10000u ? " MB" : " GB") && n)
        dst[0] = 0; /* (dst too small: no text) */
}

/* A percentage as "%.2f%%" prints it. Below 10^12 the double v * 100 is within 0.02 of the exact
 * product, so where it lies within 0.25 of an integer that integer is the nearest hundredth printf
 * rounds to (a report's percentages come rounded to two decimals: nearly all do); elsewhere, and for a
 * negative value that prints as -0.00, printf decides. */
void render_pct(char *dst, size_t n, double v)
{
    double s = v * 100.0, r = round(s);
    if (fabs(v) < 1e12 && fabs(s - r) < 0.25 && !(r == 0 && signbit(v)) &&
        put_fixed(dst, n, (uint64_t)fabs(r), 2, r < 0, "%"))
        return;
    snprintf(dst, n, "%.2f%%", v);
}

/* FLOPs as people read them: 1.23 GFLOP, 4.56 TFLOP. */
static void render_flops(char *dst, size_t n, double f)
{
    static const char *const unit[] = {"", "K", "M", "G", "T", "P"};
    int u = 0;
    while (fabs(f) >= 1000 && u < 5)
        f /= 1000, u++;
    snprintf(dst, n, u ? "%.2f %sFLOP" : "%.0f FLOP", f, unit[u]);
}

/* Appends t as terminal-safe text (term_char for each character), at most CELL_MAX bytes. */
void render_safe_text(struct buf *b, const char *t, size_t len)
{
    const unsigned char *p = (const unsigned char *)t;
    char piece[8];
    size_t used, start = b->n;
    for (size_t i = 0; i < len && b->n - start < CELL_MAX; i += used) {
        size_t run = 0, room = CELL_MAX - (b->n - start); /* printable ASCII, as it is, a run at a time */
        while (i + run < len && run < room && p[i + run] >= 0x20 && p[i + run] < 0x7f)
            run++;
        if (run) {
            buf_add(b, p + i, run);
            used = run;
            continue;
        }
        size_t pn = term_char(p + i, len - i, piece, &used);
        buf_add(b, piece, pn);
    }
}

/* UTF-8 aware display width (counts code points). */
size_t render_text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* The byte offset of the k-th code point of s. */
size_t render_char_offset(const char *s, size_t k)
{
    size_t i = 0;
    for (; s[i] && k; k--)
        for (i++; ((unsigned char)s[i] & 0xC0) == 0x80; i++)
            ;
    return i;
}

/* The column a name wraps, where it is a function that keeps its argument's unit (of one listed below,
 * any case) called on a column, or on such a call: "median(dur_ns)", "max(k.dur_ns)", "percentile(dur_ns,
 * 99)", "round(avg(dur_ns))" wrap dur_ns (copied into buf, n bytes); anything else (a count, an
 * expression: "count(dur_ns)", "sum(dur_ns) / 1000") wraps nothing: col itself. */
static const char *wrapped_column(const char *col, char *buf, size_t n)
{
    static const char *const keep_unit[] = {"min", "max", "sum", "total", "avg", "median", "percentile",
                                            "stddev", "abs", "round", NULL};
    const char *open = strchr(col, '('), *end = col + strlen(col);
    if (!open || end[-1] != ')')
        return col;
    int known = 0;
    for (int k = 0; keep_unit[k] && !known; k++)
        known = (size_t)(open - col) == strlen(keep_unit[k]) && strncasecmp(col, keep_unit[k], strlen(keep_unit[k])) == 0;
    if (!known)
        return col;
    const char *a = open + 1;
    while (*a == ' ')
        a++;
    if (strncasecmp(a, "distinct ", 9) == 0)
        a += 9;
    const char *z = a; /* the first argument: to a comma or the closing parenthesis, outside parentheses */
    for (int depth = 0; z < end - 1 && (depth > 0 || *z != ','); z++)
        depth += (*z == '(') - (*z == ')');
    while (z > a && z[-1] == ' ')
        z--;
    if (z <= a || (size_t)(z - a) >= n)
        return col;
    memcpy(buf, a, (size_t)(z - a));
    buf[z - a] = 0;
    if (strchr(buf, '(')) { /* a call inside: what it wraps */
        char inner[256];
        const char *w = wrapped_column(buf, inner, sizeof inner);
        if (w == buf)
            return col;
        snprintf(buf, n, "%s", w);
        return buf;
    }
    for (const char *c = buf; *c; c++) /* a column, table-qualified or not; nothing else */
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '.'))
            return col;
    const char *dot = strrchr(buf, '.');
    return dot ? dot + 1 : buf;
}

/* How a column's numbers print, from its name (or the column it wraps): times, bytes, percentages,
 * FLOPs or as they are. */
enum cell_class render_cell_class(const char *name, int report)
{
    char buf[256];
    const char *col = wrapped_column(name, buf, sizeof buf);
    if (render_ends_with(col, "_ns"))
        return CELL_TIME;
    if (render_ends_with(col, "_bytes"))
        return CELL_BYTES;
    if (render_ends_with(col, "_pct"))
        return CELL_PCT;
    if (report && (strcmp(col, "flops") == 0 || render_ends_with(col, "_flops")))
        return CELL_FLOPS;
    return CELL_PLAIN;
}

/* The table text of one value (of type `type`, in a column of class c), appended NUL-terminated to b. */
void render_cell(sqlite3_stmt *st, int i, int type, enum cell_class c, struct buf *b)
{
    char num[64];
    if (type == SQLITE_NULL) {
        buf_add(b, "-", 2);
        return;
    }
    if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
        num[0] = 0;
        if (c == CELL_TIME && type == SQLITE_INTEGER) {
            render_time(num, sizeof num, sqlite3_column_int64(st, i));
        } else if (c == CELL_TIME) { /* a real past int64 (llround's would wrap) is written as SQLite writes it */
            double d = sqlite3_column_double(st, i);
            if (fabs(d) < 9e18)
                render_time(num, sizeof num, (int64_t)llround(d));
        }
        else if (c == CELL_BYTES)
            render_bytes(num, sizeof num, sqlite3_column_int64(st, i));
        else if (c == CELL_PYTORCH_BYTES)
            render_memory(num, sizeof num, sqlite3_column_int64(st, i));
        else if (c == CELL_PCT)
            render_pct(num, sizeof num, sqlite3_column_double(st, i));
        else if (c == CELL_FLOPS)
            render_flops(num, sizeof num, sqlite3_column_double(st, i));
        else if (type == SQLITE_FLOAT)
            snprintf(num, sizeof num, "%.3f", sqlite3_column_double(st, i));
        if (num[0]) {
            buf_add(b, num, strlen(num) + 1);
            return;
        }
    }
    render_safe_text(b, (const char *)sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
    buf_addc(b, 0);
}

/* A report's header in words, as PyTorch's table heads its columns: "self_cpu_ns" -> "Self CPU",
 * "cpu_total_pct" -> "CPU total %", "p99_ns" -> "P99"; the cells carry the units. */
void render_header(const char *col, char *out, size_t n)
{
    static const char *const upper[] = {"cpu", "gpu", "api", "id", "io", "sm", "pid", "tid", "iqr", NULL};
    size_t len = strlen(col), o = 0;
    const char *suffix = "";
    if (render_ends_with(col, "_ns"))
        len -= 3;
    else if (render_ends_with(col, "_bytes"))
        len -= 6;
    else if (render_ends_with(col, "_pct"))
        len -= 4, suffix = " %";
    for (size_t i = 0; i < len && o + 8 < n;) {
        size_t w = i;
        while (w < len && col[w] != '_')
            w++;
        int up = 0;
        for (int k = 0; upper[k]; k++)
            up |= strlen(upper[k]) == w - i && strncmp(col + i, upper[k], w - i) == 0;
        if (o)
            out[o++] = ' ';
        static const char *const said[][2] = {{"flops", "FLOPs"}, /* as PyTorch writes it */
                                               {"gbps", "GB/s"}, {"p999", "P99.9"}};
        int word = -1;
        for (int k = 0; k < 3; k++)
            if (strlen(said[k][0]) == w - i && strncmp(col + i, said[k][0], w - i) == 0)
                word = k;
        if (word >= 0 && o + 8 < n) {
            memcpy(out + o, said[word][1], strlen(said[word][1]));
            o += strlen(said[word][1]), i = w + 1;
            continue;
        }
        for (size_t k = i; k < w && o + 4 < n; k++) {
            char c = col[k];
            if ((up || (o == 0 || (k == i && i == 0))) && c >= 'a' && c <= 'z')
                c = (char)(c - 'a' + 'A');
            out[o++] = c;
        }
        i = w + 1;
    }
    snprintf(out + o, n - o, "%s", suffix);
}

const char *render_unit(const char *col)
{
    switch (render_cell_class(col, 1)) {
    case CELL_TIME:
        return "ns";
    case CELL_BYTES:
    case CELL_PYTORCH_BYTES:
        return "bytes";
    case CELL_PCT:
        return "%";
    case CELL_FLOPS:
        return "FLOPs";
    default:
        return strcmp(col, "gbps") == 0 || render_ends_with(col, "_gbps") ? "GB/s" : "";
    }
}

size_t render_width(FILE *out)
{
    const char *c = getenv("COLUMNS");
    if (c && atoi(c) > 0)
        return (size_t)atoi(c);
    struct winsize ws;
    if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return NO_TERMINAL_WIDTH;
}

const char *render_column_name(sqlite3_stmt *st, int col, const struct render_options *opt)
{
    return col == 0 && opt && opt->first_name ? opt->first_name : sqlite3_column_name(st, col);
}

void render_overflow_said(FILE *err)
{
    fprintf(err, "tracedb: integer overflow: a sum of the database's values passed 2^63 (146 years of ns, 8 EiB), "
                 "which no real trace's do: a damaged, edited or made-up trace or database\n");
}

void render_step_error(sqlite3_stmt *st, FILE *err)
{
    const char *msg = sqlite3_errmsg(sqlite3_db_handle(st));
    if (strcmp(msg, "integer overflow") == 0) /* SQLite's sum() past 2^63 */
        render_overflow_said(err);
    else
        fprintf(err, "tracedb: %s\n", msg);
}

void render_wrapped(FILE *f, const char *text, size_t width, size_t indent)
{
    size_t at = strspn(text, " "); /* the characters on the line so far: its own indentation first */
    int words = 0;                  /* the words on the line so far */
    fprintf(f, "%*s", (int)at, "");
    for (const char *p = text + at; *p;) {
        if (*p == '\n') { /* a line of its own */
            fprintf(f, "\n%*s", (int)indent, "");
            at = indent, words = 0, p++;
            continue;
        }
        size_t n = strcspn(p, " \n"), w = 0;
        for (size_t i = 0; i < n; i++)
            w += ((unsigned char)p[i] & 0xC0) != 0x80;
        if (words && at + 1 + w > width) {
            fprintf(f, "\n%*s", (int)indent, "");
            at = indent, words = 0;
        }
        if (words)
            fputc(' ', f), at++;
        fwrite(p, 1, n, f);
        at += w, words++;
        p += n;
        while (*p == ' ')
            p++;
    }
    fputc('\n', f);
}
