/* chrome_export.c: writes a database (or the events of a window) back out as Chrome trace JSON that
 * Perfetto UI and chrome://tracing open, plain or gzip, streaming row by row (bounded memory):
 *   - M events naming processes and threads (names, labels, sort order);
 *   - X events (i for instants and [memory] events) with their args: the args kept as JSON plus the
 *     args the import turned into columns (correlation, External id, device, stream, bytes, launch
 *     geometry, memory totals), so importing the export gives back the same rows;
 *   - C events: the trace's counters, and allocated/reserved memory per device as counter tracks;
 *   - s/t/f flows as imported (ac2g: launch -> kernel): a half its event's row carries right after the
 *     event, as profilers write it (so that importing the export carries it again), the rest at the end.
 * Times print as microseconds with three decimals: exact integer ns, no double rounding. */
#include "chrome_export.h"
#include "db_guard.h"
#include "embedded.h"
#include "report.h"
#include "jsonbuf.h"
#include "kinds.h"
#include "output_claim.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct sink {
    FILE *f;
    gzFile gz;
    int failed; /* errno of the first write that failed (EIO where none was set) */
};

static void sink_write(struct sink *s, const char *p, size_t n)
{
    if (s->failed || n == 0)
        return;
    errno = 0;
    if (s->gz ? gzwrite(s->gz, p, (unsigned)n) != (int)n : fwrite(p, 1, n, s->f) != n)
        s->failed = errno ? errno : EIO;
}

/* Appends ns as microseconds with exactly three decimals (digits, no printf: it was a fifth of the
 * export's time). */
static void put_us(struct buf *b, int64_t ns)
{
    buf_add_digits(b, ns, 3);
}

static void put_int(struct buf *b, int64_t v)
{
    buf_add_digits(b, v, 0);
}

/* A pid or tid column: integers as numbers, text as strings. */
static void put_id(struct buf *b, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_INTEGER)
        put_int(b, sqlite3_column_int64(st, col));
    else
        buf_add_json_string(b, (const char *)sqlite3_column_text(st, col), (size_t)sqlite3_column_bytes(st, col));
}

static void put_key(struct buf *b, int *first, const char *key)
{
    if (!*first)
        buf_addc(b, ',');
    *first = 0;
    buf_add_json_string(b, key, strlen(key));
    buf_addc(b, ':');
}

/* "key":integer when the column is not NULL. */
static void put_int_arg(struct buf *b, int *first, const char *key, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return;
    put_key(b, first, key);
    put_int(b, sqlite3_column_int64(st, col));
}

static void put_real_arg(struct buf *b, int *first, const char *key, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return;
    put_key(b, first, key);
    buf_add_json_real(b, sqlite3_column_double(st, col));
}

static void put_dim3(struct buf *b, int *first, const char *key, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return;
    put_key(b, first, key);
    buf_addc(b, '[');
    for (int i = 0; i < 3; i++) {
        if (i)
            buf_addc(b, ',');
        put_int(b, sqlite3_column_int64(st, col + i));
    }
    buf_addc(b, ']');
}

enum {
    C_ID, C_KIND, C_NAME, C_CAT, C_PID, C_TID, C_START, C_DUR, C_CORR, C_EXT, C_DEVICE, C_STREAM, C_BYTES, C_ARGS,
    C_GRID, C_BLOCK = C_GRID + 3, C_REGS = C_BLOCK + 3, C_SHMEM, C_BPSM, C_WPSM, C_OCC,
    C_ADDR, C_TOTAL_ALLOC, C_TOTAL_RES, C_DEVTYPE, C_FLOW, C_FLOW_CAT
};

/* FLOW: the flow half the row carries and its category (NULL, NULL in a database made before event.flow) */
#define EXPORT_EVENTS_SQL(FLOW, FLOW_JOIN)                                                                      \
    "SELECT e.id, e.kind, n.value, c.value, p.pid, t.tid, e.start_ns, e.dur_ns, e.correlation, e.external_id, " \
    "e.device, e.stream, e.bytes, e.args, l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z, "      \
    "l.registers, l.shared_mem, l.blocks_per_sm, l.warps_per_sm, l.occupancy_pct, "                              \
    "m.addr, m.total_allocated, m.total_reserved, m.device_type, " FLOW " "                                      \
    "FROM scope_event e JOIN string n ON n.id = e.name_id LEFT JOIN string c ON c.id = e.cat_id "               \
    "JOIN thread t ON t.id = e.thread_id JOIN process p ON p.id = t.process_id "                                \
    "LEFT JOIN kernel_launch l ON l.event_id = e.id LEFT JOIN memory_event m ON m.event_id = e.id " FLOW_JOIN   \
    "WHERE e.kind IN (SELECT id FROM temp.export_kinds) ORDER BY e.id"
static const char export_events_sql[] = EXPORT_EVENTS_SQL("e.flow, fc.value", "LEFT JOIN string fc ON fc.id = e.flow >> 3 ");
static const char export_events_before_flow_sql[] = EXPORT_EVENTS_SQL("NULL, NULL", "");

/* A flow half: {"ph":phase,"id":...,"pid":...,"tid":...,"ts":...,"cat":...,"name":...,"bp":"e"}, its id, pid,
 * tid and category from st's columns (id and category left out when NULL). */
static void put_flow(struct buf *b, const char *phase, size_t plen, sqlite3_stmt *st, int c_id, int c_pid, int c_tid,
                     int64_t ts, int c_cat, int bind_enclosing)
{
    buf_add(b, "{\"ph\":", 6);
    buf_add_json_string(b, phase, plen);
    if (sqlite3_column_type(st, c_id) != SQLITE_NULL) {
        buf_add(b, ",\"id\":", 6);
        put_int(b, sqlite3_column_int64(st, c_id));
    }
    buf_add(b, ",\"pid\":", 7);
    put_id(b, st, c_pid);
    buf_add(b, ",\"tid\":", 7);
    put_id(b, st, c_tid);
    buf_add(b, ",\"ts\":", 6);
    put_us(b, ts);
    if (sqlite3_column_type(st, c_cat) != SQLITE_NULL) {
        buf_add(b, ",\"cat\":", 7);
        buf_add_json_string(b, (const char *)sqlite3_column_text(st, c_cat), (size_t)sqlite3_column_bytes(st, c_cat));
        buf_add(b, ",\"name\":", 8);
        buf_add_json_string(b, (const char *)sqlite3_column_text(st, c_cat), (size_t)sqlite3_column_bytes(st, c_cat));
    }
    if (bind_enclosing)
        buf_add(b, ",\"bp\":\"e\"", 9);
    buf_addc(b, '}');
}

static void event_json(struct buf *b, sqlite3_stmt *st)
{
    int kind = sqlite3_column_int(st, C_KIND);
    int instant = kind == TDB_KIND_MEMORY || kind == TDB_KIND_INSTANT || kind == TDB_KIND_ASYNC;
    const char *args = (const char *)sqlite3_column_text(st, C_ARGS);
    size_t alen = (size_t)sqlite3_column_bytes(st, C_ARGS);
    if (instant) {
        /* the import keeps an instant's scope ("s", a field beside "args") first among its args: put it back */
        const char *scope = "t";
        size_t slen = 1;
        if (args && alen > 8 && strncmp(args, "{\"s\":\"", 6) == 0 && args[7] == '"') {
            scope = args + 6, slen = 1;
            args += 8, alen -= 8; /* what follows: "," and more args, or "}" */
            if (args[0] == ',')
                args++, alen--;
            args--, alen++; /* keep a leading "{" position for the copy below */
        }
        buf_add(b, "{\"ph\":\"i\",\"s\":\"", 15);
        buf_add(b, scope, slen);
        buf_addc(b, '"');
    } else {
        buf_add(b, "{\"ph\":\"X\"", 9);
    }
    if (sqlite3_column_type(st, C_CAT) != SQLITE_NULL) {
        buf_add(b, ",\"cat\":", 7);
        buf_add_json_string(b, (const char *)sqlite3_column_text(st, C_CAT), (size_t)sqlite3_column_bytes(st, C_CAT));
    }
    buf_add(b, ",\"name\":", 8);
    buf_add_json_string(b, (const char *)sqlite3_column_text(st, C_NAME), (size_t)sqlite3_column_bytes(st, C_NAME));
    buf_add(b, ",\"pid\":", 7);
    put_id(b, st, C_PID);
    buf_add(b, ",\"tid\":", 7);
    put_id(b, st, C_TID);
    buf_add(b, ",\"ts\":", 6);
    put_us(b, sqlite3_column_int64(st, C_START));
    if (!instant) {
        buf_add(b, ",\"dur\":", 7);
        put_us(b, sqlite3_column_int64(st, C_DUR));
    }
    buf_add(b, ",\"args\":{", 9);
    int first = 1;
    if (args && alen > 2) { /* the kept args first, in their order, then the columns */
        buf_add_utf8(b, args + 1, alen - 2);
        first = 0;
    }
    if (kind == TDB_KIND_MEMORY) { /* [memory]: Kineto's own keys */
        put_int_arg(b, &first, "Addr", st, C_ADDR);
        put_int_arg(b, &first, "Bytes", st, C_BYTES);
        put_int_arg(b, &first, "Total Allocated", st, C_TOTAL_ALLOC);
        put_int_arg(b, &first, "Total Reserved", st, C_TOTAL_RES);
        put_int_arg(b, &first, "Device Type", st, C_DEVTYPE);
        put_int_arg(b, &first, "Device Id", st, C_DEVICE);
    } else {
        put_int_arg(b, &first, "External id", st, C_EXT);
        put_int_arg(b, &first, "device", st, C_DEVICE);
        put_int_arg(b, &first, "stream", st, C_STREAM);
        put_int_arg(b, &first, "correlation", st, C_CORR);
        put_int_arg(b, &first, "bytes", st, C_BYTES);
        put_int_arg(b, &first, "registers per thread", st, C_REGS);
        put_int_arg(b, &first, "shared memory", st, C_SHMEM);
        put_real_arg(b, &first, "blocks per SM", st, C_BPSM);
        put_real_arg(b, &first, "warps per SM", st, C_WPSM);
        put_dim3(b, &first, "grid", st, C_GRID);
        put_dim3(b, &first, "block", st, C_BLOCK);
        put_real_arg(b, &first, "est. achieved occupancy %", st, C_OCC);
    }
    buf_add(b, "}}", 2);
    if (sqlite3_column_type(st, C_FLOW) != SQLITE_NULL) { /* the flow half it carries, right after it */
        int64_t flow = sqlite3_column_int64(st, C_FLOW);
        buf_add(b, ",\n", 2);
        put_flow(b, &"?stf"[flow & 3], 1, st, C_CORR, C_PID, C_TID, sqlite3_column_int64(st, C_START), C_FLOW_CAT,
                 (flow >> 2) & 1);
    }
}

/* Runs sql and writes each row through fn, comma-separated after *count earlier items. */
static int export_rows(sqlite3 *db, const char *sql, void (*fn)(struct buf *, sqlite3_stmt *), struct sink *out,
                       struct buf *b, int64_t *count, struct report_io *io)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !out->failed) {
        b->n = 0;
        buf_add(b, *count ? ",\n" : "\n", *count ? 2 : 1);
        fn(b, st);
        sink_write(out, b->p, b->n);
        (*count)++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && !out->failed) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

/* M events: SELECT pid, tid, field, text, number */
static void meta_json(struct buf *b, sqlite3_stmt *st)
{
    const char *field = (const char *)sqlite3_column_text(st, 2);
    buf_add(b, "{\"ph\":\"M\",\"name\":", 17);
    buf_add_json_string(b, field, strlen(field));
    buf_add(b, ",\"pid\":", 7);
    put_id(b, st, 0);
    buf_add(b, ",\"tid\":", 7);
    put_id(b, st, 1);
    buf_add(b, ",\"ts\":0,\"args\":{", 16);
    const char *key = strstr(field, "sort_index") ? "sort_index" : strstr(field, "labels") ? "labels" : "name";
    buf_add_json_string(b, key, strlen(key));
    buf_addc(b, ':');
    if (sqlite3_column_type(st, 3) != SQLITE_NULL)
        buf_add_json_string(b, (const char *)sqlite3_column_text(st, 3), (size_t)sqlite3_column_bytes(st, 3));
    else
        put_int(b, sqlite3_column_int64(st, 4));
    buf_add(b, "}}", 2);
}

static const char export_meta_sql[] =
    "SELECT p.pid, (SELECT min(t.tid) FROM thread t WHERE t.process_id = p.id), 'process_name', p.name, NULL "
    "  FROM process p WHERE p.name IS NOT NULL AND p.id IN (SELECT process_id FROM thread) "
    "UNION ALL SELECT p.pid, (SELECT min(t.tid) FROM thread t WHERE t.process_id = p.id), 'process_labels', p.labels, NULL "
    "  FROM process p WHERE p.labels IS NOT NULL AND p.id IN (SELECT process_id FROM thread) "
    "UNION ALL SELECT p.pid, (SELECT min(t.tid) FROM thread t WHERE t.process_id = p.id), 'process_sort_index', NULL, p.sort_index "
    "  FROM process p WHERE p.sort_index IS NOT NULL AND p.id IN (SELECT process_id FROM thread) "
    "UNION ALL SELECT p.pid, t.tid, 'thread_name', t.name, NULL FROM thread t JOIN process p ON p.id = t.process_id "
    "  WHERE t.name IS NOT NULL "
    "UNION ALL SELECT p.pid, t.tid, 'thread_sort_index', NULL, t.sort_index FROM thread t JOIN process p ON p.id = t.process_id "
    "  WHERE t.sort_index IS NOT NULL";

/* C events: SELECT pid, tid, name, series, ts, value */
static void counter_json(struct buf *b, sqlite3_stmt *st)
{
    buf_add(b, "{\"ph\":\"C\",\"name\":", 17);
    buf_add_json_string(b, (const char *)sqlite3_column_text(st, 2), (size_t)sqlite3_column_bytes(st, 2));
    buf_add(b, ",\"pid\":", 7);
    put_id(b, st, 0);
    buf_add(b, ",\"tid\":", 7);
    put_id(b, st, 1);
    buf_add(b, ",\"ts\":", 6);
    put_us(b, sqlite3_column_int64(st, 4));
    buf_add(b, ",\"args\":{", 9);
    buf_add_json_string(b, (const char *)sqlite3_column_text(st, 3), (size_t)sqlite3_column_bytes(st, 3));
    buf_addc(b, ':');
    buf_add_json_real(b, sqlite3_column_double(st, 5));
    buf_add(b, "}}", 2);
}

/* Counter names are "<event name>.<series>": split at the last dot. Memory totals become tracks
 * named after the device. */
static const char export_counters_sql[] =
    "SELECT pid, tid, CASE WHEN pfx = '' THEN full ELSE substr(pfx, 1, length(pfx) - 1) END, "
    "       CASE WHEN pfx = '' THEN full ELSE substr(full, length(pfx) + 1) END, ts_ns, value "
    "FROM (SELECT p.pid, t.tid, n.value AS full, rtrim(n.value, replace(n.value, '.', '')) AS pfx, c.ts_ns, c.value "
    "      FROM counter c JOIN string n ON n.id = c.name_id JOIN thread t ON t.id = c.thread_id "
    "      JOIN process p ON p.id = t.process_id "
    "      WHERE c.ts_ns >= (SELECT coalesce(min(start_ns), -9223372036854775807) FROM scope_window) "
    "        AND c.ts_ns < (SELECT coalesce(max(end_ns), 9223372036854775807) FROM scope_window) "
    "      ORDER BY c.id) "
    "UNION ALL "
    "SELECT p.pid, t.tid, 'Memory ' || CASE m.device_type WHEN 0 THEN 'cpu' ELSE 'device ' || coalesce(e.device, '?') END, "
    "       s.series, e.start_ns, CASE s.series WHEN 'allocated' THEN m.total_allocated ELSE m.total_reserved END "
    "FROM memory_event m JOIN scope_event e ON e.id = m.event_id JOIN thread t ON t.id = e.thread_id "
    "JOIN process p ON p.id = t.process_id, (SELECT 'allocated' AS series UNION ALL SELECT 'reserved') s "
    "WHERE (SELECT count(*) FROM temp.export_kinds WHERE id = 11) "
    "  AND CASE s.series WHEN 'allocated' THEN m.total_allocated ELSE m.total_reserved END IS NOT NULL";

/* Flows: SELECT flow_id, cat, phase, pid, tid, ts, bind */
static void flow_json(struct buf *b, sqlite3_stmt *st)
{
    put_flow(b, (const char *)sqlite3_column_text(st, 2), (size_t)sqlite3_column_bytes(st, 2), st, 0, 3, 4,
             sqlite3_column_int64(st, 5), 1, sqlite3_column_int(st, 6));
}

/* The flows the events did not carry out: the loose halves, and those whose event was left out (by
 * --kinds or a window) but whose time is in the window's bounds, as every half was exported before
 * rows carried them. flow: the view as schema.sql makes it (flow_view, a temporary one: a database's
 * own views are never run), or the table of a database made before event.flow; THOSE: the condition on
 * the halves rows carry; ORDER: loose halves as they came. */
#define EXPORT_FLOWS_SQL(THOSE, ORDER)                                                                           \
    "SELECT f.flow_id, c.value, f.phase, p.pid, t.tid, f.ts_ns, f.bind_enclosing "                        \
    "FROM flow f LEFT JOIN string c ON c.id = f.cat_id JOIN thread t ON t.id = f.thread_id "             \
    "JOIN process p ON p.id = t.process_id "                                                              \
    "WHERE f.ts_ns >= (SELECT coalesce(min(start_ns), -9223372036854775807) FROM scope_window) "          \
    "  AND f.ts_ns < (SELECT coalesce(max(end_ns), 9223372036854775807) FROM scope_window) " THOSE ORDER
static const char export_flows_sql[] = EXPORT_FLOWS_SQL(
    "AND (f.event_id IS NULL OR NOT EXISTS (SELECT 1 FROM scope_event s WHERE s.id = f.event_id "
    "AND s.kind IN (SELECT id FROM temp.export_kinds))) ", "ORDER BY f.id, f.event_id");
static const char export_flows_before_flow_sql[] = EXPORT_FLOWS_SQL("", "ORDER BY f.id");

/* temp.flow, schema.sql's view flow (over event.flow and flow_loose), in front of the database's own. 0,
 * or -1 (said). */
static int flow_view(sqlite3 *db, struct report_io *io)
{
    static const char head[] = "CREATE VIEW flow AS";
    int len;
    const char *view = tdb_embedded_statement("schema/schema.sql", head, &len);
    char *sql = view ? sqlite3_mprintf("CREATE TEMP VIEW flow AS%.*s", len - (int)(sizeof head - 1), view + sizeof head - 1)
                     : NULL;
    int rc = sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    if (rc != 0)
        fprintf(io->err, "%s: %s\n", io->prog, sql ? sqlite3_errmsg(db) : "internal error: no view flow in schema.sql");
    sqlite3_free(sql);
    return rc;
}

/* The first trace's top-level facts, as Kineto writes them. */
static void export_header(sqlite3 *db, struct sink *out)
{
    struct buf b = {0};
    buf_add(&b, "{\n\"schemaVersion\": 1", 20);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT device_properties, distributed_info, name, base_time_ns, extra FROM trace "
                               "ORDER BY id LIMIT 1", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        static const char *const keys[] = {"deviceProperties", "distributedInfo"};
        for (int i = 0; i < 2; i++) {
            if (sqlite3_column_type(st, i) == SQLITE_NULL)
                continue;
            buf_add(&b, ",\n\"", 3);
            buf_add(&b, keys[i], strlen(keys[i]));
            buf_add(&b, "\": ", 3);
            buf_add(&b, sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
        }
        if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
            buf_add(&b, ",\n\"traceName\": ", 15);
            buf_add_json_string(&b, (const char *)sqlite3_column_text(st, 2), (size_t)sqlite3_column_bytes(st, 2));
        }
        if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
            buf_add(&b, ",\n\"baseTimeNanoseconds\": ", 25);
            put_int(&b, sqlite3_column_int64(st, 3));
        }
    }
    sqlite3_finalize(st);
    buf_add(&b, ",\n\"displayTimeUnit\": \"ms\",\n\"traceEvents\": [", 43);
    sink_write(out, b.p, b.n);
    buf_free(&b);
}

int chrome_export(sqlite3 *db, const char *path, const char *write_to, struct report_io *io)
{
    struct sink out = {0};
    size_t n = strlen(path);
    int to_stdout = strcmp(path, "-") == 0;
    if (to_stdout)
        out.f = io->out;
    else if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
        out.gz = gzopen(write_to, "wb6");
    else
        out.f = tdb_out_fopen(write_to);
    if (!out.f && !out.gz) { /* (why the name cannot be made, cmd_export said before) */
        fprintf(io->err, "%s: cannot write %s: %s\n", io->prog, path, errno ? tdb_out_reason(errno) : "out of memory");
        return 1;
    }
    export_header(db, &out);
    struct buf b = {0};
    int64_t count = 0;
    int carries = tdb_db_compiles(db, "SELECT flow FROM main.event LIMIT 0"); /* else made before event.flow */
    int rc = export_rows(db, export_meta_sql, meta_json, &out, &b, &count, io);
    if (rc == 0)
        rc = export_rows(db, carries ? export_events_sql : export_events_before_flow_sql, event_json, &out, &b, &count, io);
    if (rc == 0)
        rc = export_rows(db, export_counters_sql, counter_json, &out, &b, &count, io);
    if (rc == 0 && carries)
        rc = flow_view(db, io);
    if (rc == 0)
        rc = export_rows(db, carries ? export_flows_sql : export_flows_before_flow_sql, flow_json, &out, &b, &count, io);
    sink_write(&out, "\n]\n}\n", 5);
    buf_free(&b);
    int failed = out.failed;
    errno = 0;
    if (out.gz ? gzclose(out.gz) != Z_OK : !to_stdout && fclose(out.f) != 0)
        failed = failed ? failed : errno ? errno : EIO;
    if (failed) {
        fprintf(io->err, "%s: error writing %s: %s\n", io->prog, path, tdb_out_reason(failed));
        return 1;
    }
    return rc != 0;
}
