/* mpi_reduce.c: `mpirun -n N tracedb-mpi REPORT DIR` for the reports that run over a shard directory
 * (struct scope's shards_ok). Each process reads its share of the shards (a contiguous block, so that
 * the shares joined in process order keep the shards' order) into a reduce database
 * (analyzer/report/shards.c: the sums, and for kernels and memops the GPU rows); process 0 gathers the
 * others' (each sent whole: sqlite3_serialize), copies them into its own the same way, and runs the
 * report on the result as tracedb would on one database: the output equals the report over one
 * database of all the traces. */
#include "mpi_reduce.h"
#include "cli.h"
#include "report_io.h"
#include "shards.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The shard directory among the arguments, or NULL. */
const char *mpi_shard_dir(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (argv[i][0] != '-' && shards_is_dir(argv[i]))
            return argv[i];
    return NULL;
}

/* Process 0: copies a serialized reduce database into reduce (through a temporary file: a defensive
 * connection attaches files only). 0, or -1 (said). */
static int add_image(sqlite3 *reduce, const unsigned char *image, int64_t n, int from, enum shards_level level,
                     struct report_io *io)
{
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tracedb-mpi-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(io->err, "%s: cannot make a temporary file for process %d's sums\n", io->prog, from);
        return -1;
    }
    int64_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, image + done, (size_t)(n - done));
        if (w <= 0)
            break;
        done += w;
    }
    close(fd);
    int rc = -1;
    sqlite3_stmt *at = NULL;
    if (done == n && sqlite3_prepare_v2(reduce, "ATTACH ?1 AS src", -1, &at, NULL) == SQLITE_OK &&
        sqlite3_bind_text(at, 1, path, -1, SQLITE_STATIC) == SQLITE_OK && sqlite3_step(at) == SQLITE_DONE) {
        char what[64];
        snprintf(what, sizeof what, "process %d's sums", from);
        rc = shards_add(reduce, what, level, io);
        sqlite3_exec(reduce, "DETACH src", NULL, NULL, NULL);
    } else {
        fprintf(io->err, "%s: cannot read process %d's sums: %s\n", io->prog, from, sqlite3_errmsg(reduce));
    }
    sqlite3_finalize(at);
    unlink(path);
    return rc;
}

int mpi_report(int argc, char **argv, const char *dir, int level, shards_each each, MPI_Comm comm)
{
    int me = 0, procs = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &procs);
    struct report_io io = {stdout, stderr, "tracedb-mpi", NULL, NULL, NULL};
    /* every process: its share, the block [me * n / N, (me + 1) * n / N) */
    long n_shards = shards_count(dir, &io);
    sqlite3 *mine = n_shards < 0 ? NULL
                                 : shards_open(dir, (long)((int64_t)me * n_shards / procs),
                                               (long)((int64_t)(me + 1) * n_shards / procs), level, each, &io);
    sqlite3_int64 size = 0;
    unsigned char *image = mine ? sqlite3_serialize(mine, "main", &size, 0) : NULL;
    int64_t n = image ? (int64_t)size : -1; /* -1: this process failed (said) */
    if (n > INT32_MAX) {
        fprintf(stderr, "tracedb-mpi: process %d's sums are %lld bytes: more than one message holds\n", me, (long long)n);
        n = -1;
    }
    int64_t *sizes = me == 0 ? calloc((size_t)procs, sizeof *sizes) : NULL;
    if (MPI_Gather(&n, 1, MPI_INT64_T, sizes, 1, MPI_INT64_T, 0, comm) != MPI_SUCCESS) {
        fprintf(stderr, "tracedb-mpi: process %d: gathering the sums' sizes failed\n", me);
        MPI_Abort(comm, 1);
    }
    int *counts = NULL, *displs = NULL, failed = 0;
    unsigned char *all = NULL;
    if (me == 0) {
        counts = calloc((size_t)procs, sizeof *counts), displs = calloc((size_t)procs, sizeof *displs);
        int64_t total = 0;
        for (int p = 0; p < procs; p++) {
            failed |= sizes[p] < 0;
            counts[p] = sizes[p] > 0 ? (int)sizes[p] : 0;
            displs[p] = (int)total;
            total += counts[p];
        }
        if (total > INT32_MAX || !(all = malloc((size_t)total + 1))) {
            fprintf(stderr, "tracedb-mpi: the processes' sums (%lld bytes) do not fit one gather\n", (long long)total);
            MPI_Abort(comm, 1);
        }
    }
    if (MPI_Gatherv(image, n > 0 ? (int)n : 0, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, comm) != MPI_SUCCESS) {
        fprintf(stderr, "tracedb-mpi: process %d: gathering the sums failed\n", me);
        MPI_Abort(comm, 1);
    }
    sqlite3_free(image);
    int rc = 0;
    if (me == 0) {
        sqlite3 *reduce = failed ? NULL : shards_open(dir, 0, 0, level, NULL, &io); /* the empty reduce database */
        for (int p = 0; reduce && p < procs; p++)
            if (counts[p] > 0 && add_image(reduce, all + displs[p], counts[p], p, level, &io) != 0)
                sqlite3_close(reduce), reduce = NULL;
        if (reduce) { /* the command's report takes it (shards_open) instead of reading the shards */
            struct shards_handover handover = {dir, reduce, (enum shards_level)level, each};
            rc = tracedb_main(argc, argv, &handover);
            sqlite3_close(handover.reduce); /* not taken: the command ended before it read the shards */
        } else {
            rc = 1;
        }
    }
    sqlite3_close(mine);
    free(sizes), free(counts), free(displs), free(all);
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    return rc;
}
