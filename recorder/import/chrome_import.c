/* chrome_import.c: streams a Chrome trace JSON file (PyTorch/Kineto, RAF, Furiosa; plain or gzip)
 * into the ingest writer.
 *
 * The file is read in 256 KiB chunks through read_ahead.c (plain, or gzip inflated) and tokenized by
 * yajl's callback parser, so memory stays bounded whatever the file size. Each event object is
 * collected in one reusable arena (its fields, and each arg as raw JSON text), and handed to the
 * writer when its closing brace arrives: a file cut anywhere keeps every event that was whole.
 * Numbers arrive as their text, so times convert to integer ns exactly (timeparse.c).
 * Args that become columns (correlation, device, stream, bytes, launch geometry, memory totals)
 * are not stored again in the event's args JSON.
 */
#include "chrome_internal.h"

/* ---------------------------------------------------------------- driver */

/* A JSON number as an integer: TDB_NULL unless it is a whole number an int64 holds (a damaged or hostile
 * "rank": 1e300 must not be converted). */
static int64_t json_int(const cJSON *n)
{
    if (!cJSON_IsNumber(n))
        return TDB_NULL;
    double v = n->valuedouble;
    if (!(v >= -9.2e18 && v <= 9.2e18) || v != floor(v))
        return TDB_NULL;
    return (int64_t)v;
}

static void chrome_devices(struct chrome *c)
{
    if (!c->devprops.n)
        return;
    cJSON *arr = cJSON_ParseWithLength(c->devprops.p, c->devprops.n);
    cJSON *d;
    cJSON_ArrayForEach(d, arr)
    {
        cJSON *id = cJSON_GetObjectItemCaseSensitive(d, "id");
        cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
        int64_t device = json_int(id);
        if (device == TDB_NULL)
            continue;
        char *text = cJSON_PrintUnformatted(d);
        if (!text)
            continue;
        struct tdb_str nm = cJSON_IsString(name) ? (struct tdb_str){name->valuestring, strlen(name->valuestring)}
                                                 : (struct tdb_str){NULL, 0};
        tdb_ingest_device(c->ing, device, nm, (struct tdb_str){text, strlen(text)});
        free(text);
    }
    cJSON_Delete(arr);
}

static int64_t chrome_rank(struct chrome *c)
{
    if (!c->distinfo.n)
        return TDB_NULL;
    cJSON *o = cJSON_ParseWithLength(c->distinfo.p, c->distinfo.n);
    cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "rank");
    int64_t rank = json_int(r);
    cJSON_Delete(o);
    return rank;
}

/* Makes a text copy of a buffer (NUL-terminated) or NULL when empty. */
static char *buf_cstr(struct buf *b)
{
    if (!b->n)
        return NULL;
    if (buf_addc(b, 0) != 0)
        return NULL;
    b->n--;
    return b->p;
}

/* Opens path ("-": stdin); *total gets a regular file's size (0 when unknown). -1 on error (printed). */
static int chrome_open_input(const char *path, const char *file, FILE *err, size_t *total)
{
    int is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? dup(0) : open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(err, "tracedb: cannot open %s: %s\n", file, strerror(errno));
        return -1;
    }
    struct stat sb;
    *total = (!is_stdin && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) ? (size_t)sb.st_size : 0;
    return fd;
}

/* The reader's state for one file, its chunk buffer sized to the file (a small plain file gets a buffer
 * its size: fuzzing runs thousands of them). NULL when out of memory. */
static struct chrome *chrome_new(struct tdb_ingest *ing, const char *file, FILE *err, struct tdb_import_result *res,
                                 size_t total)
{
    struct chrome *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->chunk_size = total && total < CHUNK ? (total + 4095) / 4096 * 4096 : CHUNK;
    c->chunk = malloc(c->chunk_size);
    if (!c->chunk || chrome_yajl_new(c) != 0) {
        free(c->chunk);
        free(c);
        return NULL;
    }
    const char *lane = getenv("TRACEDB_JSON");
    if (!lane || strcmp(lane, "yajl") != 0)
        c->fast = json_fast_new(); /* NULL (out of memory): yajl reads it all */
    c->ing = ing, c->file = file, c->err = err, c->res = res;
    c->base_time_ns = TDB_NULL;
    c->max_string = res->max_string ? res->max_string : DEFAULT_MAX_STRING;
    c->strict = res->strict;
    const char *dir;
    size_t budget = tdb_ingest_spill_budget(ing, &dir);
    open_ranges_init(&c->open, budget, dir, err);
    jw_init(&c->extra_w, &c->extra);
    jw_open(&c->extra_w, '{');
    return c;
}

static void chrome_free(struct chrome *c)
{
    if (c->h)
        yajl_free(c->h);
    json_fast_free(c->fast);
    if (c->fb)
        free(c->fb - 1);
    open_ranges_free(&c->open);
    struct buf *bufs[] = {&c->arena, &c->out_args, &c->series,   &c->top_key,   &c->extra,   &c->devprops,
                          &c->distinfo, &c->trace_name, &c->top_value, &c->longbuf, &c->top_keys};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        buf_free(bufs[i]);
    free(c->thread_last);
    free(c->args);
    free(c->chunk);
    free(c);
}

/* Records the input's first error: printed with the file's name, kept for the trace row. Returns 1 (damaged
 * input). */
static int chrome_input_error(struct chrome *c, const char *kept, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int chrome_input_error(struct chrome *c, const char *kept, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (c->progress_open)
        fputc('\n', c->err), c->progress_open = 0;
    fprintf(c->err, "tracedb: %s: ", c->file);
    vfprintf(c->err, fmt, ap);
    fputc('\n', c->err);
    va_end(ap);
    snprintf(c->res->first_error, sizeof c->res->first_error, "%s", kept);
    return 1;
}

/* After yajl refused the input: where and why. n == 0: the file ended inside the JSON. Returns 1. */
static int chrome_json_error(struct chrome *c, int n)
{
    size_t off = n == 0 ? c->chunk_base : chrome_offset(c); /* at the end: the file's length */
    if (n != 0 && off > 0)
        off--; /* yajl stands just past the offending token */
    unsigned char *msg = yajl_get_error(c->h, 0, NULL, 0);
    char *nl = strchr((char *)msg, '\n');
    if (nl)
        *nl = 0;
    const char *why = n == 0 ? "the file ends in the middle of the JSON (truncated?)" : (const char *)msg;
    char kept[sizeof c->res->first_error];
    snprintf(kept, sizeof kept, "byte %zu: invalid JSON: %s", off, why);
    chrome_input_error(c, kept, "invalid JSON near byte %zu: %s", off, why);
    yajl_free_error(c->h, msg);
    return 1;
}

/* The name of the wide encoding a trace's first bytes are in (UTF-16 or UTF-32, by its byte order mark, or by
 * the zero bytes beside its first ASCII character), or NULL. */
static const char *wide_encoding(const unsigned char *p, size_t n)
{
    if (n >= 4 && p[0] == 0xff && p[1] == 0xfe && p[2] == 0 && p[3] == 0)
        return "UTF-32LE";
    if (n >= 4 && p[0] == 0 && p[1] == 0 && p[2] == 0xfe && p[3] == 0xff)
        return "UTF-32BE";
    if (n >= 2 && p[0] == 0xff && p[1] == 0xfe)
        return "UTF-16LE";
    if (n >= 2 && p[0] == 0xfe && p[1] == 0xff)
        return "UTF-16BE";
    if (n >= 2 && p[0] == 0 && p[1] != 0)
        return "UTF-16BE";
    if (n >= 2 && p[0] != 0 && p[1] == 0)
        return "UTF-16LE";
    return NULL;
}

/* Reads the whole input, chunk by chunk, into the parser. 0: the JSON is whole; 1: damaged input (printed,
 * every whole event before it kept); -1: a database error. */
static int chrome_read(struct chrome *c, struct read_ahead *in)
{
    c->next_report = 8u << 20;
    char kept[sizeof c->res->first_error];
    for (;;) {
        int n = c->in_end ? c->in_end_n : read_ahead_read(in, c->chunk, (unsigned)c->chunk_size); /* in_end: the fast lane read to the end */
        const char *zmsg = NULL;
        enum read_ahead_end why = n <= 0 ? read_ahead_end(in, &zmsg) : READ_AHEAD_WHOLE;
        if (n < 0 && why == READ_AHEAD_IO) {
            snprintf(kept, sizeof kept, "byte %zu: read error: %s", c->chunk_base, zmsg);
            return chrome_input_error(c, kept, "cannot read after byte %zu of the trace: %s", c->chunk_base, zmsg);
        }
        if (n < 0) {
            snprintf(kept, sizeof kept, "byte %zu: compressed data damaged: %s", c->chunk_base, zmsg);
            return chrome_input_error(c, kept, "compressed data damaged after byte %zu of the trace: %s",
                                      c->chunk_base, zmsg);
        }
        if (n == 0 && c->chunk_base == 0 && why == READ_AHEAD_TRUNCATED) /* a gzip header, or little more */
            return chrome_input_error(c, "byte 0: compressed file truncated",
                                      "compressed file is truncated before the first byte of the trace");
        if (n == 0 && c->chunk_base == 0)
            return chrome_input_error(c, "empty file", "empty file: no trace events");
        if (n == 0 && why == READ_AHEAD_TRUNCATED) { /* the gzip stream ends early */
            snprintf(kept, sizeof kept, "byte %zu: compressed file truncated", c->chunk_base);
            return chrome_input_error(c, kept, "compressed file is truncated after byte %zu of the trace",
                                      c->chunk_base);
        }
        size_t skip = 0; /* a UTF-8 byte order mark: not JSON, but what some editors and tools write first */
        if (c->chunk_base == 0 && n > 0) {
            const char *enc = wide_encoding(c->chunk, (size_t)n);
            if (enc) {
                snprintf(kept, sizeof kept, "byte 0: %s text, not UTF-8", enc);
                return chrome_input_error(c, kept, "the trace is %s text; JSON for tracedb is UTF-8 (convert it: "
                                          "iconv -f %s -t UTF-8)", enc, enc);
            }
            if (n >= 3 && memcmp(c->chunk, "\xef\xbb\xbf", 3) == 0)
                skip = 3, c->chunk_base = 3; /* offsets stay the file's */
        }
        int fed;
        if (n == 0 && c->resync.active) { /* the input ended while skipping damage */
            chrome_resync_end(c);
            break;
        }
        if (n == 0)
            fed = yajl_complete_parse(c->h) == yajl_status_ok ? 0 : c->db_error ? -1 : 2;
        else
            fed = chrome_feed(c, in, c->chunk, c->chunk + skip, (size_t)n - skip);
        while (fed == 3)
            fed = chrome_fast_lane(c, in);
        if (fed == 1 || fed == -1)
            return fed;
        if (fed == 2)
            return chrome_json_error(c, n);
        if (n == 0)
            break;
        if (c->tty && c->chunk_base >= c->next_report) {
            chrome_progress(c, c->total ? read_ahead_offset(in) : c->chunk_base, 0);
            c->next_report += 8u << 20;
        }
    }
    if (c->progress_open)
        chrome_progress(c, c->total, 1);
    return 0;
}

/* A range begun and never ended: kept, ending at its thread's last event (flagged). */
static int chrome_close_range(void *ctx, const struct open_range *o)
{
    struct chrome *c = ctx;
    if (chrome_anomaly(c, TDB_ANOMALY_NEVER_ENDED, o->offset))
        return 0;
    int64_t last = (size_t)o->thread_id < c->thread_last_n ? c->thread_last[o->thread_id] : INT64_MIN;
    return chrome_range_write(c, o, last > o->start_ns ? last : o->start_ns, TDB_ANOMALY_NEVER_ENDED) != 0 ? -1 : 0;
}

/* Ranges begun and never ended, in file order. */
static int chrome_close_open_ranges(struct chrome *c)
{
    return open_ranges_each(&c->open, chrome_close_range, c) != 0 ? -1 : 0;
}

/* Once the file is read: says what anomalies it held, and whether it was a trace at all. Returns the
 * status, 1 where the document is no trace or events were skipped. */
static int chrome_check_document(struct chrome *c, int status)
{
    struct tdb_import_result *res = c->res;
    chrome_resync_report(c);
    for (int a = 0; a < TDB_ANOMALY_COUNT; a++)
        if (res->anomalies[a])
            fprintf(c->err, "tracedb: %s: %lld event(s) %s (the first at byte %zu%s)\n", c->file,
                    (long long)res->anomalies[a], chrome_anomaly_what[a], res->anomaly_offset[a],
                    a == TDB_ANOMALY_END_WITHOUT_BEGIN ? "" : "; flagged in args \"tracedb.anomaly\"");
    if (status == 0 && !c->saw_events && c->shape != 0)
        status = chrome_no_trace(c);
    else if (status == 0 && c->saw_events && !res->events && !res->flows && !res->skipped)
        fprintf(c->err, "tracedb: %s: the trace holds no events\n", c->file);
    res->no_trace = c->shape == 0 || !c->saw_events;
    if (status == 0 && c->shape == 0) {
        if (c->chrome_top_scalar)
            chrome_input_error(c, "not a Chrome trace",
                               "the document is a %s, not a Chrome trace (an array of events, or an object "
                               "with \"traceEvents\")", c->chrome_top_scalar);
        else
            chrome_input_error(c, "empty file", "empty file: no trace events");
        status = 1;
    }
    if (status == 0 && (res->skipped || c->resync.spans))
        status = 1;
    return status;
}

/* The trace's row: where it came from, its metadata, whether it is whole. 0, or -1 on a database error. */
static int chrome_end_trace(struct chrome *c, int status)
{
    struct tdb_import_result *res = c->res;
    chrome_devices(c);
    chrome_resync_extra(c);
    jw_close(&c->extra_w, '}');
    int64_t rank = chrome_rank(c);
    struct tdb_trace_info info = {
        .source_file = c->file,
        .source_format = c->shape == 1 ? "chrome-array" : "chrome-object",
        .name = buf_cstr(&c->trace_name),
        .base_time_ns = c->base_time_ns,
        .rank = rank != TDB_NULL ? rank : res->default_rank,
        .device_properties = buf_cstr(&c->devprops),
        .distributed_info = buf_cstr(&c->distinfo),
        .extra = c->extra.n > 2 ? buf_cstr(&c->extra) : NULL,
        .status = status == 0 ? "complete" : "partial",
        .error = res->first_error[0] ? res->first_error : NULL,
        .skipped_events = res->skipped,
    };
    return tdb_ingest_end_trace(c->ing, &info) != 0 ? -1 : 0;
}

int tdb_import_chrome(struct tdb_ingest *ing, const char *path, int show_progress, FILE *err,
                      struct tdb_import_result *res)
{
    struct tdb_import_result options = *res; /* default_rank, max_string, strict: the rest is output */
    memset(res, 0, sizeof *res);
    res->default_rank = options.default_rank;
    res->max_string = options.max_string;
    res->strict = options.strict;
    const char *file = strcmp(path, "-") == 0 ? "<stdin>" : path;
    size_t total;
    int fd = chrome_open_input(path, file, err, &total);
    if (fd < 0)
        return -1;
    struct read_ahead *in = read_ahead_open(fd, total);
    struct chrome *c = in ? chrome_new(ing, file, err, res, total) : NULL;
    if (!c) {
        read_ahead_close(in);
        fprintf(err, "tracedb: out of memory\n");
        return -1;
    }
    /* status: 0 complete, 1 damaged input (every whole event kept), -1 database error */
    c->tty = show_progress && isatty(2), c->total = total;
    int status = tdb_ingest_begin_trace(ing, file, "chrome") < 0 ? -1 : chrome_read(c, in);
    if (status >= 0 && chrome_close_open_ranges(c) != 0)
        status = -1;
    if (status >= 0)
        status = chrome_check_document(c, status);
    if (status >= 0 && chrome_end_trace(c, status) != 0)
        status = -1;
    if (getenv("TRACEDB_TIMING"))
        fprintf(err, "tracedb: json lanes: %zu events read by simdjson, %zu by yajl\n", c->fast_events, c->yajl_events);
    chrome_free(c);
    read_ahead_close(in);
    return status;
}
