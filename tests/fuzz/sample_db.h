/* sample_db.h: the database the sql and cli fuzz targets run against: the bundled ResNet-18 sample, or
 * the trace a target names in FUZZ_SAMPLE_TRACE (under the source tree), imported once per fuzzer
 * process into a temporary file (removed at exit). */
#ifndef TDB_FUZZ_SAMPLE_DB_H
#define TDB_FUZZ_SAMPLE_DB_H
#include "tracedb.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef FUZZ_SAMPLE_TRACE
#define FUZZ_SAMPLE_TRACE "/samples/resnet18_inference.json.gz"
#endif

static char sample_path[256];

static void sample_remove(void)
{
    unlink(sample_path);
}

static const char *sample_db(void)
{
    if (sample_path[0])
        return sample_path;
    snprintf(sample_path, sizeof sample_path, "/tmp/tracedb-fuzz-%ld.db", (long)getpid());
    unlink(sample_path);
    const char *traces[] = {TDB_SOURCE_DIR FUZZ_SAMPLE_TRACE};
    if (tdb_import(sample_path, traces, 1, 0, stderr) != 0) {
        fprintf(stderr, "fuzz: cannot import the sample\n");
        abort();
    }
    atexit(sample_remove);
    return sample_path;
}

#endif
