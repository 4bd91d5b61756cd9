/* fuzz_import.c: libFuzzer target for the Chrome trace importer, in memory (`make fuzz`, and a short
 * run in `make test`). Any input must end in a clean import or a clean error, never a crash, a leak
 * or undefined behaviour. Built twice: fuzz_json takes the input as the file's bytes; fuzz_gzip
 * (-DFUZZ_GZIP) compresses an input that is not gzip already, so the gzip reader sees both real
 * compressed JSON and damaged streams (its corpus holds real .json.gz traces). fuzz_json imports each
 * input twice, through the fast lane and through yajl alone (TRACEDB_JSON=yajl), and aborts when the two
 * disagree on the outcome: status, counts, the first error and its offset, the anomalies; and a third
 * time with every track left to the end-of-trace sweep (TRACEDB_NEST=sweep), aborting when the nesting
 * computed as events stream in (reorder buffer, frame log merges, fixes) differs from the sweep's.
 * The sorts' budget is 64 KiB (TRACEDB_SORT_KIB), not 8 MiB: small inputs reach the paths that spill,
 * and a run does not map and unmap megabytes of buffers that AddressSanitizer poisons (a corpus of 151
 * inputs ran in 2.2 s instead of 5.0 s). */
#define _GNU_SOURCE
#include "chrome_import.h"
#include "ingest.h"
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

/* The input as a file descriptor on a memory file: the importer reads it as it reads any file. */
static int memory_file(const uint8_t *data, size_t size)
{
    int fd = memfd_create("trace", 0);
    if (fd < 0)
        return -1;
#ifdef FUZZ_GZIP
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) {
        gzFile gz = gzdopen(dup(fd), "wb1");
        if (gz) {
            if (size)
                gzwrite(gz, data, (unsigned)size);
            gzclose(gz);
        }
        lseek(fd, 0, SEEK_SET);
        return fd;
    }
#endif
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return -1;
    }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

/* A digest of every event's nesting (id, parent, depth, self time, launch), the per-name sums and the
 * overlaps in the import's database. */
static uint64_t nesting_digest(struct tdb_ingest *ing)
{
    uint64_t h = 1469598103934665603u;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(tdb_ingest_sqlite(ing), "SELECT id, parent_id, depth, self_ns, launch_id FROM event ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        for (int c = 0; c < 5; c++) {
            int64_t v = sqlite3_column_type(st, c) == SQLITE_NULL ? INT64_MIN : sqlite3_column_int64(st, c);
            h = (h ^ (uint64_t)v) * 1099511628211u;
        }
    sqlite3_finalize(st);
    /* and what the stream finds where the sweep need not run: the per-name sums, the overlaps */
    if (sqlite3_prepare_v2(tdb_ingest_sqlite(ing),
                           "SELECT self_ns, self_device_ns, device_total_ns FROM event_stats "
                           "UNION ALL SELECT overlaps, 0, 0 FROM trace",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        for (int c = 0; c < 3; c++)
            h = (h ^ (uint64_t)sqlite3_column_int64(st, c)) * 1099511628211u;
    sqlite3_finalize(st);
    return h;
}

/* One import of the input; *res gets its outcome, *nesting (when not NULL) its nesting_digest. The status,
 * or -2 when no database could be opened. */
static int import_once(const uint8_t *data, size_t size, struct tdb_import_result *res, uint64_t *nesting)
{
    memset(res, 0, sizeof *res);
    int fd = memory_file(data, size);
    if (fd < 0)
        return -2;
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fd);
    struct tdb_ingest *ing = tdb_ingest_open(NULL, TDB_OPEN_MEMORY, devnull);
    int rc = -2;
    if (ing) {
        res->default_rank = TDB_NULL;
        res->max_string = 4096; /* small, so that the cut-string path is reached */
        res->strict = size & 1;
        rc = tdb_import_chrome(ing, path, 0, devnull, res);
        if (rc < 0)
            tdb_ingest_abort(ing);
        else if (tdb_ingest_check_trace(ing, 0, path) != 0)
            tdb_ingest_abort(ing);
        else {
            if (nesting)
                *nesting = nesting_digest(ing);
            tdb_ingest_finish(ing, rc == 0);
        }
    }
    close(fd);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull) {
        devnull = fopen("/dev/null", "w");
        setenv("TRACEDB_SORT_KIB", "64", 0);
    }
    struct tdb_import_result fast;
    uint64_t streamed = 0;
    int rc = import_once(data, size, &fast, &streamed);
#ifndef FUZZ_GZIP
    struct tdb_import_result slow, sweep;
    uint64_t swept = 0;
    setenv("TRACEDB_JSON", "yajl", 1);
    int slow_rc = import_once(data, size, &slow, NULL);
    unsetenv("TRACEDB_JSON");
    setenv("TRACEDB_NEST", "sweep", 1);
    int sweep_rc = import_once(data, size, &sweep, &swept);
    unsetenv("TRACEDB_NEST");
    if (rc >= 0 && sweep_rc == rc && streamed != swept) {
        fprintf(stderr, "streaming and the sweep alone nest the events differently\n");
        abort();
    }
    if (rc != -2 && slow_rc != -2 &&
        (rc != slow_rc || fast.events != slow.events || fast.flows != slow.flows || fast.skipped != slow.skipped ||
         fast.no_trace != slow.no_trace || strcmp(fast.first_error, slow.first_error) != 0 ||
         memcmp(fast.anomalies, slow.anomalies, sizeof fast.anomalies) != 0 ||
         memcmp(fast.anomaly_offset, slow.anomaly_offset, sizeof fast.anomaly_offset) != 0)) {
        fprintf(stderr, "the JSON lanes disagree: status %d / %d, events %lld / %lld, skipped %lld / %lld, "
                        "first error \"%s\" / \"%s\"\n", rc, slow_rc, (long long)fast.events, (long long)slow.events,
                (long long)fast.skipped, (long long)slow.skipped, fast.first_error, slow.first_error);
        abort();
    }
#else
    (void)rc;
#endif
    return 0;
}
