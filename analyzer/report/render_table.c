/* render_table.c: table output for people (render.h). Reports get PyTorch-like tables: headers in
 * words ("Self CPU", not self_cpu_ns; the cells carry the units: render_cell.c), columns empty in every
 * row left out (and those a report hides: ops' device columns on a trace with no GPU work), the table
 * fitted to the terminal by cutting the widest names in the middle (the template arguments' tail stays),
 * and a line saying why when there are no rows. `tracedb sql` gets its columns as named and every value
 * whole. Neither cells nor headers carry raw control characters. */
#include "render_cell.h"
#include "strmap.h"
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define MIN_FIT_WIDTH 20 /* a name column is not narrowed below this to fit the terminal */
#define NAME_FIT_WIDTH 40 /* ... nor below this before a column is left out instead */
#define TABLE_MAX_ROWS 200000 /* `tracedb sql`'s table is read whole before it prints (its widths): held to this many rows */

static const struct render_options no_options; /* `tracedb sql`'s: raw headers, nothing cut or left out */

/* Appends the first n display characters of s. */
static void add_chars(struct buf *b, const char *s, size_t n)
{
    buf_add(b, s, render_char_offset(s, n));
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
    buf_add(b, s + render_char_offset(s, sw - tail), strlen(s + render_char_offset(s, sw - tail)));
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
 * ("void f<float, 5ul>(at::Ten...int)"), anything else is cut in the middle. 1 when cut, else 0. */
static int cut_cell(const char *s, size_t w, struct buf *b)
{
    size_t sw = render_text_width(s);
    b->n = 0;
    if (sw <= w) {
        buf_add(b, s, strlen(s));
        buf_addc(b, 0);
        return 0;
    }
    size_t p = params_start(s);
    if (p && p + 5 <= w) { /* the whole name, and the parameters cut in the middle */
        add_chars(b, s, p);
        add_middle_cut(b, s + render_char_offset(s, p), sw - p, w - p);
    } else if (p && w >= 10) { /* the name itself cut, the parameters elided */
        char *name = strndup(s, render_char_offset(s, p));
        if (name)
            add_middle_cut(b, name, p, w - 5);
        free(name);
        buf_add(b, "(...)", 5);
    } else {
        add_middle_cut(b, s, sw, w);
    }
    buf_addc(b, 0);
    return 1;
}

/* s cut to w characters so that character d shows, where it first differs from the names nearest it:
 * its first and last quarter around a window centred on d; or, when that is not enough (pass 1), all w
 * characters as one window ending just after d, where every earlier difference has its best chance. */
static void cut_around(const char *s, size_t w, size_t d, int pass, struct buf *b)
{
    size_t sw = render_text_width(s);
    b->n = 0;
    if (pass == 1) {
        size_t end = d + 3 < sw ? d + 3 : sw, win = w - 6, from = end > win ? end - win : 0;
        if (from)
            buf_add(b, "...", 3);
        add_chars(b, s + render_char_offset(s, from), end - from);
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
    add_chars(b, s + render_char_offset(s, from), win);
    buf_add(b, "...", 3);
    buf_add(b, s + render_char_offset(s, sw - edge), strlen(s + render_char_offset(s, sw - edge)));
    buf_addc(b, 0);
}

/* The table's text on its way out: gathered here and written 64 KiB at a time (a row of 16 cells was
 * some 50 stdio calls, each taking the stream's lock: a fifth of `ops --by-step`'s printing). */
struct out_block {
    FILE *f;
    size_t n;
    char a[65536];
};

static void out_flush(struct out_block *o)
{
    if (o->n)
        fwrite(o->a, 1, o->n, o->f);
    o->n = 0;
}

static void out_put(struct out_block *o, const char *s, size_t n)
{
    if (n > sizeof o->a - o->n) {
        out_flush(o);
        if (n > sizeof o->a) {
            fwrite(s, 1, n, o->f);
            return;
        }
    }
    memcpy(o->a + o->n, s, n);
    o->n += n;
}

static void put_blanks(struct out_block *o, size_t n)
{
    static const char blanks[64] = "                                                                ";
    for (; n > sizeof blanks; n -= sizeof blanks)
        out_put(o, blanks, sizeof blanks);
    out_put(o, blanks, n);
}

/* Writes a cell padded to w. */
static void put_cell(struct out_block *o, const char *s, size_t w, int right, int last)
{
    size_t sw = 0, len = 0; /* its width in code points, and its bytes */
    for (; s[len]; len++)
        sw += ((unsigned char)s[len] & 0xC0) != 0x80;
    if (right && sw < w)
        put_blanks(o, w - sw);
    out_put(o, s, len);
    if (!right && !last && sw < w)
        put_blanks(o, w - sw);
    out_put(o, "  ", 2);
}

/* A table being rendered: every cell as text, then which columns show, their headers and widths. Its
 * memory is the cells' text and 8 bytes a row (a pointer a cell cost 16: 760 MB for 2.8 M rows of 9). */
struct table {
    sqlite3_stmt *st;
    const struct render_options *opt; /* how it looks */
    int first, ncol, nshow;
    int64_t rows;
    int held;                     /* the query had more than TABLE_MAX_ROWS rows: the table stops there */
    struct buf cells;             /* every cell, NUL-terminated, row after row */
    size_t *row_at, caprows;      /* where each row's first cell starts in cells */
    size_t *cell_width;           /* each column's widest cell */
    size_t *width, total;         /* each column's width; the table's, with the gaps */
    int *numeric, *shown, *order; /* right-aligned; holds a value; the shown columns in order */
    int *dropped, ndropped;       /* columns left out to fit the terminal, in the order they would show */
    size_t cols;                  /* the terminal's width fitted to (0: none) */
    size_t rule;                  /* the rules' width: the table's, or the terminal's where that is less */
    char **heads;                 /* the shown columns' headers */
    char ***disp;                 /* a column with cut cells: each cell as it prints (NULL: as in cells) */
};

/* Row r's cell in column c: the c-th NUL-terminated text of the row. */
static const char *cell_at(const struct table *t, int64_t r, int c)
{
    const char *p = t->cells.p + t->row_at[r];
    for (int k = 0; k < c; k++)
        p += strlen(p) + 1;
    return p;
}

/* A distinct text of a column: its cells show alike (most repeat: a name in every step). */
struct shown_cell {
    const char *full, *disp; /* disp: made[] text while made, else full */
    size_t d;                /* where it first differs from the names nearest it (the longest common prefix, plus one) */
    int made;                /* disp is cut (text in *cut) */
    char *cut;
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

/* The shown text of column c's cells cut to width w into *out (a row's strdup'd text; NULL for a cell
 * that shows whole, as most do: a number, a short name), or *out NULL when every cell shows whole.
 * Different values that cut alike are cut again to show where each first differs from the names
 * nearest it (a window on that character, then one starting at it), so that no two kernels print the
 * same (a name in many rows, a kernel in every step, is cut alike in each). Worked on the column's
 * distinct values, each once. -1 when out of memory. */
static int column_cuts(const struct table *t, int c, size_t w, char ***out)
{
    *out = NULL;
    if (t->cell_width[c] <= w) /* every cell shown whole: none reads as another */
        return 0;
    int64_t rows = t->rows;
    struct buf b = {0};
    struct strmap seen; /* a text -> its place in v */
    strmap_init(&seen);
    struct shown_cell *v = malloc((size_t)rows * sizeof *v + 1);
    size_t *of = malloc((size_t)rows * sizeof *of + 1), *at = malloc((size_t)rows * sizeof *at + 1), n = 0;
    char **disp = calloc((size_t)rows + 1, sizeof *disp);
    int oom = !v || !of || !at || !disp;
    for (int64_t r = 0; !oom && r < rows; r++) {
        const char *full = cell_at(t, r, c);
        size_t len = strlen(full);
        int64_t k = strmap_get(&seen, full, len);
        if (k < 0) {
            k = (int64_t)n;
            v[n] = (struct shown_cell){full, full, 0, 0, NULL};
            if (render_text_width(full) > w) {
                cut_cell(full, w, &b);
                oom |= !(v[n].cut = strdup(b.p ? b.p : ""));
                v[n].disp = v[n].cut ? v[n].cut : full, v[n].made = 1;
            }
            oom |= strmap_put(&seen, full, len, k) != 0;
            n++;
        }
        of[r] = (size_t)k;
    }
    if (oom)
        goto done;
    qsort(v, n, sizeof *v, cmp_full);
    for (size_t i = 0; i < n; i++) { /* the names nearest it: the other texts (the same name in another row is no other) */
        size_t a = i > 0 ? first_difference(v[i].full, v[i - 1].full) : 0;
        size_t z = i + 1 < n ? first_difference(v[i].full, v[i + 1].full) : 0;
        v[i].d = a > z ? a : z;
    }
    for (int pass = 0; pass < 2 && w >= 24; pass++) {
        qsort(v, n, sizeof *v, cmp_disp); /* (every distinct text differs: a group of two or more is alike) */
        for (size_t i = 0, e; i < n; i = e) {
            for (e = i + 1; e < n && strcmp(v[e].disp, v[i].disp) == 0; e++)
                ;
            for (size_t k = i; e - i > 1 && k < e; k++) { /* a group of different names shown alike */
                cut_around(v[k].full, w, v[k].d, pass, &b);
                free(v[k].cut);
                oom |= !(v[k].cut = strdup(b.p));
                v[k].disp = v[k].cut ? v[k].cut : "", v[k].made = 1;
            }
        }
    }
    for (size_t i = 0; i < n; i++) /* each text's place in v, from its first row's */
        at[strmap_get(&seen, v[i].full, strlen(v[i].full))] = i;
    for (int64_t r = 0; !oom && r < rows; r++) {
        const struct shown_cell *x = &v[at[of[r]]];
        if (x->made)
            oom |= !(disp[r] = strdup(x->disp));
    }
done:
    for (int64_t r = 0; oom && disp && r < rows; r++) /* nothing half made is left */
        free(disp[r]);
    if (oom)
        free(disp), disp = NULL;
    *out = disp;
    for (size_t i = 0; v && i < n; i++)
        free(v[i].cut);
    free(v), free(of), free(at);
    strmap_free(&seen);
    buf_free(&b);
    return oom ? -1 : 0;
}

/* Whether a report hides this column: its name holds one of hide's words (comma-separated). */
static int hidden(const char *hide, const char *col)
{
    for (const char *p = hide; p && *p;) {
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
static int visible_columns(const struct render_options *opt, sqlite3_stmt *st, int first, int ncol, const int *shown,
                           int64_t rows, int *order, FILE *err)
{
    int n = 0;
    if (opt->report && opt->columns && *opt->columns) {
        for (const char *p = opt->columns; *p;) {
            size_t len = strcspn(p, ",");
            int found = -1;
            for (int i = 0; i < ncol && found < 0; i++)
                if (strlen(render_column_name(st, first + i, opt)) == len && strncmp(render_column_name(st, first + i, opt), p, len) == 0)
                    found = i;
            if (found < 0) {
                fprintf(err, "tracedb: unknown --columns name '%.*s' (one of:", (int)len, p);
                for (int i = 0; i < ncol; i++)
                    fprintf(err, " %s", render_column_name(st, first + i, opt));
                fprintf(err, ")\n");
                return -1;
            }
            order[n++] = found;
            p += len + (p[len] == ',');
        }
        return n;
    }
    for (int i = 0; i < ncol; i++)
        if (rows == 0 || !opt->report || (shown[i] && !hidden(opt->hide, sqlite3_column_name(st, first + i))))
            order[n++] = i;
    return n;
}

/* Steps the statement to its end, keeping every cell's text. 0, or -1 (an SQL error printed). */
static int table_collect(struct table *t, FILE *err)
{
    int rc;
    enum cell_class *cls = malloc(((size_t)t->ncol + 1) * sizeof *cls);
    if (!cls) {
        fprintf(err, "tracedb: out of memory\n");
        return -1;
    }
    for (int i = 0; i < t->ncol; i++)
        cls[i] = render_cell_class(sqlite3_column_name(t->st, t->first + i), t->opt->report);
    for (int i = 0; t->opt->pytorch_bytes && i < t->ncol; i++)
        if (cls[i] == CELL_BYTES)
            cls[i] = CELL_PYTORCH_BYTES;
    while ((rc = sqlite3_step(t->st)) == SQLITE_ROW) {
        if (!t->opt->report && t->rows == TABLE_MAX_ROWS) { /* (a report reads its rows whole, to count them) */
            t->held = 1;
            rc = SQLITE_DONE;
            break;
        }
        if ((size_t)t->rows == t->caprows) {
            t->caprows = t->caprows ? t->caprows * 2 : 256;
            size_t *n = realloc(t->row_at, t->caprows * sizeof *n);
            if (!n) {
                free(cls);
                fprintf(err, "tracedb: out of memory after %lld rows of the table (--format csv streams them)\n",
                        (long long)t->rows);
                return -1;
            }
            t->row_at = n;
        }
        t->row_at[t->rows] = t->cells.n;
        for (int i = 0; i < t->ncol; i++) {
            size_t at = t->cells.n;
            int type = sqlite3_column_type(t->st, t->first + i);
            render_cell(t->st, t->first + i, type, cls[i], &t->cells);
            if (t->cells.n <= at || t->cells.p[t->cells.n - 1] != 0) { /* out of memory: the cell is not whole */
                free(cls);
                fprintf(err, "tracedb: out of memory after %lld rows of the table (--format csv streams them)\n",
                        (long long)t->rows);
                return -1;
            }
            size_t w = render_text_width(t->cells.p + at);
            t->cell_width[i] = w > t->cell_width[i] ? w : t->cell_width[i];
            t->numeric[i] |= type == SQLITE_INTEGER || type == SQLITE_FLOAT;
            t->shown[i] |= type != SQLITE_NULL;
        }
        t->rows++;
    }
    free(cls);
    if (rc != SQLITE_DONE) {
        render_step_error(t->st, err);
        return -1;
    }
    return 0;
}

/* The shown columns' headers (in words for a report; two alike told apart) and the widths their cells
 * need, each header as terminal-safe text. 0 or -1. */
static int table_headers(struct table *t)
{
    char head[128];
    t->heads = calloc((size_t)t->ncol + 1, sizeof *t->heads);
    if (!t->heads)
        return -1;
    for (int k = 0; k < t->nshow; k++) {
        int i = t->order[k];
        const char *name = render_column_name(t->st, t->first + i, t->opt);
        if (t->opt->report) {
            render_header(name, head, sizeof head);
            for (int e = 0; e < k; e++) /* "peak_allocated_bytes", "peak_allocated_ns": "Peak allocated time" */
                if (strcmp(t->heads[t->order[e]], head) == 0)
                    strncat(head, render_ends_with(name, "_ns") ? " time" : render_ends_with(name, "_bytes") ? " bytes" : " (2)",
                            sizeof head - strlen(head) - 1);
        }
        /* terminal-safe as the cells are: a view's column may be named "\e]0;...\a" by whoever made the file */
        struct buf b = {0};
        const char *shown_name = t->opt->report ? head : name ? name : "";
        render_safe_text(&b, shown_name, strlen(shown_name));
        if (buf_addc(&b, 0) != 0) {
            buf_free(&b);
            return -1;
        }
        t->heads[i] = b.p;
        t->width[i] = render_text_width(t->heads[i]);
        if (t->cell_width[i] > t->width[i])
            t->width[i] = t->cell_width[i];
    }
    return 0;
}

/* Narrows the widest text column, then the next, until the table fits cols or none is above floor. */
static void narrow_names(struct table *t, size_t cols, size_t floor)
{
    while (cols && t->total > cols) {
        int widest = -1;
        for (int k = 0; k < t->nshow; k++) {
            int c = t->order[k];
            if (!t->numeric[c] && t->width[c] > floor && (widest < 0 || t->width[c] > t->width[widest]))
                widest = c;
        }
        if (widest < 0)
            break;
        size_t cut = t->total - cols, room = t->width[widest] - floor;
        t->width[widest] -= cut < room ? cut : room;
        t->total -= cut < room ? cut : room;
    }
}

/* Whether every cell of column c reads as zero ("0", "0 b", "0.000us", or empty). */
static int column_all_zero(const struct table *t, int c)
{
    for (int64_t r = 0; r < t->rows; r++) {
        const char *cell = cell_at(t, r, c);
        if (*cell && strtod(cell, NULL) != 0)
            return 0;
    }
    return 1;
}

/* How readily a column is left out to fit: one of zeros first, then percentages (the times beside them
 * say it), then spreads, extremes and averages (a total over calls), then any other figure; when that is not enough, then a text
 * column, then the sort key; 6: never (the first column shown). zero[c]: column c reads zero in every
 * row. */
static int leave_out_rank(const struct table *t, int k, const uint8_t *zero)
{
    int c = t->order[k];
    const char *name = render_column_name(t->st, t->first + c, t->opt);
    if (k == 0)
        return 6;
    if (t->opt->keep && strcmp(name, t->opt->keep) == 0)
        return 5;
    if (!t->numeric[c])
        return 4;
    if (zero[c])
        return 0;
    if (render_ends_with(name, "_pct") || strstr(name, "_pct_"))
        return 1;
    int percentile = (name[0] == 'p' && name[1] >= '0' && name[1] <= '9') || strstr(name, "_p9"); /* p90_ns */
    if (percentile || strstr(name, "stddev") || strstr(name, "min") || strstr(name, "max") || strstr(name, "avg"))
        return 2;
    return 3;
}

/* Leaves out the columns ranked below `below`, the least telling and rightmost first, until the table
 * fits cols. */
static void leave_out(struct table *t, size_t cols, const uint8_t *zero, int below)
{
    while (t->total > cols) {
        int out_k = -1, best = below;
        for (int k = 0; k < t->nshow; k++) {
            int r = leave_out_rank(t, k, zero);
            if (r < best || (r == best && r < below))
                best = r, out_k = k;
        }
        if (out_k < 0)
            break;
        int c = t->order[out_k];
        t->total -= t->width[c] + 2;
        int at = t->ndropped++; /* kept in the order they would show */
        while (at > 0 && t->dropped[at - 1] > c)
            t->dropped[at] = t->dropped[at - 1], at--;
        t->dropped[at] = c;
        memmove(&t->order[out_k], &t->order[out_k + 1], (size_t)(t->nshow - out_k - 1) * sizeof *t->order);
        t->nshow--;
    }
}

/* A report's table fitted to the terminal's width (render_width: 100 with none): the widest text column
 * narrows first, to NAME_FIT_WIDTH; then figures are left out, the least telling and rightmost first;
 * then names narrow to MIN_FIT_WIDTH; then, where that is still too wide, text columns and at last the
 * sort key are left out too. Nothing is left out where --columns chose them, nothing fitted with
 * --wide. Sets t->total. */
static void table_fit(struct table *t, FILE *out)
{
    size_t cols = t->cols = t->opt->report && !t->opt->wide ? (t->opt->width ? t->opt->width : render_width(out)) : 0;
    t->total = 0;
    for (int k = 0; k < t->nshow; k++)
        t->total += t->width[t->order[k]] + 2;
    narrow_names(t, cols, NAME_FIT_WIDTH);
    uint8_t *zero = cols && t->total > cols && !(t->opt->columns && *t->opt->columns) ? calloc((size_t)t->ncol + 1, 1) : NULL;
    for (int k = 0; zero && k < t->nshow; k++)
        zero[t->order[k]] = (uint8_t)column_all_zero(t, t->order[k]);
    if (zero)
        leave_out(t, cols, zero, 4);
    narrow_names(t, cols, MIN_FIT_WIDTH);
    if (zero)
        leave_out(t, cols, zero, 6);
    free(zero);
}

/* What was left out to fit, as csv names them (terminal-safe), and how to see it, wrapped at the width. */
static void table_left_out(const struct table *t, FILE *f)
{
    if (!t->ndropped)
        return;
    struct buf b = {0};
    char head[64];
    snprintf(head, sizeof head, "(left out to fit %zu characters: ", t->cols);
    buf_add(&b, head, strlen(head));
    for (int i = 0; i < t->ndropped; i++) {
        const char *name = render_column_name(t->st, t->first + t->dropped[i], t->opt);
        render_safe_text(&b, name ? name : "", name ? strlen(name) : 0);
        buf_add(&b, i + 1 < t->ndropped ? ", " : "; ", 2);
    }
    const char *how = t->opt->wide_only ? "--wide shows every column)" : "--wide shows every column, --columns chooses)";
    buf_add(&b, how, strlen(how));
    if (buf_addc(&b, 0) == 0)
        render_wrapped(f, b.p, t->cols, 1);
    buf_free(&b);
}

static void table_rule(const struct table *t, struct out_block *o)
{
    static const char dashes[64] = "----------------------------------------------------------------";
    size_t k = t->rule;
    for (; k > sizeof dashes; k -= sizeof dashes)
        out_put(o, dashes, sizeof dashes);
    out_put(o, dashes, k);
    out_put(o, "\n", 1);
}

/* Cuts each shown column's cells (and a header wider than its column) to fit, and prints the header
 * line. 0 or -1. */
static int table_cut_and_head(struct table *t, struct out_block *o)
{
    t->disp = calloc((size_t)t->ncol + 1, sizeof *t->disp);
    if (!t->disp)
        return -1;
    for (int k = 0; k < t->nshow; k++) {
        int c = t->order[k];
        if (column_cuts(t, c, t->width[c], &t->disp[c]) != 0)
            return -1;
        char *h = strdup(t->heads[c]);
        if (h && render_text_width(h) > t->width[c]) {
            struct buf b = {0};
            cut_cell(h, t->width[c], &b);
            free(h);
            h = b.p;
        }
        free(t->heads[c]);
        t->heads[c] = h;
        put_cell(o, t->heads[c] ? t->heads[c] : "", t->width[c], t->numeric[c], k == t->nshow - 1);
    }
    out_put(o, "\n", 1);
    return 0;
}

/* The rows (a report's first max_rows, then how many more). */
static void table_body(const struct table *t, struct out_block *o)
{
    int64_t printed = t->opt->report && t->opt->max_rows > 0 && t->rows > t->opt->max_rows ? t->opt->max_rows : t->rows;
    const char **row = malloc(((size_t)t->ncol + 1) * sizeof *row); /* the row's cells */
    for (int64_t r = 0; row && r < printed; r++) {
        const char *p = t->cells.p + t->row_at[r];
        for (int i = 0; i < t->ncol; i++, p += strlen(p) + 1)
            row[i] = p;
        for (int k = 0; k < t->nshow; k++) {
            int c = t->order[k];
            const char *cell = t->disp[c] ? t->disp[c][r] : NULL;
            put_cell(o, cell ? cell : row[c], t->width[c], t->numeric[c], k == t->nshow - 1);
        }
        out_put(o, "\n", 1);
    }
    free(row);
    table_rule(t, o);
    out_flush(o);
    if (printed < t->rows)
        fprintf(o->f, "(%lld more rows: --limit N to see more)\n", (long long)(t->rows - printed));
    table_left_out(t, o->f);
}

static void table_free(struct table *t)
{
    for (int i = 0; t->heads && i < t->ncol; i++)
        free(t->heads[i]);
    free(t->heads);
    for (int c = 0; t->disp && c < t->ncol; c++) {
        for (int64_t r = 0; t->disp[c] && r < t->rows; r++)
            free(t->disp[c][r]);
        free(t->disp[c]);
    }
    free(t->disp);
    free(t->width), free(t->cell_width), free(t->numeric), free(t->shown), free(t->order), free(t->row_at);
    free(t->dropped);
    buf_free(&t->cells);
}

int64_t render_table(sqlite3_stmt *st, int first, const struct render_options *opt, FILE *out, FILE *err)
{
    struct table t = {.st = st, .opt = opt ? opt : &no_options, .first = first, .ncol = sqlite3_column_count(st) - first};
    size_t n = (size_t)t.ncol + 1;
    t.width = calloc(n, sizeof *t.width), t.cell_width = calloc(n, sizeof *t.cell_width);
    t.numeric = calloc(n, sizeof *t.numeric), t.shown = calloc(n, sizeof *t.shown), t.order = calloc(n, sizeof *t.order);
    t.dropped = calloc(n, sizeof *t.dropped);
    struct out_block *o = malloc(sizeof *o);
    if (o)
        o->f = out, o->n = 0;
    int64_t result = -1;
    if (!o || !t.width || !t.cell_width || !t.numeric || !t.shown || !t.order || !t.dropped || table_collect(&t, err) != 0)
        goto done;
    if (t.rows == 0 && t.opt->report && t.opt->empty_hint) { /* say why, not an empty frame */
        struct buf b = {0};
        buf_add(&b, "(no rows: ", 10);
        buf_add(&b, t.opt->empty_hint, strlen(t.opt->empty_hint));
        if (buf_add(&b, ")", 2) == 0)
            render_wrapped(out, b.p, t.opt->width ? t.opt->width : render_width(out), 1);
        buf_free(&b);
        result = 0;
        goto done;
    }
    t.nshow = visible_columns(t.opt, st, first, t.ncol, t.shown, t.rows, t.order, err);
    if (t.nshow < 0 || table_headers(&t) != 0)
        goto done;
    table_fit(&t, out);
    t.rule = t.total; /* tracedb sql's table is never cut: its rules are (a report's fits) */
    if (!t.opt->report && t.rule > render_width(out))
        t.rule = render_width(out);
    table_rule(&t, o);
    if (table_cut_and_head(&t, o) != 0)
        goto done;
    table_rule(&t, o);
    table_body(&t, o);
    result = t.rows;
    if (t.held) { /* said after the rows it shows; an error, since rows are missing */
        fprintf(err, "tracedb: the table stops at its first %d rows (the query has more): --format csv or json "
                     "streams every row, or add LIMIT\n", TABLE_MAX_ROWS);
        result = -1;
    }
done:
    if (o && o->n) /* (only the lines before a failure) */
        out_flush(o);
    free(o);
    table_free(&t);
    return result;
}
