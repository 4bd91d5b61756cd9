/* furiosa_records.c: Furiosa's record CSV (furiosa_records.h) read with libcsv, a row at a time: the
 * header names the columns (trace_id, parent_span_id, span_id, start, end, cat, name, thread.id,
 * dram_base, pe_index, execution_index, instruction_index, operator_index; start and end integer ns),
 * each row becomes one event. The ids and indexes stay in the event's args, where the reports that show
 * them read them (latency --each, device --executions). */
#include "furiosa_records.h"
#include "jsonbuf.h"
#include "read_ahead.h"
#include "seed_formats.h"
#include "timeparse.h"
#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum rec_col { RC_TRACE, RC_PARENT, RC_SPAN, RC_START, RC_END, RC_CAT, RC_NAME, RC_THREAD, RC_DRAM, RC_PE, RC_EXEC,
               RC_INSTR, RC_OP, RC_COUNT };
static const char *const rec_col_name[RC_COUNT] = {
    "trace_id", "parent_span_id", "span_id", "start", "end", "cat", "name", "thread.id", "dram_base",
    "pe_index", "execution_index", "instruction_index", "operator_index",
};
#define REC_MAX_FIELDS 64 /* columns of a row kept (Furiosa writes 13) */
#define REC_MAX_REPORTED 5
#define REC_NPU_TRACK 10000000 /* Furiosa's export puts PE n's spans on track 10000000 + n */

struct records {
    struct tdb_ingest *ing;
    const char *file;
    FILE *err;
    struct tdb_import_result *res;
    struct buf row; /* the row's fields, one after another */
    size_t at[REC_MAX_FIELDS], len[REC_MAX_FIELDS];
    int nfields;
    int col[RC_COUNT]; /* the header's column of each, or -1 */
    int header_fields; /* the header's columns: a row with another count is cut or shifted */
    int64_t line;      /* rows read, the header first */
    int header_ok, fatal;
    size_t max_string;   /* the longest field kept (--max-string): a row with a longer one is skipped */
    int oversize;        /* this row went past max_string: its fields are dropped, the row skipped */
    int64_t no_pe;       /* NPU rows without a whole-number pe_index, kept on their threads */
    int64_t no_pe_row;   /* the first of them */
    struct buf args;
    int64_t named[64]; /* PEs whose track has its name */
    int nnamed;
};

static void rec_skip(struct records *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rec_skip(struct records *r, const char *fmt, ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    r->res->skipped++;
    if (r->res->skipped <= REC_MAX_REPORTED)
        fprintf(r->err, "tracedb: %s: row %lld skipped: %s\n", r->file, (long long)r->line, why);
    if (!r->res->first_error[0])
        snprintf(r->res->first_error, sizeof r->res->first_error, "row %lld: %s", (long long)r->line, why);
}

static struct tdb_str rec_field(const struct records *r, enum rec_col c)
{
    int i = r->col[c];
    if (i < 0 || i >= r->nfields)
        return (struct tdb_str){"", 0};
    return (struct tdb_str){r->row.p + r->at[i], r->len[i]};
}

static void rec_on_field(void *s, size_t n, void *data)
{
    struct records *r = data;
    if (r->oversize || n > r->max_string || r->row.n + n > r->max_string) { /* said when the row ends */
        r->oversize = 1;
        r->nfields++;
        return;
    }
    if (r->nfields >= REC_MAX_FIELDS) {
        r->nfields++;
        return;
    }
    r->at[r->nfields] = r->row.n;
    r->len[r->nfields] = n;
    if (buf_add(&r->row, s ? s : "", n) != 0)
        r->fatal = 1;
    r->nfields++;
}

static int rec_header(struct records *r)
{
    for (int c = 0; c < RC_COUNT; c++) {
        r->col[c] = -1;
        for (int i = 0; i < r->nfields && i < REC_MAX_FIELDS; i++)
            if (r->len[i] == strlen(rec_col_name[c]) && memcmp(r->row.p + r->at[i], rec_col_name[c], r->len[i]) == 0) {
                if (r->col[c] >= 0) {
                    fprintf(r->err, "tracedb: %s: not Furiosa's records: its header names the column %s twice\n",
                            r->file, rec_col_name[c]);
                    r->fatal = 2;
                    return -1;
                }
                r->col[c] = i;
            }
    }
    if (r->col[RC_START] < 0 || r->col[RC_END] < 0 || r->col[RC_CAT] < 0 || r->col[RC_NAME] < 0) {
        fprintf(r->err,
                "tracedb: %s: not Furiosa's records: its first line names no start, end, cat and name columns "
                "(Furiosa's header: trace_id,parent_span_id,span_id,start,end,cat,name,thread.id,...)\n",
                r->file);
        r->fatal = 2;
        return -1;
    }
    r->header_ok = 1;
    r->header_fields = r->nfields;
    return 0;
}

/* Whether v is a whole number as JSON writes one: -?(0|[1-9][0-9]*), at most 18 digits. */
static int rec_canonical(struct tdb_str v)
{
    size_t i = v.n && v.p[0] == '-';
    if (i == v.n || v.n - i > 18 || (v.p[i] == '0' && v.n - i > 1))
        return 0;
    for (; i < v.n; i++)
        if (v.p[i] < '0' || v.p[i] > '9')
            return 0;
    return 1;
}

/* Column c into args when it has a value: the ids as strings ("span_id":"3e1e..."), an index as a number
 * when it is one ("pe_index":0); *value gets that number (TDB_NULL: none). */
static int rec_arg(struct records *r, enum rec_col c, int64_t *value)
{
    struct tdb_str v = rec_field(r, c);
    if (value)
        *value = TDB_NULL;
    if (v.n == 0)
        return 0;
    int number = value && rec_canonical(v) && tdb_parse_int(v.p, v.n, value) == 0;
    return (r->args.n > 1 && buf_addc(&r->args, ',') != 0) ||
                   buf_add_json_string(&r->args, rec_col_name[c], strlen(rec_col_name[c])) != 0 || buf_addc(&r->args, ':') != 0 ||
                   (number ? buf_add(&r->args, v.p, v.n) : buf_add_json_string(&r->args, v.p, v.n)) != 0
               ? -1
               : 0;
}

/* Names PE pe's track "NPU <pe>" as Furiosa's export does, once. */
static int rec_name_track(struct records *r, int64_t thread, int64_t pe)
{
    for (int i = 0; i < r->nnamed; i++)
        if (r->named[i] == pe)
            return 0;
    if (r->nnamed < (int)(sizeof r->named / sizeof r->named[0]))
        r->named[r->nnamed++] = pe;
    char name[40];
    int n = snprintf(name, sizeof name, "NPU %lld", (long long)pe);
    return tdb_ingest_thread_meta(r->ing, thread, "thread_name", (struct tdb_str){name, (size_t)n}, TDB_NULL);
}

static int rec_row(struct records *r)
{
    if (r->oversize) {
        if (!r->header_ok) {
            fprintf(r->err, "tracedb: %s: not Furiosa's records: its first line is longer than --max-string (%zu "
                            "bytes)\n", r->file, r->max_string);
            r->fatal = 2;
            return -1;
        }
        rec_skip(r, "longer than --max-string (%zu bytes)", r->max_string);
        return 0;
    }
    if (!r->header_ok)
        return rec_header(r);
    if (r->nfields > REC_MAX_FIELDS) {
        rec_skip(r, "more than %d fields", REC_MAX_FIELDS);
        return 0;
    }
    if (r->nfields != r->header_fields) { /* a row cut short (the file's last), or one shifted */
        rec_skip(r, "%d fields where the header has %d%s", r->nfields, r->header_fields,
                 r->nfields < r->header_fields ? " (cut short?)" : "");
        return 0;
    }
    struct tdb_str start = rec_field(r, RC_START), end = rec_field(r, RC_END), cat = rec_field(r, RC_CAT),
                   name = rec_field(r, RC_NAME);
    int64_t s, e;
    if (tdb_parse_int(start.p, start.n, &s) != 0 || tdb_parse_int(end.p, end.n, &e) != 0) {
        rec_skip(r, "start or end is not a whole number of ns");
        return 0;
    }
    if (e < s || s < -TDB_TIME_MAX || e > TDB_TIME_MAX) {
        rec_skip(r, e < s ? "end before start" : "start or end out of range");
        return 0;
    }
    r->args.n = 0;
    int64_t pe, unused;
    if (buf_addc(&r->args, '{') != 0 || rec_arg(r, RC_TRACE, NULL) != 0 || rec_arg(r, RC_SPAN, NULL) != 0 ||
        rec_arg(r, RC_PARENT, NULL) != 0 || rec_arg(r, RC_PE, &pe) != 0 || rec_arg(r, RC_EXEC, &unused) != 0 ||
        rec_arg(r, RC_INSTR, &unused) != 0 || rec_arg(r, RC_OP, &unused) != 0 || rec_arg(r, RC_DRAM, &unused) != 0 ||
        buf_addc(&r->args, '}') != 0)
        return -1;
    int has_instruction = rec_field(r, RC_INSTR).n > 0;
    if (pe != TDB_NULL && (pe < 0 || pe >= INT32_MAX))
        pe = TDB_NULL; /* no PE's track: as one without */
    if (pe == TDB_NULL && cat.n == 3 && strncasecmp(cat.p, "npu", 3) == 0 && !r->no_pe++)
        r->no_pe_row = r->line;
    struct tdb_event ev;
    tdb_event_init(&ev);
    ev.kind = seed_kind(cat.p, cat.n, name.p, name.n, pe != TDB_NULL, has_instruction);
    if (ev.kind < 0 && (ev.kind = tdb_ingest_custom_kind(r->ing, cat)) < 0)
        return -1;
    int npu = pe != TDB_NULL && (ev.kind == TDB_KIND_KERNEL || ev.kind == TDB_KIND_MEMCPY || ev.kind == TDB_KIND_EXECUTION);
    char track[24];
    struct tdb_str tid = rec_field(r, RC_THREAD);
    if (npu) {
        tid.n = (size_t)snprintf(track, sizeof track, "%lld", (long long)(REC_NPU_TRACK + pe));
        tid.p = track;
        ev.device = pe, ev.stream = 0;
    }
    int64_t v;
    int tid_text = tid.n == 0 || tdb_parse_int(tid.p, tid.n, &v) != 0;
    ev.thread_id = tdb_ingest_thread(r->ing, 0, (struct tdb_str){"0", 1}, tid_text, tid.n ? tid : (struct tdb_str){"0", 1});
    if (ev.thread_id < 0 || (npu && ev.device != TDB_NULL && rec_name_track(r, ev.thread_id, pe) != 0))
        return -1;
    ev.name = name, ev.cat = cat;
    ev.start_ns = s, ev.dur_ns = e - s;
    ev.args = (struct tdb_str){r->args.p, r->args.n};
    if (tdb_ingest_event(r->ing, &ev) < 0)
        return -1;
    r->res->events++;
    return 0;
}

static void rec_on_row(int c, void *data)
{
    (void)c;
    struct records *r = data;
    r->line++;
    if (!r->fatal && rec_row(r) != 0 && !r->fatal)
        r->fatal = 1;
    r->row.n = 0;
    r->nfields = 0;
    r->oversize = 0;
}

/* Reads the whole input into the parser. 0 whole, 1 damaged (said), -1 database error, -2 not records. */
static int rec_read(struct records *r, struct read_ahead *in, struct csv_parser *p)
{
    enum { CHUNK_BYTES = 1 << 16 };
    char *chunk = malloc(CHUNK_BYTES);
    if (!chunk) {
        fprintf(r->err, "tracedb: out of memory\n");
        return -1;
    }
    int n;
    while ((n = read_ahead_read(in, chunk, CHUNK_BYTES)) > 0 && !r->fatal) {
        if (csv_parse(p, chunk, (size_t)n, rec_on_field, rec_on_row, r) != (size_t)n)
            break;
        if (p->entry_pos > r->max_string) { /* a field still growing past the limit: its bytes dropped
                                             * (libcsv keeps the rest of its state), the row skipped */
            r->oversize = 1;
            p->entry_pos = 0;
        }
    }
    free(chunk);
    if (!r->fatal)
        csv_fini(p, rec_on_field, rec_on_row, r);
    if (r->fatal)
        return r->fatal == 2 ? -2 : -1;
    const char *msg = NULL;
    if (n <= 0 && read_ahead_end(in, &msg) != READ_AHEAD_WHOLE) { /* a read error, or gzip cut short */
        fprintf(r->err, "tracedb: %s: cannot read past row %lld: %s\n", r->file, (long long)r->line, msg ? msg : "");
        snprintf(r->res->first_error, sizeof r->res->first_error, "after row %lld: %s", (long long)r->line, msg ? msg : "");
        return 1;
    }
    if (csv_error(p) != CSV_SUCCESS) {
        fprintf(r->err, "tracedb: %s: after row %lld: %s\n", r->file, (long long)r->line, csv_strerror(csv_error(p)));
        return 1;
    }
    if (r->no_pe)
        fprintf(r->err,
                "tracedb: %s: %lld NPU rows (row %lld the first) have no pe_index that is a PE's number: kept on "
                "their threads, where the device reports do not look\n",
                r->file, (long long)r->no_pe, (long long)r->no_pe_row);
    if (r->line == 1 && r->header_ok)
        fprintf(r->err, "tracedb: %s: Furiosa's header and no rows: nothing was recorded\n", r->file);
    return r->res->skipped ? 1 : 0;
}

int furiosa_records_path(const char *path)
{
    size_t n = strlen(path);
    return (n > 4 && strcasecmp(path + n - 4, ".csv") == 0) || (n > 7 && strcasecmp(path + n - 7, ".csv.gz") == 0);
}

int furiosa_records_file(const char *path)
{
    if (!furiosa_records_path(path))
        return 0;
    char line[4096];
    gzFile f = gzopen(path, "rb");
    int got = f && gzgets(f, line, sizeof line) != NULL;
    if (f)
        gzclose(f);
    if (!got)
        return 0;
    line[strcspn(line, "\r\n")] = 0;
    int seen = 0; /* bits: start, end, cat, name */
    static const char *const need[4] = {"start", "end", "cat", "name"};
    for (char *col = line, *next; col; col = next) {
        next = strchr(col, ',');
        if (next)
            *next++ = 0;
        for (int i = 0; i < 4; i++)
            if (strcmp(col, need[i]) == 0)
                seen |= 1 << i;
    }
    return seen == 15;
}

int tdb_import_furiosa_records(struct tdb_ingest *ing, const char *path, int show_progress, FILE *err,
                               struct tdb_import_result *res)
{
    (void)show_progress;
    int64_t rank = res->default_rank;
    size_t max_string = res->max_string ? res->max_string : (size_t)64 << 20;
    memset(res, 0, sizeof *res);
    res->default_rank = rank, res->max_string = max_string;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(err, "tracedb: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct stat sb;
    struct read_ahead *in = read_ahead_open(fd, fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? (size_t)sb.st_size : 0);
    struct records r = {.ing = ing, .file = path, .err = err, .res = res, .max_string = max_string};
    struct csv_parser p;
    if (!in || csv_init(&p, 0) != 0) {
        if (in)
            read_ahead_close(in);
        fprintf(err, "tracedb: out of memory\n");
        return -1;
    }
    int status = tdb_ingest_begin_trace(ing, path, "furiosa-records") < 0 ? -1 : rec_read(&r, in, &p);
    csv_free(&p);
    read_ahead_close(in);
    buf_free(&r.row);
    buf_free(&r.args);
    if (status == -2 || (status >= 0 && !r.header_ok)) {
        if (status != -2)
            fprintf(err, "tracedb: %s: empty file: no header, no rows\n", path);
        snprintf(res->first_error, sizeof res->first_error, "not Furiosa's records");
        res->no_trace = 1;
        status = 1;
    }
    if (status >= 0) { /* the trace's row, as an import of a file that is no trace writes one too */
        struct tdb_trace_info info = {
            .source_file = path,
            .source_format = "furiosa-records",
            .base_time_ns = TDB_NULL,
            .rank = res->default_rank,
            .status = status == 0 ? "complete" : "partial",
            .error = res->first_error[0] ? res->first_error : NULL,
            .skipped_events = res->skipped,
        };
        if (tdb_ingest_end_trace(ing, &info) != 0)
            status = -1;
    }
    return status;
}
