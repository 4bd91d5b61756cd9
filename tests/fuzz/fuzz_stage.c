/* fuzz_stage.c: libFuzzer target for the staging-file converter (recorder/live/stage_convert.c), which
 * `tracedb finish` runs on whatever file lies beside a database. The input is a staging file without its
 * 16-byte header: chunks (struct stage_chunk, then the payload) of thread names, ring records, clock
 * pairs, CUPTI's events and the close, as the recorder writes them, or anything else. Chunks are taken
 * as stage_conv_file takes them (a head whose type or size is wrong ends the file); each is converted
 * into an in-memory database, which is then finished (nesting, links, sums); or, for inputs whose size
 * has bit 3 set, into a recording's database (a file, written as it comes, CUPTI's chunks nested as
 * they are converted: call_nest.c), as `tracedb finish` does. Seeds: recordings made by the C API (both
 * clock modes) and a chunk of CUPTI events. The sorts' budget is 64 KiB (TRACEDB_SORT_KIB), as in
 * fuzz_import.c: spills reached by small inputs, no megabytes mapped a run. */
#include "stage_convert.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    static char path[512], side[600];
    if (!devnull) {
        devnull = fopen("/dev/null", "w");
        setenv("TRACEDB_SORT_KIB", "64", 0);
        const char *tmp = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/fuzz_stage_%ld.db", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    }
    int live = (size >> 3) & 1;
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    for (int i = 0; live && i < 4; i++) /* each input into a new recording */
        snprintf(side, sizeof side, "%s%s", path, suffix[i]), unlink(side);
    struct tdb_ingest *ing = tdb_ingest_open(live ? path : NULL, live ? TDB_OPEN_LIVE : TDB_OPEN_MEMORY, devnull);
    if (!ing)
        return 0;
    tdb_ingest_begin_trace(ing, "fuzz", "recorder");
    struct stage_conv *c = stage_conv_new(ing, 100);
    int rc = c ? 0 : -1;
    for (size_t off = 0; rc == 0 && size - off >= sizeof(struct stage_chunk);) {
        struct stage_chunk h;
        memcpy(&h, data + off, sizeof h);
        if (h.type < STAGE_PROCESS || h.type > STAGE_CLOCK || h.bytes % 8 || h.bytes > size - off - sizeof h)
            break;
        unsigned char *payload = malloc(h.bytes ? h.bytes : 1); /* its own copy: the converter rewrites stamps */
        if (!payload)
            break;
        memcpy(payload, data + off + sizeof h, h.bytes);
        rc = stage_conv_chunk(c, &h, payload);
        free(payload);
        off += sizeof h + h.bytes;
        int64_t dropped;
        if (stage_conv_closed(c, &dropped))
            break;
    }
    int64_t dropped;
    if (rc == 0 && c && !stage_conv_closed(c, &dropped))
        rc = stage_conv_end(c, TDB_NULL);
    stage_conv_free(c);
    struct tdb_trace_info info = {.source_format = "recorder", .base_time_ns = TDB_NULL, .rank = TDB_NULL,
                                  .status = "partial"};
    if (rc == 0 && tdb_ingest_end_trace(ing, &info) == 0)
        tdb_ingest_finish(ing, 0);
    else
        tdb_ingest_abort(ing);
    return 0;
}
