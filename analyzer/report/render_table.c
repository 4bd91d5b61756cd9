/* render_table.c: table output for people (render.h). Reports get PyTorch-like tables: headers in
 * words ("Self CPU", not self_cpu_ns; the cells carry the units), columns empty in every row left out
 * (and those a report hides: ops' device columns on a trace with no GPU work), the table fitted to the terminal by cutting the widest names in the middle (the
 * template arguments' tail stays), and a line saying why when there are no rows. `tracedb sql` gets
 * its columns as named and every value whole. Cells never carry raw control characters. */
#include "render.h"
#include "jsonbuf.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define CELL_MAX 4096  /* longer values are cut in the middle even with --wide */
#define MIN_FIT_WIDTH 20 /* a name column is not narrowed below this to fit the terminal */
#define NO_TERMINAL_WIDTH 100 /* with no terminal to fit (a pipe, a file), names are cut at this width */

static struct render_options opts; /* zero: `tracedb sql` (raw headers, nothing cut or left out) */
static char opts_text[4][512];     /* copies of its strings: a caller's buffer may be gone by the render */

static const char *keep(int slot, const char *s)
{
    if (!s)
        return NULL;
    snprintf(opts_text[slot], sizeof opts_text[slot], "%s", s);
    return opts_text[slot];
}

const char *render_column_name(sqlite3_stmt *st, int col)
{
    return col == 0 && opts.first_name ? opts.first_name : sqlite3_column_name(st, col);
}

void render_configure(const struct render_options *o)
{
    opts = *o;
    opts.hide = keep(0, o->hide);
    opts.columns = keep(1, o->columns);
    opts.empty_hint = keep(2, o->empty_hint);
    opts.first_name = keep(3, o->first_name);
}

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

/* FLOPs as people read them: 1.23 GFLOP, 4.56 TFLOP. */
static void render_flops(char *dst, size_t n, double f)
{
    static const char *const unit[] = {"", "K", "M", "G", "T", "P"};
    int u = 0;
    while (fabs(f) >= 1000 && u < 5)
        f /= 1000, u++;
    snprintf(dst, n, u ? "%.2f %sFLOP" : "%.0f FLOP", f, unit[u]);
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

/* Appends t as terminal-safe text (table_char for each character), at most CELL_MAX bytes. */
static void table_text(struct buf *b, const char *t, size_t len)
{
    const unsigned char *p = (const unsigned char *)t;
    char piece[8];
    size_t used, start = b->n;
    for (size_t i = 0; i < len && b->n - start < CELL_MAX; i += used) {
        size_t pn = table_char(p + i, len - i, piece, &used);
        buf_add(b, piece, pn);
    }
}

/* UTF-8 aware display width (counts code points). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* The byte offset of the k-th code point of s. */
static size_t char_offset(const char *s, size_t k)
{
    size_t i = 0;
    for (; s[i] && k; k--)
        for (i++; ((unsigned char)s[i] & 0xC0) == 0x80; i++)
            ;
    return i;
}

/* The table text of one value, appended NUL-terminated to b. */
static void table_cell(sqlite3_stmt *st, int i, const char *col, struct buf *b)
{
    char num[64];
    int type = sqlite3_column_type(st, i);
    if (type == SQLITE_NULL) {
        buf_add(b, "-", 2);
        return;
    }
    if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
        num[0] = 0;
        if (ends_with(col, "_ns"))
            render_time(num, sizeof num, (int64_t)llround(sqlite3_column_double(st, i)));
        else if (ends_with(col, "_bytes"))
            render_memory(num, sizeof num, sqlite3_column_int64(st, i));
        else if (ends_with(col, "_pct"))
            snprintf(num, sizeof num, "%.2f%%", sqlite3_column_double(st, i));
        else if (opts.report && (strcmp(col, "flops") == 0 || ends_with(col, "_flops")))
            render_flops(num, sizeof num, sqlite3_column_double(st, i));
        else if (type == SQLITE_FLOAT)
            snprintf(num, sizeof num, "%.3f", sqlite3_column_double(st, i));
        if (num[0]) {
            buf_add(b, num, strlen(num) + 1);
            return;
        }
    }
    table_text(b, (const char *)sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
    buf_addc(b, 0);
}

/* A report's header in words, as PyTorch's table heads its columns: "self_cpu_ns" -> "Self CPU",
 * "cpu_total_pct" -> "CPU total %", "p99_ns" -> "P99"; the cells carry the units. */
static void header_words(const char *col, char *out, size_t n)
{
    static const char *const upper[] = {"cpu", "gpu", "api", "id", "io", "sm", "pid", "tid", "iqr", NULL};
    size_t len = strlen(col), o = 0;
    const char *suffix = "";
    if (ends_with(col, "_ns"))
        len -= 3;
    else if (ends_with(col, "_bytes"))
        len -= 6;
    else if (ends_with(col, "_pct"))
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
        if (w - i == 5 && strncmp(col + i, "flops", 5) == 0 && o + 8 < n) { /* as PyTorch writes it */
            memcpy(out + o, "FLOPs", 5);
            o += 5, i = w + 1;
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

/* The terminal's width when out is one ($COLUMNS first), else 0: no fitting. */
static size_t terminal_width(FILE *out)
{
    const char *c = getenv("COLUMNS");
    if (c && atoi(c) > 0)
        return (size_t)atoi(c);
    struct winsize ws;
    if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 0;
}

/* Appends the first n display characters of s. */
static void add_chars(struct buf *b, const char *s, size_t n)
{
    buf_add(b, s, char_offset(s, n));
}

/* s (sw characters wide) in w < sw characters: its head and tail (two thirds: where template arguments and
 * overload suffixes tell names apart) around "...". */
static void add_middle_cut(struct buf *b, const char *s, size_t sw, size_t w)
{
    if (w < 5) {
        add_chars(b, s, w);
        return;
    }
    size_t tail = (w - 3) * 2 / 3, head = w - 3 - tail;
    add_chars(b, s, head);
    buf_add(b, "...", 3);
    buf_add(b, s + char_offset(s, sw - tail), strlen(s + char_offset(s, sw - tail)));
}

/* Where a C++ signature's parameter list opens: the first '(' outside template arguments that does not
 * open "(anonymous namespace)"; its character index, or 0 when there is none. */
static size_t params_start(const char *s)
{
    int angle = 0;
    size_t k = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '<')
            angle++;
        else if (*p == '>' && angle > 0)
            angle--;
        else if (*p == '(' && angle == 0 && strncmp(p, "(anonymous namespace)", 21) != 0)
            return k;
        k += ((unsigned char)*p & 0xC0) != 0x80;
    }
    return 0;
}

/* s as it shows in w characters, NUL-terminated in b (emptied first). A longer value is cut: a C++
 * signature keeps its name and template arguments and gives up its parameter list first
 * ("void f<float, 5ul>(at::Ten...int)"), anything else is cut in the middle. */
static void cut_cell(const char *s, size_t w, struct buf *b)
{
    size_t sw = text_width(s), p = params_start(s);
    b->n = 0;
    if (sw <= w) {
        buf_add(b, s, strlen(s));
    } else if (p && p + 5 <= w) { /* the whole name, and the parameters cut in the middle */
        add_chars(b, s, p);
        add_middle_cut(b, s + char_offset(s, p), sw - p, w - p);
    } else if (p && w >= 10) { /* the name itself cut, the parameters elided */
        char *name = strndup(s, char_offset(s, p));
        if (name)
            add_middle_cut(b, name, p, w - 5);
        free(name);
        buf_add(b, "(...)", 5);
    } else {
        add_middle_cut(b, s, sw, w);
    }
    buf_addc(b, 0);
}

/* s cut to w characters so that character d shows, where it first differs from the names nearest it:
 * its first and last quarter around a window centred on d; or, when that is not enough (pass 1), all w
 * characters as one window ending just after d, where every earlier difference has its best chance. */
static void cut_around(const char *s, size_t w, size_t d, int pass, struct buf *b)
{
    size_t sw = text_width(s);
    b->n = 0;
    if (pass == 1) {
        size_t end = d + 3 < sw ? d + 3 : sw, win = w - 6, from = end > win ? end - win : 0;
        if (from)
            buf_add(b, "...", 3);
        add_chars(b, s + char_offset(s, from), end - from);
        if (end < sw)
            buf_add(b, "...", 3);
        buf_addc(b, 0);
        return;
    }
    size_t edge = (w - 6) / 4, win = w - 6 - 2 * edge;
    size_t from = d > win / 2 ? d - win / 2 : 0;
    if (from < edge)
        from = edge;
    if (from + win > sw - edge)
        from = sw - edge - win;
    add_chars(b, s, edge);
    buf_add(b, "...", 3);
    add_chars(b, s + char_offset(s, from), win);
    buf_add(b, "...", 3);
    buf_add(b, s + char_offset(s, sw - edge), strlen(s + char_offset(s, sw - edge)));
    buf_addc(b, 0);
}

/* Writes a cell padded to w. */
static void put_cell(FILE *out, const char *s, size_t w, int right, int last)
{
    size_t sw = text_width(s);
    if (right && sw < w)
        fprintf(out, "%*s", (int)(w - sw), "");
    fputs(s, out);
    if (!right && !last && sw < w)
        fprintf(out, "%*s", (int)(w - sw), "");
    fputs("  ", out);
}

struct shown_cell {
    const char *full, *disp;
    int64_t row;
    size_t d; /* where it first differs from the names nearest it (the longest common prefix, plus one) */
};

static int cmp_disp(const void *a, const void *b)
{
    return strcmp(((const struct shown_cell *)a)->disp, ((const struct shown_cell *)b)->disp);
}

static int cmp_full(const void *a, const void *b)
{
    return strcmp(((const struct shown_cell *)a)->full, ((const struct shown_cell *)b)->full);
}

/* The first character where a and b differ. */
static size_t first_difference(const char *a, const char *b)
{
    size_t k = 0;
    for (; *a && *a == *b; a++, b++)
        k += ((unsigned char)*a & 0xC0) != 0x80;
    return k;
}

/* The shown text of column c's cells (cut to width w) into disp[] (strdup'd). Different values that cut
 * alike are cut again to show where each first differs from the names nearest it (a window on that
 * character, then one starting at it), so that no two kernels print the same. -1 when out of memory. */
static int column_cuts(const char *cells, const size_t *offs, int64_t rows, int ncol, int c, size_t w, char **disp)
{
    struct buf b = {0};
    struct shown_cell *v = malloc((size_t)rows * sizeof *v + 1);
    if (!v)
        return -1;
    for (int64_t r = 0; r < rows; r++) {
        cut_cell(cells + offs[r * ncol + c], w, &b);
        disp[r] = strdup(b.p ? b.p : "");
        v[r] = (struct shown_cell){cells + offs[r * ncol + c], disp[r], r, 0};
    }
    qsort(v, (size_t)rows, sizeof *v, cmp_full);
    for (int64_t r = 0; r < rows; r++) {
        size_t a = r > 0 ? first_difference(v[r].full, v[r - 1].full) : 0;
        size_t z = r + 1 < rows ? first_difference(v[r].full, v[r + 1].full) : 0;
        v[r].d = a > z ? a : z;
    }
    for (int pass = 0; pass < 2 && w >= 24; pass++) {
        qsort(v, (size_t)rows, sizeof *v, cmp_disp);
        for (int64_t r = 0, e; r < rows; r = e) {
            int differ = 0;
            for (e = r + 1; e < rows && strcmp(v[e].disp, v[r].disp) == 0; e++)
                differ |= strcmp(v[e].full, v[r].full) != 0;
            for (int64_t k = r; differ && k < e; k++) { /* a group of different names shown alike */
                cut_around(v[k].full, w, v[k].d, pass, &b);
                free(disp[v[k].row]);
                disp[v[k].row] = strdup(b.p);
                v[k].disp = disp[v[k].row];
            }
        }
    }
    free(v);
    buf_free(&b);
    return 0;
}

/* Whether a report hides this column: its name holds one of opts.hide's words. */
static int hidden(const char *col)
{
    for (const char *p = opts.hide; p && *p;) {
        size_t len = strcspn(p, ",");
        for (const char *c = col; len && *c; c++)
            if (strncmp(c, p, len) == 0)
                return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* Which columns show, in which order, into order[] (their count, or -1 for an unknown --columns name,
 * printed). A report leaves out columns empty in every row and those it hides; --columns chooses. */
static int visible_columns(sqlite3_stmt *st, int first, int ncol, const int *shown, int64_t rows,
                           int *order, FILE *err)
{
    int n = 0;
    if (opts.report && opts.columns && *opts.columns) {
        for (const char *p = opts.columns; *p;) {
            size_t len = strcspn(p, ",");
            int found = -1;
            for (int i = 0; i < ncol && found < 0; i++)
                if (strlen(render_column_name(st, first + i)) == len && strncmp(render_column_name(st, first + i), p, len) == 0)
                    found = i;
            if (found < 0) {
                fprintf(err, "tracedb: unknown --columns name '%.*s' (one of:", (int)len, p);
                for (int i = 0; i < ncol; i++)
                    fprintf(err, " %s", render_column_name(st, first + i));
                fprintf(err, ")\n");
                return -1;
            }
            order[n++] = found;
            p += len + (p[len] == ',');
        }
        return n;
    }
    for (int i = 0; i < ncol; i++)
        if (rows == 0 || (shown[i] && !(opts.report && hidden(sqlite3_column_name(st, first + i)))))
            order[n++] = i;
    return n;
}

int64_t render_table(sqlite3_stmt *st, int first, FILE *out, FILE *err)
{
    int ncol = sqlite3_column_count(st) - first;
    struct buf cells = {0}; /* every cell, NUL-terminated, row after row */
    size_t *width = calloc((size_t)ncol + 1, sizeof *width);
    int *numeric = calloc((size_t)ncol + 1, sizeof *numeric), *shown = calloc((size_t)ncol + 1, sizeof *shown);
    int *order = calloc((size_t)ncol + 1, sizeof *order);
    size_t *offs = NULL, noffs = 0, capoffs = 0;
    char **heads = NULL; /* the shown columns' headers */
    char **disp = NULL;  /* each shown cell as it prints */
    int64_t rows = 0, result = -1;
    int rc;
    char head[128];
    if (!width || !numeric || !shown || !order)
        goto done;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < ncol; i++) {
            if (noffs == capoffs) {
                capoffs = capoffs ? capoffs * 2 : 256;
                size_t *n = realloc(offs, capoffs * sizeof *n);
                if (!n)
                    goto done;
                offs = n;
            }
            offs[noffs++] = cells.n;
            int t = sqlite3_column_type(st, first + i);
            table_cell(st, first + i, sqlite3_column_name(st, first + i), &cells);
            numeric[i] |= t == SQLITE_INTEGER || t == SQLITE_FLOAT;
            shown[i] |= t != SQLITE_NULL;
        }
        rows++;
    }
    if (rc != SQLITE_DONE) {
        fprintf(err, "tracedb: %s\n", sqlite3_errmsg(sqlite3_db_handle(st)));
        goto done;
    }
    if (rows == 0 && opts.report && opts.empty_hint) { /* say why, not an empty frame */
        fprintf(out, "(no rows: %s)\n", opts.empty_hint);
        result = 0;
        goto done;
    }
    int nshow = visible_columns(st, first, ncol, shown, rows, order, err);
    if (nshow < 0)
        goto done;
    heads = calloc((size_t)ncol + 1, sizeof *heads);
    if (!heads)
        goto done;
    for (int k = 0; k < nshow; k++) {
        int i = order[k];
        const char *name = render_column_name(st, first + i);
        if (opts.report) {
            header_words(name, head, sizeof head);
            for (int e = 0; e < k; e++) /* "peak_allocated_bytes", "peak_allocated_ns": "Peak allocated time" */
                if (strcmp(heads[order[e]], head) == 0)
                    strncat(head, ends_with(name, "_ns") ? " time" : ends_with(name, "_bytes") ? " bytes" : " (2)",
                            sizeof head - strlen(head) - 1);
        }
        heads[i] = strdup(opts.report ? head : name);
        if (!heads[i])
            goto done;
        width[i] = text_width(heads[i]);
        for (int64_t r = 0; r < rows; r++) {
            size_t w = text_width(cells.p + offs[r * ncol + i]);
            if (w > width[i])
                width[i] = w;
        }
    }
    size_t total = 0, cols = opts.report && !opts.wide ? terminal_width(out) : 0;
    if (opts.report && !opts.wide && !cols) /* no terminal: no table wider than needed for long names */
        for (int k = 0; k < nshow; k++)
            if (!numeric[order[k]] && width[order[k]] > NO_TERMINAL_WIDTH)
                width[order[k]] = NO_TERMINAL_WIDTH;
    for (int k = 0; k < nshow; k++)
        total += width[order[k]] + 2;
    while (cols && total > cols) { /* narrow the widest text column, never below MIN_FIT_WIDTH */
        int widest = -1;
        for (int k = 0; k < nshow; k++)
            if (!numeric[order[k]] && width[order[k]] > MIN_FIT_WIDTH && (widest < 0 || width[order[k]] > width[widest]))
                widest = order[k];
        if (widest < 0)
            break;
        size_t cut = total - cols, room = width[widest] - MIN_FIT_WIDTH;
        width[widest] -= cut < room ? cut : room;
        total -= cut < room ? cut : room;
    }
    for (size_t k = 0; k < total; k++)
        fputc('-', out);
    fputc('\n', out);
    disp = calloc((size_t)(rows * ncol) + 1, sizeof *disp);
    if (!disp)
        goto done;
    for (int k = 0; k < nshow; k++) {
        int c = order[k];
        char **col = malloc((size_t)rows * sizeof *col + 1);
        if (!col || column_cuts(cells.p, offs, rows, ncol, c, width[c], col) != 0) {
            free(col);
            goto done;
        }
        for (int64_t r = 0; r < rows; r++)
            disp[r * ncol + c] = col[r];
        free(col);
        char *h = strdup(heads[c]);
        if (h && text_width(h) > width[c]) { /* a header wider than its narrowed column */
            struct buf b = {0};
            cut_cell(h, width[c], &b);
            free(h);
            h = b.p;
        }
        free(heads[c]);
        heads[c] = h;
        put_cell(out, heads[c] ? heads[c] : "", width[c], numeric[c], k == nshow - 1);
    }
    fputc('\n', out);
    for (size_t k = 0; k < total; k++)
        fputc('-', out);
    fputc('\n', out);
    int64_t printed = opts.report && opts.max_rows > 0 && rows > opts.max_rows ? opts.max_rows : rows;
    for (int64_t r = 0; r < printed; r++) {
        for (int k = 0; k < nshow; k++)
            put_cell(out, disp[r * ncol + order[k]] ? disp[r * ncol + order[k]] : "", width[order[k]],
                     numeric[order[k]], k == nshow - 1);
        fputc('\n', out);
    }
    for (size_t k = 0; k < total; k++)
        fputc('-', out);
    fputc('\n', out);
    if (printed < rows)
        fprintf(out, "(%lld more rows: --limit N to see more)\n", (long long)(rows - printed));
    result = rows;
done:
    for (int i = 0; heads && i < ncol; i++)
        free(heads[i]);
    free(heads);
    for (int64_t i = 0; disp && i < rows * ncol; i++)
        free(disp[i]);
    free(disp);
    free(width), free(numeric), free(shown), free(order), free(offs), buf_free(&cells);
    return result;
}
