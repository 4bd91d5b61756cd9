/* fuzz_import.c: libFuzzer target for the Chrome trace importer, in memory (`make fuzz`, and a short
 * run in `make test`). Any input must end in a clean import or a clean error, never a crash, a leak
 * or undefined behaviour. Built twice: fuzz_json takes the input as the file's bytes; fuzz_gzip
 * (-DFUZZ_GZIP) compresses an input that is not gzip already, so the gzip reader sees both real
 * compressed JSON and damaged streams (its corpus holds real .json.gz traces). */
#define _GNU_SOURCE
#include "chrome_import.h"
#include "ingest.h"
#include <stdint.h>
#include <stdio.h>
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    int fd = memory_file(data, size);
    if (fd < 0)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fd);
    struct tdb_ingest *ing = tdb_ingest_open(NULL, TDB_OPEN_MEMORY, devnull);
    if (ing) {
        struct tdb_import_result res;
        memset(&res, 0, sizeof res);
        res.default_rank = TDB_NULL;
        res.max_string = 4096; /* small, so that the cut-string path is reached */
        res.strict = size & 1;
        int rc = tdb_import_chrome(ing, path, 0, devnull, &res);
        if (rc < 0)
            tdb_ingest_abort(ing);
        else if (tdb_ingest_check_trace(ing, 0, path) != 0)
            tdb_ingest_abort(ing);
        else
            tdb_ingest_finish(ing, rc == 0);
    }
    close(fd);
    return 0;
}
