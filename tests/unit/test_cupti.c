/* test_cupti.c: the CUPTI translation with real CUDA 13 record structs (CUpti_ActivityKernel10,
 * Memcpy6, Memset4, Memory4, API, Marker2), built by hand as CUPTI would fill them, then the reports
 * on the resulting database. Values are worked by hand below. */
#include "helpers.h"
#include "tracedb.h"
#include "cupti_translate.h"
#include "jsonbuf.h"
#include "stage_convert.h"
#include <criterion/criterion.h>
#include <cupti_activity.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *api_names(void *ctx, int driver, uint32_t cbid)
{
    (void)ctx;
    if (!driver && cbid == 211)
        return "cudaLaunchKernel_v7000"; /* as CUPTI names them: the reports read them without the version */
    if (!driver && cbid == 41)
        return "cudaMemcpyAsync_v3020";
    if (driver && cbid == 1)
        return "cuMemAlloc_v2"; /* a driver symbol's own name: kept whole */
    return NULL;
}

/* Times in us from 1,000,000 us. A CPU thread (pid 100, tid 7) runs op "aten::mm" [0,100) via NVTX
 * markers, holding cudaLaunchKernel [10,20) (correlation 1) and cudaMemcpyAsync [30,40) (correlation 2).
 * The GPU (device 0, stream 7) runs the kernel [25,75) and the memcpy (1 MiB HtoD) [80,90); a memset
 * [95,97) launched by nothing we saw. Memory: alloc 4096 at 5, alloc 1024 at 6, release 4096 at 50. */
static int stage_one(void *arg, int64_t pid, int64_t tid, const struct tdb_event *ev)
{
    return stage_event_encode(arg, pid, tid, ev);
}

/* A staging file for db, its header written (pid 100). */
static FILE *stage_file_open(const char *db)
{
    char path[1200];
    snprintf(path, sizeof path, "%s%s", db, STAGE_SUFFIX);
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    int64_t pid = 100;
    fwrite(STAGE_MAGIC, 1, 8, f);
    fwrite(&pid, 8, 1, f);
    return f;
}

/* b's staged events as one STAGE_EVENTS chunk (b emptied). */
static void stage_events_chunk(FILE *f, struct buf *b)
{
    struct stage_chunk h = {STAGE_EVENTS, (uint32_t)b->n, 0};
    fwrite(&h, sizeof h, 1, f);
    fwrite(b->p, 1, b->n, f);
    b->n = 0;
}

/* The close chunk, and the file closed. */
static void stage_file_close(FILE *f, int64_t end_ns)
{
    struct stage_close c = {end_ns, 0};
    struct stage_chunk h = {STAGE_CLOSE, sizeof c, 0};
    fwrite(&h, sizeof h, 1, f);
    fwrite(&c, sizeof c, 1, f);
    fclose(f);
}

/* A staging file as a recording leaves it: the header, one chunk of CUPTI's events, the close. */
static void write_stage_file(const char *db, struct buf *events)
{
    FILE *f = stage_file_open(db);
    stage_events_chunk(f, events);
    stage_file_close(f, 1000000000000LL + 200000);
}

/* staged: the records are translated as the injection library does it (into staged events, through
 * a staging file that tdb_finish builds the database from); else straight into an ingest of `mode`. */
static void translate_and_report(enum tdb_open_mode mode, int staged)
{
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/cupti.db", dir);
    struct tdb_ingest *ing = staged ? NULL : tdb_ingest_open(db, mode, stderr);
    struct buf events = {0};
    cr_assert(ing || staged);
    if (ing)
        tdb_ingest_begin_trace(ing, "cupti test", "recorder");
    struct cupti_translate *t = calloc(1, sizeof *t);
    t->ing = ing, t->pid = 100, t->api_name = api_names;
    if (staged)
        t->emit = stage_one, t->emit_arg = &events;
    const uint64_t T0 = 1000000000000ULL; /* ns */
#define US(x) (T0 + (uint64_t)(x) * 1000)

    CUpti_ActivityMarker2 m = {0};
    m.kind = CUPTI_ACTIVITY_KIND_MARKER;
    m.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
    m.timestamp = US(0);
    m.id = 9;
    m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    m.objectId.pt.processId = 100;
    m.objectId.pt.threadId = 7;
    m.name = "aten::mm";
    cr_assert_eq(cupti_translate_record(t, &m), 0);

    CUpti_ActivityAPI a = {0};
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = 211, a.start = US(10), a.end = US(20), a.processId = 100, a.threadId = 7, a.correlationId = 1;
    cr_assert_eq(cupti_translate_record(t, &a), 0);
    a.cbid = 41, a.start = US(30), a.end = US(40), a.correlationId = 2;
    cr_assert_eq(cupti_translate_record(t, &a), 0);
    a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    a.cbid = 1, a.start = US(110), a.end = US(111), a.correlationId = 4; /* after aten::mm */
    cr_assert_eq(cupti_translate_record(t, &a), 0);

    CUpti_ActivityKernel10 k = {0};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = US(25), k.end = US(75), k.deviceId = 0, k.streamId = 7, k.correlationId = 1;
    k.gridX = 32, k.gridY = 1, k.gridZ = 2, k.blockX = 128, k.blockY = 1, k.blockZ = 1;
    k.registersPerThread = 64, k.staticSharedMemory = 1024, k.dynamicSharedMemory = 3072;
    k.name = "_Z6matmulPfS_S_i"; /* matmul(float*, float*, float*, int) */
    cr_assert_eq(cupti_translate_record(t, &k), 0);

    CUpti_ActivityMemcpy6 c = {0};
    c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, c.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    c.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    c.bytes = 1 << 20, c.start = US(80), c.end = US(90), c.deviceId = 0, c.streamId = 7, c.correlationId = 2;
    cr_assert_eq(cupti_translate_record(t, &c), 0);

    CUpti_ActivityMemset4 s = {0};
    s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    s.bytes = 512, s.start = US(95), s.end = US(97), s.deviceId = 0, s.streamId = 7, s.correlationId = 3;
    s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    cr_assert_eq(cupti_translate_record(t, &s), 0);

    CUpti_ActivityMemory4 mem = {0};
    mem.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    mem.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    mem.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    mem.address = 0x7000, mem.bytes = 4096, mem.timestamp = US(5), mem.processId = 100, mem.deviceId = 0;
    cr_assert_eq(cupti_translate_record(t, &mem), 0);
    mem.address = 0x9000, mem.bytes = 1024, mem.timestamp = US(6);
    cr_assert_eq(cupti_translate_record(t, &mem), 0);
    mem.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
    mem.address = 0x7000, mem.bytes = 4096, mem.timestamp = US(50);
    cr_assert_eq(cupti_translate_record(t, &mem), 0);

    m.flags = CUPTI_ACTIVITY_FLAG_MARKER_END, m.timestamp = US(100), m.name = NULL;
    cr_assert_eq(cupti_translate_record(t, &m), 0);
    cr_assert_eq(t->unknown + t->incomplete, 0);
    free(t);
    if (staged) {
        cr_assert_gt(events.n, 0);
        write_stage_file(db, &events);
        buf_free(&events);
        cr_assert_eq(tdb_finish(db, stderr), 0);
    } else {
        struct tdb_trace_info info = {.source_format = "recorder", .base_time_ns = TDB_NULL, .rank = TDB_NULL,
                                      .status = "complete"};
        cr_assert_eq(tdb_ingest_end_trace(ing, &info), 0);
        cr_assert_eq(tdb_ingest_finish(ing, 1), 0);
    }

    sqlite3 *d = db_open(db);
    char *name = db_text(d, "SELECT name FROM kernels");
    cr_assert_str_eq(name, "matmul(float*, float*, float*, int)", "demangled");
    free(name);
    cr_assert_eq(db_int(d, "SELECT dur_ns * 1000 + grid_x + grid_z + block_x FROM kernels"), 50000LL * 1000 + 32 + 2 + 128);
    cr_assert_eq(db_int(d, "SELECT shared_mem FROM kernels"), 4096);
    name = db_text(d, "SELECT name FROM memcpy");
    cr_assert_str_eq(name, "Memcpy HtoD (Pinned -> Device)");
    free(name);
    /* kernel -> cudaLaunchKernel (correlation 1) -> aten::mm (the NVTX range holding the call; a recording has
     * ranges, no operators, so op_id is empty) */
    cr_assert_eq(db_int(d, "SELECT count(*) FROM kernels k JOIN api_calls a ON a.id = k.launch_id JOIN ranges r ON r.id = a.parent_id "
                           "WHERE a.name = 'cudaLaunchKernel' AND r.name = 'aten::mm' AND k.op_id IS NULL"), 1);
    cr_assert_eq(db_int(d, "SELECT launch_id IS NULL FROM memset"), 1, "a launch we never saw");
    name = db_text(d, "SELECT group_concat(name, ' ') FROM (SELECT name FROM api_calls ORDER BY start_ns)");
    cr_assert_str_eq(name, "cudaLaunchKernel cudaMemcpyAsync cuMemAlloc_v2", "runtime names without CUPTI's ABI version");
    free(name);
    cr_assert_eq(launch_ns_wrong(d, "main"), 0, "the linked rows hold their launch's start");
    cr_assert_gt(db_int(d, "SELECT count(*) FROM event WHERE launch_ns IS NOT NULL"), 0);
    sqlite3_close(d);

    char args[1200];
    int st;
    /* ops: aten::mm launched the kernel (50 us) and the memcpy (10 us) through its own calls */
    snprintf(args, sizeof args, "'%s' ops '%s' --format csv | grep '^aten::mm,'", tracedb(), db);
    char *out = run_capture(&st, "%s", args);
    cr_assert_eq(st, 0);
    /* name,calls,self_cpu_ns,self_cpu_pct,cpu_total_ns,cpu_total_pct,cpu_avg_ns,self_device_ns,... */
    long calls, self_cpu, total_cpu, avg, self_dev;
    double p1, p2;
    cr_assert_eq(sscanf(out, "aten::mm,%ld,%ld,%lf,%ld,%lf,%ld,%ld", &calls, &self_cpu, &p1, &total_cpu, &p2, &avg, &self_dev), 7, "%s", out);
    cr_assert_eq(calls, 1);
    cr_assert_eq(self_cpu, 80000, "100 us minus the two 10 us calls");
    cr_assert_eq(self_dev, 60000, "kernel 50 us + memcpy 10 us");
    free(out);
    /* device: busy [25,75) + [80,90) + [95,97) = 62 us; run (computation) 50 us; span [25,97) 72 us */
    out = run_capture(&st, "'%s' device '%s' --format csv", tracedb(), db);
    cr_assert(strstr(out, ",0,72000,62000,50000,12000,10000,"), "%s", out);
    free(out);
    /* memory: peak 5120 bytes at 6 us, 1024 leaked */
    out = run_capture(&st, "'%s' memory '%s' --format json", tracedb(), db);
    cr_assert(strstr(out, "\"peak_allocated_bytes\":5120") && strstr(out, "\"leaked_bytes\":1024"), "%s", out);
    free(out);
    /* launches: the kernel and its launch call, read by the call's name */
    out = run_capture(&st, "'%s' launches '%s' --format csv", tracedb(), db);
    cr_assert(st == 0 && strstr(out, "matmul(float*, float*, float*, int)"), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' kernels '%s' --format json", tracedb(), db);
    cr_assert(strstr(out, "\"instances\":1") && strstr(out, "\"total_ns\":50000"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(cupti, records_translate_and_reports_answer)
{
    translate_and_report(TDB_OPEN_CREATE, 0);
}

/* The same records the way the injection library writes them: into a live recording, whose rows are
 * read back and linked when it ends. */
Test(cupti, live_recording_links_and_reports_the_same)
{
    translate_and_report(TDB_OPEN_LIVE, 0);
}

/* The way the injection library records them now: translated into events staged with the rest, and
 * the database built from the staging file (here by tdb_finish, as after a crash; close does the same). */
Test(cupti, staged_events_build_the_same_database)
{
    translate_and_report(TDB_OPEN_LIVE, 1);
}

/* One thread's ring records as a STAGE_RECORDS chunk: a range begun or ended (R_BEGIN, R_END) at ts. */
static void stage_range_record(FILE *f, int type, const char *name, int64_t ts)
{
    unsigned char rec[64] = {0};
    struct rec x = {(uint8_t)type, TDB_KIND_RANGE, 0, 0, (uint16_t)(type == R_BEGIN ? strlen(name) : 0), 0, ts};
    memcpy(rec, &x, sizeof x);
    if (type == R_BEGIN)
        memcpy(rec + sizeof x, name, strlen(name));
    uint32_t size = rec_size(&x);
    struct stage_chunk h = {STAGE_RECORDS, size, 1};
    fwrite(&h, sizeof h, 1, f);
    fwrite(rec, 1, size, f);
}

/* A recording's rows are written with the nesting and launch links the end of the trace finds, so that
 * closing rewrites only the rows that cannot know them yet. Worked by hand: thread 7 holds the NVTX
 * range "train" [0, 5 ms), open until the end, and "step" j [j ms + 100 us, + 800 us) for j = 0..3, each
 * ended (staged) before CUPTI's buffer of the calls inside it comes. In each step 50 cudaLaunchKernel
 * [s, s + 4 us), each holding a cuKernelGetName [s + 1 us, + 100 ns) (CUPTI's record of the inner call
 * first), and their kernels [s + 20 us, + 500 ns) in a buffer after the calls'; after each step, 5 more
 * launches inside "train" only, their kernels in the calls' buffer ahead of them (CUPTI's buffers hold a
 * kernel's record ahead of its launch's: on an H200, all 1 M of a burst's, which a recording linking
 * work only to launches already met left every kernel to rewrite). The end finds every call's parent, depth and self time, and every
 * kernel's launch, as the rows were written: only the five ranges change (their self time less the
 * calls inside them, which came after they were written). */
Test(cupti, converted_rows_need_no_rewrite_but_the_ranges)
{
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/nest.db", dir);
    FILE *f = stage_file_open(db);
    struct {
        struct stage_thread t;
        char name[8];
    } th = {{7, 4, 0}, "main"};
    struct stage_chunk h = {STAGE_THREAD, sizeof th, 1};
    fwrite(&h, sizeof h, 1, f);
    fwrite(&th, sizeof th, 1, f);
    const int64_t T0 = 1000000000000LL, US = 1000;
    stage_range_record(f, R_BEGIN, "train", T0);
    struct cupti_translate *t = calloc(1, sizeof *t);
    struct buf api = {0}, kernels = {0};
    t->pid = 100, t->api_name = api_names, t->emit = stage_one;
    uint32_t corr = 1;
    for (int j = 0; j < 4; j++) {
        int64_t step = T0 + j * 1000 * US + 100 * US;
        stage_range_record(f, R_BEGIN, "step", step);
        stage_range_record(f, R_END, "", step + 800 * US);
        for (int i = 0; i < 55; i++, corr++) {
            int64_t s = i < 50 ? step + 10 * US + i * 10 * US : step + 850 * US + (i - 50) * 10 * US;
            CUpti_ActivityKernel10 k = {0};
            k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k.start = (uint64_t)(s + 20 * US), k.end = (uint64_t)(s + 20 * US + 500);
            k.deviceId = 0, k.streamId = 13, k.correlationId = corr, k.name = "_Z12empty_kernelv";
            t->emit_arg = i < 50 ? &kernels : &api; /* the last five: in the calls' buffer, ahead of their launch */
            cr_assert_eq(cupti_translate_record(t, &k), 0);
            CUpti_ActivityAPI d = {0}, a = {0};
            d.kind = CUPTI_ACTIVITY_KIND_DRIVER, d.cbid = 1, d.start = (uint64_t)(s + US), d.end = (uint64_t)(s + US + 100);
            d.processId = 100, d.threadId = 7, d.correlationId = 100000 + corr;
            a.kind = CUPTI_ACTIVITY_KIND_RUNTIME, a.cbid = 211, a.start = (uint64_t)s, a.end = (uint64_t)(s + 4 * US);
            a.processId = 100, a.threadId = 7, a.correlationId = corr;
            t->emit_arg = &api;
            cr_assert_eq(cupti_translate_record(t, &d), 0);
            cr_assert_eq(cupti_translate_record(t, &a), 0);
        }
        stage_events_chunk(f, &api);
        stage_events_chunk(f, &kernels);
    }
    stage_range_record(f, R_END, "", T0 + 5000 * US);
    stage_file_close(f, T0 + 6000 * US);
    buf_free(&api), buf_free(&kernels), free(t);

    int st;
    char *out = run_capture(&st, "TRACEDB_TIMING=1 '%s' finish '%s' 2>&1", tracedb(), db);
    cr_assert_eq(st, 0, "%s", out);
    /* the keys say what each row holds: the end finds the five ranges to rewrite, and changes them */
    long long to_rewrite = -1, rows = -1, written = -1;
    const char *line = strstr(out, "tracedb: ");
    while (line && sscanf(line, "tracedb: %lld rows to rewrite of %lld: runs of rows, %lld written", &to_rewrite, &rows, &written) != 3)
        line = strstr(line + 1, "tracedb: ");
    cr_assert(line, "%s", out);
    cr_assert_eq(rows, 5 + 4 * 55 * 3, "%s", out);
    cr_assert_eq(to_rewrite, 5, "only the ranges' self time changes at the end: %s", out);
    cr_assert_eq(written, 5, "%s", out);
    free(out);
    /* what the database holds (the end's values, as before) */
    sqlite3 *d = db_open(db);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM api_calls a JOIN ranges r ON r.id = a.parent_id WHERE r.name = 'step' "
                           "AND a.name = 'cudaLaunchKernel' AND a.depth = 2"), 200);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM api_calls a JOIN ranges r ON r.id = a.parent_id WHERE r.name = 'train' "
                           "AND a.name = 'cudaLaunchKernel' AND a.depth = 1"), 20);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM api_calls a JOIN api_calls p ON p.id = a.parent_id "
                           "WHERE a.name = 'cuMemAlloc_v2' AND p.name = 'cudaLaunchKernel' AND p.self_ns = 3900"), 220);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event k JOIN api_calls a ON a.id = k.launch_id WHERE k.kind = "
                           "(SELECT id FROM kind WHERE name = 'kernel') AND a.correlation = k.correlation AND k.launch_ns = a.start_ns"), 220);
    cr_assert_eq(db_int(d, "SELECT self_ns FROM ranges WHERE name = 'step' LIMIT 1"), (800 - 50 * 4) * US);
    sqlite3_close(d);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* One row of a live recording, written with the nesting and launch given (TDB_NULL: none; self TDB_NULL:
 * its duration, as the row holds it). Returns its id. */
static int64_t live_row(struct tdb_ingest *ing, int64_t track, int kind, const char *name, int64_t start, int64_t dur,
                        int64_t parent, int depth, int64_t self, int64_t corr, int64_t launch, int64_t launch_ns)
{
    struct tdb_event ev;
    tdb_event_init(&ev);
    ev.kind = kind;
    ev.name = (struct tdb_str){name, strlen(name)};
    ev.thread_id = track, ev.start_ns = start, ev.dur_ns = dur;
    ev.parent_id = parent, ev.depth = depth, ev.self_ns = self;
    ev.correlation = corr, ev.launch_id = launch, ev.launch_ns = launch_ns;
    if (kind == TDB_KIND_KERNEL)
        ev.device = 0, ev.stream = 13;
    int64_t id = tdb_ingest_event(ing, &ev);
    cr_assert_gt(id, 0);
    return id;
}

/* A recording's rows written with values the end of the trace does not find are rewritten with the
 * end's, with 60 more rows that hold theirs or none; rows holding the end's values keep them. Worked by hand, on track 7 (ns):
 *   A [0,100) written unnested, self 100: holds B, so self 60.   B [10,50) written unnested: parent A, depth 1.
 *   C [200,210) written inside A, depth 1: it is not (after A's end): no parent, depth 0, self 10.
 *   D [300,400) and E [310,320) inside it, written right: kept.   F [500,600), G [510,520) written at depth 5: 1.
 *   launches L1 [700,710) (correlation 7) and L2 [720,730) (8); kernel K1 (7) written as L2's: L1's, at 700;
 *   K2 (8) written as L2's: kept. */
static void wrong_rows_rewritten(int filler)
{
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/held.db", dir);
    struct tdb_ingest *ing = tdb_ingest_open(db, TDB_OPEN_LIVE, stderr);
    cr_assert(ing);
    tdb_ingest_begin_trace(ing, "held test", "recorder");
    int64_t t = tdb_ingest_thread_ids(ing, 100, 7), gpu = tdb_ingest_thread_ids(ing, 100, -13), other = tdb_ingest_thread_ids(ing, 100, 8);
    const int R = TDB_KIND_RANGE;
    const int64_t N = TDB_NULL;
    int64_t a = live_row(ing, t, R, "A", 0, 100, N, 0, N, N, N, N);
    int64_t b = live_row(ing, t, R, "B", 10, 40, N, 0, N, N, N, N);
    int64_t c = live_row(ing, t, R, "C", 200, 10, a, 1, 10, N, N, N);
    int64_t d = live_row(ing, t, R, "D", 300, 100, N, 0, 90, N, N, N);
    int64_t e = live_row(ing, t, R, "E", 310, 10, d, 1, 10, N, N, N);
    int64_t f = live_row(ing, t, R, "F", 500, 100, N, 0, 90, N, N, N);
    int64_t g = live_row(ing, t, R, "G", 510, 10, f, 5, 10, N, N, N);
    int64_t l1 = live_row(ing, t, TDB_KIND_RUNTIME, "cudaLaunchKernel", 700, 10, N, 0, N, 7, N, N);
    int64_t l2 = live_row(ing, t, TDB_KIND_RUNTIME, "cudaLaunchKernel", 720, 10, N, 0, N, 8, N, N);
    int64_t k1 = live_row(ing, gpu, TDB_KIND_KERNEL, "k", 750, 5, N, 0, N, 7, l2, 720);
    int64_t k2 = live_row(ing, gpu, TDB_KIND_KERNEL, "k", 760, 5, N, 0, N, 8, l2, 720);
    for (int i = 0; i < filler; i++) /* rows written right: none to rewrite */
        live_row(ing, other, R, "filler", 1000 + 10 * i, 5, N, 0, N, N, N, N);
    struct tdb_trace_info info = {.source_format = "recorder", .base_time_ns = TDB_NULL, .rank = TDB_NULL, .status = "complete"};
    cr_assert_eq(tdb_ingest_end_trace(ing, &info), 0);
    cr_assert_eq(tdb_ingest_finish(ing, 1), 0);

    sqlite3 *s = db_open(db);
    char q[200];
    /* id: parent (-1 none), depth, self, launch (-1 none), launch_ns (-1 none) */
    const int64_t want[][6] = {{a, -1, 0, 60, -1, -1},  {b, a, 1, 40, -1, -1},   {c, -1, 0, 10, -1, -1},
                               {d, -1, 0, 90, -1, -1},  {e, d, 1, 10, -1, -1},   {f, -1, 0, 90, -1, -1},
                               {g, f, 1, 10, -1, -1},   {l1, -1, 0, 10, -1, -1}, {l2, -1, 0, 10, -1, -1},
                               {k1, -1, 0, 5, l1, 700}, {k2, -1, 0, 5, l2, 720}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        snprintf(q, sizeof q, "SELECT printf('%%d %%d %%d %%d %%d', coalesce(parent_id, -1), depth, self_ns, "
                              "coalesce(launch_id, -1), coalesce(launch_ns, -1)) FROM event WHERE id = %lld", (long long)want[i][0]);
        char *got = db_text(s, q), expect[120];
        snprintf(expect, sizeof expect, "%lld %lld %lld %lld %lld", (long long)want[i][1], (long long)want[i][2],
                 (long long)want[i][3], (long long)want[i][4], (long long)want[i][5]);
        cr_assert(got && strcmp(got, expect) == 0, "row %zu (filler %d): %s, not %s", i, filler, got ? got : "none", expect);
        free(got);
    }
    cr_assert_eq(db_int(s, "SELECT count(*) FROM event WHERE name_id = (SELECT id FROM string WHERE value = 'filler') "
                           "AND parent_id IS NULL AND depth = 0 AND self_ns = 5"), filler);
    sqlite3_close(s);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(cupti, recorded_rows_holding_other_values_are_rewritten_among_rows_that_hold_theirs)
{
    wrong_rows_rewritten(60);
}

Test(cupti, recorded_rows_holding_other_values_are_rewritten)
{
    wrong_rows_rewritten(0);
}

/* Tracks by number (tdb_ingest_thread_ids, twice an event in a recording) keep their last two as
 * numbers: asked in any order, and in a second trace of the same ingest, each (trace, pid, tid) is its
 * own thread row, the one the database says. */
Test(cupti, tracks_by_number_are_their_own_rows)
{
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/tracks.db", dir);
    struct tdb_ingest *ing = tdb_ingest_open(db, TDB_OPEN_CREATE, stderr);
    cr_assert(ing);
    int64_t got[2][5];
    const int64_t ask[5][2] = {{100, 7}, {100, 8}, {100, 7}, {101, 7}, {100, 8}};
    for (int trace = 0; trace < 2; trace++) {
        tdb_ingest_begin_trace(ing, trace ? "second" : "first", "recorder");
        for (int j = 0; j < 5; j++) { /* the second trace asks in reverse: its first ask was the first's last */
            int i = trace ? 4 - j : j;
            cr_assert_gt(got[trace][i] = tdb_ingest_thread_ids(ing, ask[i][0], ask[i][1]), 0);
        }
        struct tdb_trace_info info = {.source_format = "recorder", .base_time_ns = TDB_NULL, .rank = TDB_NULL,
                                      .status = "complete"};
        cr_assert_eq(tdb_ingest_end_trace(ing, &info), 0);
    }
    cr_assert_eq(tdb_ingest_finish(ing, 1), 0);
    sqlite3 *d = db_open(db);
    char q[300];
    for (int trace = 0; trace < 2; trace++)
        for (int i = 0; i < 5; i++) {
            snprintf(q, sizeof q, "SELECT p.trace_id * 1000000 + p.pid * 1000 + t.tid FROM thread t JOIN process p "
                                  "ON p.id = t.process_id WHERE t.id = %lld", (long long)got[trace][i]);
            cr_assert_eq(db_int(d, q), (trace + 1) * 1000000 + ask[i][0] * 1000 + ask[i][1], "trace %d, ask %d", trace, i);
        }
    cr_assert_eq(db_int(d, "SELECT count(*) FROM thread"), 6, "three tracks in each trace");
    sqlite3_close(d);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* CUPTI's times are what the driver wrote: a damaged or hostile staging file may hold any int64. A
 * recording converts them as tdb_ingest_event holds them (start, duration and end within 2^62 ns), and
 * nesting them as they come must not overflow on the way (the sanitizers stop at any overflow). */
Test(cupti, converted_rows_with_times_out_of_range)
{
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/far.db", dir);
    FILE *f = stage_file_open(db);
    struct buf events = {0};
    const int64_t big = INT64_MAX, times[][2] = {{big - 10, big}, {big - 20, big}, {-big, big}, {-big + 5, big / 2},
                                                  {0, -5}, {(int64_t)1 << 62, (int64_t)1 << 62}, {-big, big}};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        struct tdb_event ev;
        tdb_event_init(&ev);
        ev.kind = i % 2 ? TDB_KIND_RUNTIME : TDB_KIND_DRIVER;
        ev.name = (struct tdb_str){"cudaLaunchKernel", 16};
        ev.start_ns = times[i][0], ev.dur_ns = times[i][1], ev.correlation = (int64_t)i + 1;
        cr_assert_eq(stage_event_encode(&events, 100, 7, &ev), 0);
        ev.kind = TDB_KIND_KERNEL, ev.name = (struct tdb_str){"k", 1}; /* its kernel, as long */
        cr_assert_eq(stage_event_encode(&events, 0, 13, &ev), 0);
    }
    stage_events_chunk(f, &events);
    stage_file_close(f, 1000000000000LL);
    buf_free(&events);
    int st;
    char *out = run_capture(&st, "'%s' finish '%s' 2>&1", tracedb(), db);
    cr_assert_eq(st, 0, "%s", out);
    free(out);
    sqlite3 *d = db_open(db);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event"), 14);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE start_ns + dur_ns > 4611686018427387903 OR dur_ns < 0 "
                           "OR start_ns < -4611686018427387903"), 0, "every time within 2^62 ns");
    cr_assert_eq(db_int(d, "SELECT count(*) FROM kernels WHERE launch_id IS NOT NULL"), 7, "each linked to its call");
    sqlite3_close(d);
    run("rm -rf '%s'", dir);
    free(dir);
}
