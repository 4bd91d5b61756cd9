/* chrome_import.c: streams a Chrome trace JSON file (PyTorch/Kineto, RAF, Furiosa; plain or gzip)
 * into the ingest writer.
 *
 * The file is read in 256 KiB chunks through zlib (which passes plain files through) and tokenized by
 * yajl's callback parser, so memory stays bounded whatever the file size. Each event object is
 * collected in one reusable arena (its fields, and each arg as raw JSON text), and handed to the
 * writer when its closing brace arrives: a file cut anywhere keeps every event that was whole.
 * Numbers arrive as their text, so times convert to integer ns exactly (timeparse.c).
 * Args that become columns (correlation, device, stream, bytes, launch geometry, memory totals)
 * are not stored again in the event's args JSON.
 */
#include "chrome_internal.h"

/* ---------------------------------------------------------------- driver */

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
        if (!cJSON_IsNumber(id))
            continue;
        char *text = cJSON_PrintUnformatted(d);
        if (!text)
            continue;
        struct tdb_str nm = cJSON_IsString(name) ? (struct tdb_str){name->valuestring, strlen(name->valuestring)}
                                                 : (struct tdb_str){NULL, 0};
        tdb_ingest_device(c->ing, (int64_t)id->valuedouble, nm, (struct tdb_str){text, strlen(text)});
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
    int64_t rank = cJSON_IsNumber(r) ? (int64_t)r->valuedouble : TDB_NULL;
    cJSON_Delete(o);
    return rank;
}

static void progress(const char *file, size_t done, size_t total, int final)
{
    if (total)
        fprintf(stderr, "\rtracedb: importing %s: %3d%%", file, (int)(done * 100 / total));
    else
        fprintf(stderr, "\rtracedb: importing %s: %zu MB", file, done >> 20);
    if (final)
        fputc('\n', stderr);
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

int tdb_import_chrome(struct tdb_ingest *ing, const char *path, int show_progress, FILE *err,
                      struct tdb_import_result *res)
{
    int64_t default_rank = res->default_rank;
    size_t max_string = res->max_string;
    int strict = res->strict;
    memset(res, 0, sizeof *res);
    res->default_rank = default_rank;
    res->max_string = max_string;
    res->strict = strict;
    int is_stdin = strcmp(path, "-") == 0;
    const char *file = is_stdin ? "<stdin>" : path;
    int fd = is_stdin ? dup(0) : open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(err, "tracedb: cannot open %s: %s\n", file, strerror(errno));
        return -1;
    }
    struct stat sb;
    size_t total = (!is_stdin && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) ? (size_t)sb.st_size : 0;
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        fprintf(err, "tracedb: cannot read %s\n", file);
        return -1;
    }
    gzbuffer(gz, total && total < 64 * 1024 ? 8 * 1024 : 128 * 1024);

    struct chrome *c = calloc(1, sizeof *c);
    /* reads of CHUNK bytes; a small plain file gets a buffer its size (fuzzing runs thousands of them) */
    size_t chunk_size = total && total < CHUNK ? (total + 4095) / 4096 * 4096 : CHUNK;
    unsigned char *chunk = malloc(chunk_size);
    if (!c || !chunk) {
        free(c), free(chunk), gzclose(gz);
        fprintf(err, "tracedb: out of memory\n");
        return -1;
    }
    c->ing = ing, c->file = file, c->err = err, c->res = res, c->chunk_size = chunk_size;
    c->base_time_ns = TDB_NULL;
    c->max_string = res->max_string ? res->max_string : DEFAULT_MAX_STRING;
    c->strict = res->strict;
    jw_init(&c->extra_w, &c->extra);
    jw_open(&c->extra_w, '{');
    c->h = yajl_alloc(&chrome_callbacks, NULL, c);
    yajl_config(c->h, yajl_dont_validate_strings, 1);

    int status = tdb_ingest_begin_trace(ing, file, "chrome") < 0 ? -1 : 0; /* 0 complete, 1 damaged input, -1 database error */
    int tty = show_progress && isatty(2);
    size_t next_report = 8u << 20;
    while (status == 0) {
        int n = gzread(gz, chunk, (unsigned)c->chunk_size);
        if (n < 0) {
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            fprintf(err, "tracedb: %s: compressed data damaged after byte %zu of the trace: %s\n", file,
                    c->chunk_base, msg);
            snprintf(res->first_error, sizeof res->first_error, "byte %zu: compressed data damaged: %s", c->chunk_base, msg);
            status = 1;
            break;
        }
        int fed = 0;
        if (n == 0 && c->chunk_base == 0) {
            fprintf(err, "tracedb: %s: empty file: no trace events\n", file);
            snprintf(res->first_error, sizeof res->first_error, "empty file");
            status = 1;
            break;
        }
        if (n == 0) {
            int zerr;
            gzerror(gz, &zerr);
            if (zerr == Z_BUF_ERROR) { /* the gzip stream ends early */
                fprintf(err, "tracedb: %s: compressed file is truncated after byte %zu of the trace\n", file, c->chunk_base);
                snprintf(res->first_error, sizeof res->first_error, "byte %zu: compressed file truncated", c->chunk_base);
                status = 1;
                break;
            }
            fed = yajl_complete_parse(c->h) == yajl_status_ok ? 0 : c->db_error ? -1 : 2;
        } else {
            fed = chrome_feed(c, gz, chunk, chunk, (size_t)n);
        }
        if (fed == 1 || fed == -1) {
            status = fed;
            break;
        }
        if (fed == 2) {
            size_t off = chrome_offset(c);
            if (n != 0 && off > 0)
                off--; /* yajl stands just past the offending token */
            unsigned char *msg = yajl_get_error(c->h, 0, NULL, 0);
            char *nl = strchr((char *)msg, '\n');
            if (nl)
                *nl = 0;
            const char *why = n == 0 ? "the file ends in the middle of the JSON (truncated?)" : (const char *)msg;
            fprintf(err, "tracedb: %s: invalid JSON near byte %zu: %s\n", file, off, why);
            snprintf(res->first_error, sizeof res->first_error, "byte %zu: invalid JSON: %s", off, why);
            yajl_free_error(c->h, msg);
            status = 1;
            break;
        }
        if (n == 0)
            break;
        if (tty && c->chunk_base >= next_report) {
            progress(file, total ? (size_t)gzoffset(gz) : c->chunk_base, total, 0);
            next_report += 8u << 20;
        }
    }
    if (tty && next_report > (8u << 20))
        progress(file, total, total, 1);
    for (size_t i = 0; status >= 0 && i < c->nopen; i++) { /* in file order */
        struct open_range *o = &c->open[i];
        if (chrome_anomaly(c, TDB_ANOMALY_NEVER_ENDED, o->offset))
            continue;
        int64_t last = (size_t)o->thread_id < c->thread_last_n ? c->thread_last[o->thread_id] : INT64_MIN;
        if (chrome_range_write(c, o, last > o->start_ns ? last : o->start_ns, TDB_ANOMALY_NEVER_ENDED) != 0)
            status = -1;
    }
    c->nopen = 0;
    for (int a = 0; status >= 0 && a < TDB_ANOMALY_COUNT; a++)
        if (res->anomalies[a])
            fprintf(err, "tracedb: %s: %lld event(s) %s (the first at byte %zu%s)\n", file,
                    (long long)res->anomalies[a], chrome_anomaly_what[a], res->anomaly_offset[a],
                    a == TDB_ANOMALY_END_WITHOUT_BEGIN ? "" : "; flagged in args \"tracedb.anomaly\"");
    if (status == 0 && !c->saw_events && c->shape != 0)
        status = chrome_no_trace(c);
    else if (status == 0 && c->saw_events && !res->events && !res->flows && !res->skipped)
        fprintf(err, "tracedb: %s: the trace holds no events\n", file);
    res->no_trace = c->shape == 0 || !c->saw_events;
    if (status == 0 && c->shape == 0) {
        if (c->chrome_top_scalar)
            fprintf(err, "tracedb: %s: the document is a %s, not a Chrome trace (an array of events, or an object "
                         "with \"traceEvents\")\n", file, c->chrome_top_scalar);
        else
            fprintf(err, "tracedb: %s: empty file: no trace events\n", file);
        snprintf(res->first_error, sizeof res->first_error, c->chrome_top_scalar ? "not a Chrome trace" : "empty file");
        status = 1;
    }
    if (status == 0 && res->skipped)
        status = 1;
    if (status >= 0) {
        chrome_devices(c);
        jw_close(&c->extra_w, '}');
        struct tdb_trace_info info = {
            .source_file = file,
            .source_format = c->shape == 1 ? "chrome-array" : "chrome-object",
            .name = buf_cstr(&c->trace_name),
            .base_time_ns = c->base_time_ns,
            .rank = chrome_rank(c) != TDB_NULL ? chrome_rank(c) : res->default_rank,
            .device_properties = buf_cstr(&c->devprops),
            .distributed_info = buf_cstr(&c->distinfo),
            .extra = c->extra.n > 2 ? buf_cstr(&c->extra) : NULL,
            .status = status == 0 ? "complete" : "partial",
            .error = res->first_error[0] ? res->first_error : NULL,
            .skipped_events = res->skipped,
        };
        if (tdb_ingest_end_trace(ing, &info) != 0)
            status = -1;
    }
    yajl_free(c->h);
    gzclose(gz);
    for (size_t i = 0; i < c->open_cap; i++) {
        buf_free(&c->open[i].name);
        buf_free(&c->open[i].cat);
        buf_free(&c->open[i].args);
    }
    free(c->open);
    buf_free(&c->arena);
    buf_free(&c->out_args);
    buf_free(&c->series);
    buf_free(&c->top_key);
    buf_free(&c->extra);
    buf_free(&c->devprops);
    buf_free(&c->distinfo);
    buf_free(&c->trace_name);
    buf_free(&c->top_value);
    buf_free(&c->longbuf);
    buf_free(&c->top_keys);
    free(c->thread_last);
    free(c->args);
    free(c);
    free(chunk);
    return status;
}
