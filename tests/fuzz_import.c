/* fuzz_import.c: libFuzzer harness for the Chrome trace importer (`make fuzz`): any input must end in
 * a clean import, a clean error, never a crash. Not part of make test (it runs for minutes). */
#include "tracedb.h"
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen("in.json", "wb");
    fwrite(data, 1, size, f);
    fclose(f);
    const char *t[] = {"in.json"};
    FILE *devnull = fopen("/dev/null", "w");
    tdb_import("out.db", t, 1, TDB_IMPORT_FORCE, devnull);
    fclose(devnull);
    return 0;
}
