/* mpi_import.c: `mpirun -n N tracedb-mpi import TRACE... -o DIR`. The traces are spread over the
 * processes, balanced by bytes (the largest first, each to the least loaded process: every process
 * makes the same plan from the files' sizes, so none waits to be told), and each is imported into its
 * own database DIR/shard-NNNN.db (NNNN: its place on the command line, a directory standing for the
 * traces in it, trace_files.c: every process lists it alike) by the process it went to, with
 * the importer tracedb import uses. Then the outcomes meet on every process (an OR of records each
 * written by one process only) and process 0 writes DIR/shards.json: for each shard its file, trace,
 * bytes, process, status and error, what a reader needs to find them. A trace that fails fails its
 * shard alone: the others complete, the error names the file, the exit status is 1. A process that
 * dies ends the job (mpirun's rule) rather than hanging it; --timeout bounds a process that hangs. */
#include "mpi_import.h"
#include "cli.h"
#include "tracedb.h"
#include "trace_files.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERROR_BYTES 480
#define MANIFEST "shards.json"

/* One trace's outcome: written by the process it went to, zero elsewhere, OR-ed together. */
struct outcome {
    int32_t status; /* 0 not run, 1 imported, 2 failed */
    int32_t unused;
    char error[ERROR_BYTES];
};

static const char mpi_import_usage[] =
    "mpirun -n N tracedb-mpi import TRACE|DIR... -o DIR [--force] [--rank N] [--strict] [--max-string SIZE]\n"
    "                                                [--timeout SECONDS] [--quiet]";

static void on_timeout(int sig)
{
    (void)sig;
    static const char m[] = "tracedb-mpi import: --timeout passed: this process gives up, the job ends\n";
    ssize_t w = write(2, m, sizeof m - 1);
    (void)w;
    _exit(124);
}

/* owner[i]: the process trace i goes to, largest first (then command-line order), each to the least
 * loaded process (the lowest numbered at a tie). */
static int plan(const int64_t *bytes, size_t n, int procs, int *owner)
{
    size_t *order = malloc((n + 1) * sizeof *order);
    int64_t *load = calloc((size_t)procs, sizeof *load);
    if (!order || !load) {
        free(order), free(load);
        return -1;
    }
    for (size_t i = 0; i < n; i++) { /* insertion sort: command lines are short */
        size_t j = i;
        while (j > 0 && bytes[order[j - 1]] < bytes[i])
            order[j] = order[j - 1], j--;
        order[j] = i;
    }
    for (size_t k = 0; k < n; k++) {
        int best = 0;
        for (int p = 1; p < procs; p++)
            if (load[p] < load[best])
                best = p;
        owner[order[k]] = best;
        load[best] += bytes[order[k]] > 0 ? bytes[order[k]] : 0;
    }
    free(order), free(load);
    return 0;
}

/* Process 0: DIR exists (made if missing) and holds no earlier import unless force. 0, or -1 (said). */
static int prepare_dir(const char *dir, int force)
{
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        if (mkdir(dir, 0777) != 0) {
            fprintf(stderr, "tracedb-mpi import: cannot make %s: %s\n", dir, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (!S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "tracedb-mpi import: %s is not a directory (-o names the directory the shards go to)\n", dir);
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
    if (!force && access(path, F_OK) == 0) {
        fprintf(stderr, "tracedb-mpi import: %s already holds an import (%s); --force replaces its shards\n", dir, MANIFEST);
        return -1;
    }
    return 0;
}

/* Imports trace into shard; the outcome (and the importer's message) into o. */
static void import_one(const char *trace, const char *shard, const struct tdb_import_options *opt, struct outcome *o)
{
    char *msg = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&msg, &len);
    const char *files[1] = {trace};
    int rc = tdb_import_with(shard, files, 1, opt, err ? err : stderr);
    if (err)
        fclose(err);
    o->status = rc == 0 ? 1 : 2;
    size_t k = 0;
    for (size_t i = 0; msg && i < len && k + 3 < ERROR_BYTES; i++) /* one line: newlines become "; " */
        if (msg[i] == '\n') {
            if (i + 1 < len)
                o->error[k++] = ';', o->error[k++] = ' ';
        } else {
            o->error[k++] = msg[i];
        }
    if (o->status == 2 && k == 0)
        snprintf(o->error, ERROR_BYTES, "import failed");
    free(msg);
}

/* Process 0: DIR/shards.json, written whole or not at all (a temporary renamed). 0 or -1 (said). */
static int write_manifest(const char *dir, char **traces, const int64_t *bytes, const int *owner,
                          const struct outcome *out, size_t n, int procs)
{
    cJSON *doc = cJSON_CreateObject(), *shards = cJSON_CreateArray();
    cJSON_AddStringToObject(doc, "format", "tracedb shards");
    cJSON_AddNumberToObject(doc, "version", 1);
    cJSON_AddNumberToObject(doc, "processes", procs);
    cJSON_AddItemToObject(doc, "shards", shards);
    for (size_t i = 0; i < n; i++) {
        char file[64];
        snprintf(file, sizeof file, "shard-%04zu.db", i);
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "file", file);
        cJSON_AddStringToObject(s, "trace", traces[i]);
        cJSON_AddNumberToObject(s, "bytes", (double)bytes[i]);
        cJSON_AddNumberToObject(s, "process", owner[i]);
        cJSON_AddStringToObject(s, "status", out[i].status == 1 ? "imported" : "failed");
        if (out[i].status != 1)
            cJSON_AddStringToObject(s, "error", out[i].error[0] ? out[i].error : "not imported (its process ended)");
        cJSON_AddItemToArray(shards, s);
    }
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = text ? fopen(tmp, "w") : NULL;
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    ok = f && fclose(f) == 0 && ok && rename(tmp, path) == 0;
    if (!ok) {
        fprintf(stderr, "tracedb-mpi import: cannot write %s: %s\n", path, text ? strerror(errno) : "out of memory");
        unlink(tmp);
    }
    free(text);
    return ok ? 0 : -1;
}

int mpi_import(int argc, char **argv, MPI_Comm comm)
{
    int me = 0, procs = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &procs);
    struct cli cli = {{stdout, stderr, "tracedb-mpi import", NULL, NULL, NULL}, NULL, 0, "import", NULL, NULL};
    const char *dir = NULL;
    int force = 0, quiet = 0, strict = 0;
    int64_t rank = -1, max_string = 64 << 20, timeout = 0;
    const struct opt opts[] = {
        {"output", 'o', OPT_STRING, &dir, "the directory the shards go to, made if missing (required)"},
        {"force", 'f', OPT_FLAG, &force, "replace the shards of an earlier import into the directory"},
        {"quiet", 'q', OPT_FLAG, &quiet, "no line per shard and no closing line"},
        {"strict", 0, OPT_FLAG, &strict, "anomalies (negative dur, E without B, B never ended) fail the shard"},
        {"rank", 'r', OPT_INT, &rank, "the rank of the first trace when it names none (the next ones get N+1, ...)"},
        {"max-string", 0, OPT_SIZE, &max_string, "the longest string kept (default 64M)"},
        {"timeout", 0, OPT_INT, &timeout, "a process still busy after this many seconds ends the job (default: none)"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, mpi_import_usage, &cli);
    if (n <= 0 || !dir || max_string < 1 || max_string > (512 << 20) || timeout < 0) {
        if (me == 0 && n >= 0) {
            fprintf(stderr, "tracedb-mpi import: %s\n",
                    n == 0 ? "no trace file given" : !dir ? "no output directory given (-o DIR)" : "bad --max-string or --timeout");
            cli_usage(opts, mpi_import_usage, stderr);
        }
        return 2;
    }
    if (rank > 2147483647) { /* an MPI rank is an int: N + i of the next traces stays far from 2^63 */
        if (me == 0)
            fprintf(stderr, "tracedb-mpi import: --rank wants a rank from 0 to 2147483647, not %lld\n", (long long)rank);
        return 2;
    }
    if (timeout > 0) {
        signal(SIGALRM, on_timeout);
        alarm((unsigned)timeout);
    }
    /* a directory: the traces in it, each a shard (said by process 0 alone) */
    FILE *said = me == 0 ? stderr : fopen("/dev/null", "w");
    char **traces = NULL;
    int listed = said ? tdb_trace_files((const char *const *)argv, n, &traces, said, me == 0 && !quiet) : -1;
    if (said && said != stderr)
        fclose(said);
    if (listed < 0)
        return 1;
    argv = traces, n = listed;
    int ready = me == 0 ? prepare_dir(dir, force) : 0;
    if (MPI_Bcast(&ready, 1, MPI_INT, 0, comm) != MPI_SUCCESS || ready != 0) {
        tdb_trace_files_free(traces, listed);
        return 1;
    }
    size_t count = (size_t)n;
    int64_t *bytes = malloc(count * sizeof *bytes);
    int *owner = malloc(count * sizeof *owner);
    struct outcome *out = calloc(count, sizeof *out);
    if (!bytes || !owner || !out) {
        fprintf(stderr, "tracedb-mpi import: out of memory\n");
        MPI_Abort(comm, 1);
    }
    for (size_t i = 0; i < count; i++) {
        struct stat sb;
        bytes[i] = stat(argv[i], &sb) == 0 ? (int64_t)sb.st_size : -1;
    }
    if (plan(bytes, count, procs, owner) != 0) {
        fprintf(stderr, "tracedb-mpi import: out of memory\n");
        MPI_Abort(comm, 1);
    }
    unsigned flags = TDB_IMPORT_FORCE | (strict ? TDB_IMPORT_STRICT : 0u);
    for (size_t i = 0; i < count; i++) {
        if (owner[i] != me)
            continue;
        char shard[4200];
        snprintf(shard, sizeof shard, "%s/shard-%04zu.db", dir, i);
        struct tdb_import_options opt = {flags, rank >= 0 ? (long)(rank + (int64_t)i) : -1L, (size_t)max_string};
        import_one(argv[i], shard, &opt, &out[i]);
        if (out[i].status != 1)
            fprintf(stderr, "tracedb-mpi import: %s -> %s failed (process %d): %s\n", argv[i], shard, me, out[i].error);
        else if (!quiet)
            fprintf(stderr, "tracedb-mpi import: %s -> %s (process %d)\n", argv[i], shard, me);
    }
    /* every outcome to every process: each record is written by one process only, so OR joins them */
    int rc = MPI_Allreduce(MPI_IN_PLACE, out, (int)(count * sizeof *out), MPI_BYTE, MPI_BOR, comm);
    if (rc != MPI_SUCCESS) {
        char why[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, why, &len);
        fprintf(stderr, "tracedb-mpi import: process %d: gathering the outcomes failed: %s\n", me, why);
        MPI_Abort(comm, 1);
    }
    size_t failed = 0;
    for (size_t i = 0; i < count; i++)
        failed += out[i].status != 1;
    int status = failed ? 1 : 0;
    if (me == 0) {
        if (write_manifest(dir, argv, bytes, owner, out, count, procs) != 0)
            status = 1;
        else if (!quiet)
            fprintf(stderr, "tracedb-mpi import: %zu trace%s into %s/ by %d process%s: %zu imported, %zu failed (%s)\n",
                    count, count == 1 ? "" : "s", dir, procs, procs == 1 ? "" : "es", count - failed, failed, MANIFEST);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, comm); /* the manifest's fate too */
    if (timeout > 0)
        alarm(0);
    free(bytes), free(owner), free(out);
    tdb_trace_files_free(traces, listed);
    return status;
}
