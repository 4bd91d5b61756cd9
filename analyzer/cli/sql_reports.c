/* sql_reports.c: tracedb's reports as SQL table functions: SELECT * FROM tracedb_kernels('--kinds memcpy')
 * runs `tracedb kernels DB --kinds memcpy`, the command itself, its rows handed over by render.c's sink
 * (struct report_io's sink) instead of printed: the same rows, column names and order as --format csv.
 *
 * The columns. A virtual table's columns are declared when it is connected, before any argument is known,
 * and some options change a report's columns (--by-rank adds rank, --by-type is another table). The rule:
 *   - tracedb_<report>(options) declares the columns of the report with no options (learned by running it
 *     once when the connection first uses the table, stopped before its rows); options that keep them are
 *     taken, options that give other columns are refused at the query, naming the form below;
 *   - CREATE VIRTUAL TABLE temp.t USING tracedb_<report>('options') declares the columns of the report
 *     with those options; SELECT * FROM t (or t('more options')) runs it with them.
 * A query runs the report on the connection's main database file, read through the report's own
 * read-only connection (what the file holds committed). Its rows are kept with the table for the next
 * query with the same options while the file holds what it held (file_state below): a join that scans the
 * report once per outer row, a second query, and the first query after the columns were learned (the
 * report run then, in full) take them instead of running the report again. The options are the command's own, one
 * text, split at blanks ('...' or "..." keep blanks in a value); --format and --help are refused.
 * The modules are SQLITE_VTAB_DIRECTONLY (no view or trigger of a database can make a report run), and
 * CREATE VIRTUAL TABLE takes the temp schema alone (no database file carries one). */
#include "sql_reports.h"
#include "cli.h"
#include "render.h"
#include "report.h"
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ARGS 64
#define MAX_KEPT_CELLS (1 << 20) /* a report's rows kept for the next query: up to this many values */


/* One value of a row, as the report's statement gave it. */
struct cell {
    int type; /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL */
    sqlite3_int64 i;
    double d;
    char *p; /* text or blob bytes */
    int n;
};

/* A report's output: its column names, then rows of cells. */
struct rows {
    struct render_sink sink; /* first: the sink is the rows */
    int ncol;
    char **names;
    struct cell *cells; /* n rows of ncol */
    size_t n, cap;
};

static void rows_free(struct rows *r)
{
    for (size_t k = 0; k < r->n * (size_t)r->ncol; k++)
        free(r->cells[k].p);
    free(r->cells);
    for (int i = 0; i < r->ncol; i++)
        free(r->names[i]);
    free(r->names);
    memset(r, 0, sizeof *r);
}

static int sink_columns(struct render_sink *s, int ncol, const char *const *names)
{
    struct rows *r = (struct rows *)s;
    if (r->names) /* a report renders one table */
        return -1;
    r->names = calloc((size_t)(ncol > 0 ? ncol : 1), sizeof *r->names);
    if (!r->names)
        return -1;
    r->ncol = ncol;
    for (int i = 0; i < ncol; i++)
        if (!(r->names[i] = strdup(names[i])))
            return -1;
    return 0;
}

static int sink_row(struct render_sink *s, sqlite3_stmt *st, int first, int ncol)
{
    struct rows *r = (struct rows *)s;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct cell *c = realloc(r->cells, cap * (size_t)ncol * sizeof *c + 1);
        if (!c)
            return -1;
        r->cells = c, r->cap = cap;
    }
    struct cell *c = r->cells + r->n * (size_t)ncol;
    memset(c, 0, (size_t)ncol * sizeof *c);
    r->n++; /* counted now: rows_free frees what is filled */
    for (int i = 0; i < ncol; i++) {
        c[i].type = sqlite3_column_type(st, first + i);
        if (c[i].type == SQLITE_INTEGER)
            c[i].i = sqlite3_column_int64(st, first + i);
        else if (c[i].type == SQLITE_FLOAT)
            c[i].d = sqlite3_column_double(st, first + i);
        else if (c[i].type != SQLITE_NULL) {
            const void *p = c[i].type == SQLITE_TEXT ? (const void *)sqlite3_column_text(st, first + i)
                                                     : sqlite3_column_blob(st, first + i);
            c[i].n = sqlite3_column_bytes(st, first + i);
            if (!(c[i].p = malloc((size_t)c[i].n + 1)))
                return -1;
            if (c[i].n)
                memcpy(c[i].p, p, (size_t)c[i].n);
            c[i].p[c[i].n] = 0;
        }
    }
    return 0;
}

/* What a database file holds committed, as far as a reader can tell without opening it: for the file and
 * its -wal and -shm, identity, size and time, and the counters SQLite changes at every commit (the
 * database header's change counter, the WAL header's salts, the WAL index's frame count and checksums, all
 * in the files' first bytes). Equal states: the report would read the same rows. */
struct file_state {
    struct {
        dev_t dev;
        ino_t ino;
        off_t size;
        long mtime_s, mtime_ns;
        unsigned char head[136]; /* the WAL index header's two copies and its checkpoint info: 136 bytes */
    } part[3];
};

/* 0 with *st filled, or -1 (the state cannot be told: nothing is kept). */
static int file_state_read(const char *path, struct file_state *st)
{
    static const char *const suffix[3] = {"", "-wal", "-shm"};
    memset(st, 0, sizeof *st);
    for (int k = 0; k < 3; k++) {
        char name[4096];
        if ((size_t)snprintf(name, sizeof name, "%s%s", path, suffix[k]) >= sizeof name)
            return -1;
        int fd = open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
            if (k == 0)
                return -1;
            continue; /* no WAL: its part stays zero */
        }
        struct stat s;
        int ok = fstat(fd, &s) == 0 && S_ISREG(s.st_mode) && pread(fd, st->part[k].head, sizeof st->part[k].head, 0) >= 0;
        close(fd);
        if (!ok)
            return -1;
        st->part[k].dev = s.st_dev, st->part[k].ino = s.st_ino, st->part[k].size = s.st_size;
        st->part[k].mtime_s = (long)s.st_mtim.tv_sec, st->part[k].mtime_ns = s.st_mtim.tv_nsec;
    }
    return 0;
}

/* A report's rows for one options text, shared by the cursors reading them and the table keeping them. */
struct result {
    int refs;
    char *options;
    int state_known;
    struct file_state state; /* the file's, taken before the report ran */
    struct rows r;
};

static void result_release(struct result *res)
{
    if (res && --res->refs == 0) {
        rows_free(&res->r);
        sqlite3_free(res->options);
        sqlite3_free(res);
    }
}

/* options split at blanks into argv[from..]; quotes keep blanks. The count, or -1 (why in *why). */
static int split_options(char *text, char **argv, int from, const char **why)
{
    int n = from;
    char *p = text, *w = text;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        if (n >= MAX_ARGS - 5)
            return *why = "too many options", -1;
        argv[n++] = w;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (*p == '\'' || *p == '"') {
                char q = *p++;
                while (*p && *p != q)
                    *w++ = *p++;
                if (*p != q)
                    return *why = "an unclosed quote in the options", -1;
                p++;
            } else
                *w++ = *p++;
        }
        if (*p)
            p++;
        *w++ = 0;
        const char *a = argv[n - 1];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return *why = "--help is the command's (tracedb REPORT --help)", -1;
        if (strncmp(a, "--format", 8) == 0)
            return *why = "no --format: the rows are the table's", -1;
    }
    return n;
}

/* Runs report c on the database file path with options (NULL: none) into r, noting the database in opened.
 * SQLITE_OK, or an error code with the reason in *msg (sqlite3_malloc'd). */
static int run_report(const struct cli_command *c, struct opened_db *opened, const char *path, const char *options,
                      struct rows *r, char **msg)
{
    memset(r, 0, sizeof *r);
    r->sink.columns = sink_columns;
    r->sink.row = sink_row;
    char *text = strdup(options ? options : ""), *err_text = NULL, *out_text = NULL;
    size_t err_len = 0, out_len = 0;
    FILE *err = open_memstream(&err_text, &err_len), *out = open_memstream(&out_text, &out_len);
    char *argv[MAX_ARGS];
    const char *why = "out of memory";
    int argc = -1;
    if (text && err && out) {
        argv[0] = (char *)c->name;
        argc = split_options(text, argv, 1, &why);
    }
    int rc = SQLITE_ERROR;
    if (argc >= 0) {
        argv[argc++] = "--format", argv[argc++] = "csv"; /* nothing else printed */
        argv[argc++] = "--", argv[argc++] = (char *)path, argv[argc] = NULL; /* a file named -h is a file */
        char prog[64]; /* its messages are the command line's: "tracedb ops: ..." */
        snprintf(prog, sizeof prog, "tracedb %s", c->name);
        struct cli sub = {{out, err, prog, &r->sink, NULL, opened}, c->example, 1, c->name, NULL, NULL};
        /* one report at a time in the process (report.h): a host may run reports in several threads */
        report_exclusive_begin();
        int status = c->fn(argc, argv, &sub);
        report_exclusive_end();
        fflush(err);
        if (status == 0 && r->names)
            rc = SQLITE_OK;
        else {
            if (err_text) /* its first line: the usage that may follow is the command line's */
                err_text[strcspn(err_text, "\n")] = 0, err_len = strlen(err_text);
            why = err_len ? err_text : "the report failed";
        }
    }
    if (rc != SQLITE_OK) {
        *msg = sqlite3_mprintf("%s", why);
        rows_free(r);
    }
    if (err)
        fclose(err);
    if (out)
        fclose(out);
    free(err_text);
    free(out_text);
    free(text);
    return rc;
}

/* A module's: its report, and where the report notes the database it opens (tdb_register_report_tables). */
struct report_table {
    const struct cli_command *cmd;
    struct opened_db *opened;
};

struct report_vtab {
    sqlite3_vtab base;
    sqlite3 *db;
    const struct cli_command *cmd;
    struct opened_db *opened;
    char *module; /* tracedb_critical_path */
    char *fixed; /* CREATE VIRTUAL TABLE's options, or NULL */
    int ncol;    /* the report's columns; then the hidden options */
    char **names;
    struct result *kept; /* the last query's rows (report_rows), or NULL */
};

struct report_cursor {
    sqlite3_vtab_cursor base;
    struct result *res; /* the rows read, or NULL */
    size_t row;
    char *options; /* this query's, for the hidden column */
};

/* The file the connection's main database is, or NULL (said why in *msg). */
static const char *main_file(sqlite3 *db, char **msg)
{
    const char *f = sqlite3_db_filename(db, "main");
    /* a file on the operating system's own VFS ("unix", "unix-excl", ...): a name on another VFS (memdb,
     * a deserialized database) need not be a file, and a file of that name would be another database */
    sqlite3_vfs *vfs = NULL;
    if (f && *f && (sqlite3_file_control(db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK || !vfs ||
                    strncmp(vfs->zName, "unix", 4) != 0))
        f = NULL;
    if (!f || !*f)
        *msg = sqlite3_mprintf("the reports read a database file, and this connection's main database is in memory");
    return f && *f ? f : NULL;
}

/* Module arguments (raw SQL text: '--by-rank' or --by-rank) as one options text. */
static char *module_options(int argc, const char *const *argv)
{
    size_t n = 1;
    for (int i = 3; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *o = sqlite3_malloc64(n), *w = o;
    if (!o)
        return NULL;
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i];
        size_t len = strlen(a);
        if (len >= 2 && (a[0] == '\'' || a[0] == '"') && a[len - 1] == a[0]) { /* a string literal: dequoted */
            for (size_t k = 1; k + 1 < len; k++) {
                *w++ = a[k];
                if (a[k] == a[0] && a[k + 1] == a[0])
                    k++;
            }
        } else {
            memcpy(w, a, len);
            w += len;
        }
        *w++ = ' ';
    }
    *w = 0;
    if (w > o)
        w[-1] = 0; /* no blank at the end */
    return o;
}

static int report_disconnect(sqlite3_vtab *vt)
{
    struct report_vtab *v = (struct report_vtab *)vt;
    result_release(v->kept);
    for (int i = 0; i < v->ncol; i++)
        sqlite3_free(v->names[i]);
    sqlite3_free(v->names);
    sqlite3_free(v->fixed);
    sqlite3_free(v->module);
    sqlite3_free(v);
    return SQLITE_OK;
}

/* The rows of v's report with options (never NULL) on the file path into *out (a reference:
 * result_release): those v keeps when the options are the same and the file holds what it held when they
 * were read, else the report run now (and kept, within MAX_KEPT_CELLS). SQLITE_OK, or a code with *msg. */
static int report_rows(struct report_vtab *v, const char *path, const char *options, struct result **out, char **msg)
{
    struct file_state now;
    int known = file_state_read(path, &now) == 0;
    struct result *k = v->kept;
    if (k && known && k->state_known && strcmp(k->options, options) == 0 && memcmp(&k->state, &now, sizeof now) == 0) {
        k->refs++;
        *out = k;
        return SQLITE_OK;
    }
    struct result *res = sqlite3_malloc64(sizeof *res);
    if (res)
        memset(res, 0, sizeof *res);
    if (!res || !(res->options = sqlite3_mprintf("%s", options))) {
        sqlite3_free(res);
        return SQLITE_NOMEM;
    }
    res->refs = 1, res->state_known = known, res->state = now;
    int rc = run_report(v->cmd, v->opened, path, options, &res->r, msg);
    if (rc != SQLITE_OK) {
        result_release(res);
        return rc;
    }
    if (known && res->r.n <= MAX_KEPT_CELLS / (size_t)(res->r.ncol > 0 ? res->r.ncol : 1)) {
        result_release(v->kept);
        v->kept = res;
        res->refs++;
    }
    *out = res;
    return SQLITE_OK;
}

/* Where a message says back what was given (an options text, a value the command echoes), at most this
 * many bytes of it, cut at a character's start, then how long it was: megabytes are not said back whole. */
#define MAX_ECHO 300
static char *held_text(const char *t)
{
    size_t n = t ? strlen(t) : 0, cut = MAX_ECHO;
    if (n <= MAX_ECHO)
        return sqlite3_mprintf("%s", t ? t : "");
    while (cut > 0 && ((unsigned char)t[cut] & 0xC0) == 0x80)
        cut--;
    return sqlite3_mprintf("%.*s... (%llu bytes in all)", (int)cut, t, (unsigned long long)n);
}

/* "tracedb_kernels('--by-rank'): why" in messages (why may be NULL). */
static char *call_text(const struct report_vtab *v, const char *options, const char *why)
{
    char *o = held_text(options), *w = why ? held_text(why) : NULL;
    char *text = sqlite3_mprintf("%s('%q')%s%s", v->module, o ? o : "", w ? ": " : "", w ? w : "");
    sqlite3_free(o);
    sqlite3_free(w);
    return text;
}

static int report_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **msg)
{
    const struct report_table *t = aux;
    /* eponymous (the table is the module) or made in temp; any other is a table a database file carries
     * (CREATE VIRTUAL TABLE x USING tracedb_ops, with or without options): refused */
    if (strcmp(argv[1], "temp") != 0 && (argc > 3 || strcmp(argv[2], argv[0]) != 0)) {
        *msg = sqlite3_mprintf("%s tables are made in temp: CREATE VIRTUAL TABLE temp.%s USING %s(...)", argv[0],
                               argv[2], argv[0]);
        return SQLITE_ERROR;
    }
    const char *path = main_file(db, msg);
    if (!path)
        return SQLITE_ERROR;
    struct report_vtab *v = sqlite3_malloc64(sizeof *v);
    if (!v)
        return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    v->db = db, v->cmd = t->cmd, v->opened = t->opened;
    if (!(v->module = sqlite3_mprintf("%s", argv[0])) || (argc > 3 && !(v->fixed = module_options(argc, argv)))) {
        report_disconnect(&v->base);
        return SQLITE_NOMEM;
    }
    struct result *probe = NULL; /* the report's columns: the report run (its rows kept for the first query) */
    char *why = NULL;
    int rc = report_rows(v, path, v->fixed ? v->fixed : "", &probe, &why);
    if (rc == SQLITE_OK) {
        const struct rows *r = &probe->r;
        sqlite3_str *decl = sqlite3_str_new(db);
        sqlite3_str_appendall(decl, "CREATE TABLE x(");
        for (int i = 0; i < r->ncol; i++)
            sqlite3_str_appendf(decl, "\"%w\", ", r->names[i]);
        sqlite3_str_appendall(decl, "options HIDDEN)");
        char *sql = sqlite3_str_finish(decl);
        v->names = sqlite3_malloc64(sizeof *v->names * (size_t)(r->ncol + 1));
        if (!sql || !v->names)
            rc = SQLITE_NOMEM;
        for (int i = 0; rc == SQLITE_OK && i < r->ncol; i++, v->ncol++)
            if (!(v->names[i] = sqlite3_mprintf("%s", r->names[i])))
                rc = SQLITE_NOMEM;
        if (rc == SQLITE_OK)
            rc = sqlite3_declare_vtab(db, sql);
        if (rc == SQLITE_OK)
            rc = sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
        sqlite3_free(sql);
        result_release(probe);
    } else {
        *msg = call_text(v, v->fixed, why);
        sqlite3_free(why);
    }
    if (rc != SQLITE_OK) {
        report_disconnect(&v->base);
        return rc;
    }
    *out = &v->base;
    return SQLITE_OK;
}

/* The hidden options column (index ncol), when equal to a value: argument 1 of xFilter. */
static int report_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
    struct report_vtab *v = (struct report_vtab *)vt;
    info->idxNum = 0;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *k = &info->aConstraint[i];
        if (k->iColumn != v->ncol)
            continue;
        if (k->op != SQLITE_INDEX_CONSTRAINT_EQ || !k->usable)
            return SQLITE_CONSTRAINT; /* the options are a value known before the report runs */
        info->aConstraintUsage[i].argvIndex = 1;
        info->aConstraintUsage[i].omit = 1;
        info->idxNum = 1;
    }
    info->estimatedCost = 1e6; /* a report: run once a query */
    info->estimatedRows = 1000;
    return SQLITE_OK;
}

static int table_cursor_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
    (void)vt;
    struct report_cursor *cur = sqlite3_malloc64(sizeof *cur);
    if (!cur)
        return SQLITE_NOMEM;
    memset(cur, 0, sizeof *cur);
    *out = &cur->base;
    return SQLITE_OK;
}

static int report_close(sqlite3_vtab_cursor *c)
{
    struct report_cursor *cur = (struct report_cursor *)c;
    result_release(cur->res);
    sqlite3_free(cur->options);
    sqlite3_free(cur);
    return SQLITE_OK;
}

static int report_filter(sqlite3_vtab_cursor *c, int idx, const char *idx_str, int argc, sqlite3_value **argv)
{
    (void)idx_str;
    struct report_cursor *cur = (struct report_cursor *)c;
    struct report_vtab *v = (struct report_vtab *)c->pVtab;
    result_release(cur->res);
    cur->res = NULL;
    sqlite3_free(cur->options);
    cur->options = NULL;
    cur->row = 0;
    const char *given = idx == 1 && argc > 0 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
    if (given && !(cur->options = sqlite3_mprintf("%s", given)))
        return SQLITE_NOMEM;
    char *all = sqlite3_mprintf("%s%s%s", v->fixed ? v->fixed : "", v->fixed && given ? " " : "", given ? given : "");
    char *msg = NULL;
    const char *path = all ? main_file(v->db, &msg) : NULL;
    int rc = !all ? SQLITE_NOMEM : !path ? SQLITE_ERROR : report_rows(v, path, all, &cur->res, &msg);
    const struct rows *r = rc == SQLITE_OK ? &cur->res->r : NULL;
    int same = r && r->ncol == v->ncol;
    for (int i = 0; same && i < v->ncol; i++)
        same = strcmp(r->names[i], v->names[i]) == 0;
    if (r && !same) { /* the rule at the top of this file */
        sqlite3_str *cols = sqlite3_str_new(NULL);
        for (int i = 0; i < r->ncol; i++)
            sqlite3_str_appendf(cols, "%s%s", i ? ", " : "", r->names[i]);
        char *list = sqlite3_str_finish(cols), *call = call_text(v, all, NULL), *given_back = held_text(all);
        msg = sqlite3_mprintf("%s: these options give the columns (%s), not the %d this table declared; "
                              "CREATE VIRTUAL TABLE temp.t USING %s('%q') declares them",
                              call ? call : "", list ? list : "", v->ncol, v->module, given_back ? given_back : "");
        sqlite3_free(list);
        sqlite3_free(call);
        sqlite3_free(given_back);
        result_release(cur->res);
        cur->res = NULL;
        rc = SQLITE_ERROR;
    } else if (rc != SQLITE_OK && msg) {
        char *full = call_text(v, all, msg);
        sqlite3_free(msg);
        msg = full;
    }
    sqlite3_free(all);
    if (rc != SQLITE_OK) {
        sqlite3_free(v->base.zErrMsg);
        v->base.zErrMsg = msg;
    }
    return rc;
}

static int report_next(sqlite3_vtab_cursor *c)
{
    ((struct report_cursor *)c)->row++;
    return SQLITE_OK;
}

static int report_eof(sqlite3_vtab_cursor *c)
{
    struct report_cursor *cur = (struct report_cursor *)c;
    return !cur->res || cur->row >= cur->res->r.n;
}

static int report_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
    struct report_cursor *cur = (struct report_cursor *)c;
    const struct rows *r = &cur->res->r;
    if (col >= r->ncol) { /* the hidden options */
        if (cur->options)
            sqlite3_result_text(ctx, cur->options, -1, SQLITE_TRANSIENT);
        return SQLITE_OK;
    }
    const struct cell *k = &r->cells[cur->row * (size_t)r->ncol + (size_t)col];
    switch (k->type) {
    case SQLITE_INTEGER:
        sqlite3_result_int64(ctx, k->i);
        break;
    case SQLITE_FLOAT:
        sqlite3_result_double(ctx, k->d);
        break;
    case SQLITE_TEXT:
        sqlite3_result_text(ctx, k->p, k->n, SQLITE_TRANSIENT);
        break;
    case SQLITE_BLOB:
        sqlite3_result_blob(ctx, k->p, k->n, SQLITE_TRANSIENT);
        break;
    default:
        sqlite3_result_null(ctx);
    }
    return SQLITE_OK;
}

static int report_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid)
{
    *rowid = (sqlite3_int64)((struct report_cursor *)c)->row + 1;
    return SQLITE_OK;
}

static const sqlite3_module report_module = {
    .iVersion = 0,
    .xCreate = report_connect, /* the same as xConnect: eponymous, and CREATE VIRTUAL TABLE temp.t too */
    .xConnect = report_connect,
    .xBestIndex = report_best_index,
    .xDisconnect = report_disconnect,
    .xDestroy = report_disconnect,
    .xOpen = table_cursor_open,
    .xClose = report_close,
    .xFilter = report_filter,
    .xNext = report_next,
    .xEof = report_eof,
    .xColumn = report_column,
    .xRowid = report_rowid,
};

int tdb_register_report_tables(sqlite3 *db, const struct cli_command *commands, struct opened_db *opened)
{
    for (const struct cli_command *c = commands; c && c->name; c++) {
        if (!c->is_report || strcmp(c->name, "summary") == 0) /* summary: sections, not one table */
            continue;
        char name[64];
        snprintf(name, sizeof name, "tracedb_%s", c->name);
        for (char *p = name; *p; p++)
            if (*p == '-') /* critical-path: tracedb_critical_path */
                *p = '_';
        struct report_table *t = sqlite3_malloc(sizeof *t);
        if (!t)
            return -1;
        t->cmd = c, t->opened = opened;
        if (sqlite3_create_module_v2(db, name, &report_module, t, sqlite3_free) != SQLITE_OK) /* (frees t) */
            return -1;
    }
    return 0;
}
