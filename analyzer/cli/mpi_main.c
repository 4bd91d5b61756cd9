/* mpi_main.c: tracedb-mpi, the tracedb command run by every process of an MPI job (mpirun -n N
 * tracedb-mpi ...; built by `make mpi`, the plain tracedb never links MPI): import spreads its traces
 * over the processes (mpi_import.c); a report given a shard directory has every process read its share
 * of the shards (mpi_reduce.c); every other command runs once, on process 0, as tracedb does. */
#include "cli.h"
#include "mpi_import.h"
#include "mpi_reduce.h"
#include "ops_sweep.h"
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "tracedb-mpi: MPI_Init failed (run it under mpirun, or as a single process)\n");
        return 1;
    }
    /* errors come back as codes, said and acted on, rather than killing the job mid-sentence */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int me = 0, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *dir = argc >= 3 ? mpi_shard_dir(argc, argv) : NULL;
    int last_step = 0; /* HTA's window keeps GPU work by its launch call: the host calls too */
    for (int i = 2; i < argc; i++)
        last_step |= strcmp(argv[i], "--drop-last-step") == 0;
    if (argc >= 2 && strcmp(argv[1], "import") == 0)
        rc = mpi_import(argc - 1, argv + 1, MPI_COMM_WORLD);
    else if (dir && strcmp(argv[1], "ops") == 0)
        rc = mpi_report(argc, argv, dir, 1, ops_shard_pass, MPI_COMM_WORLD); /* and each shard's own pass */
    else if (dir && strcmp(argv[1], "ranks") == 0)
        rc = mpi_report(argc, argv, dir, 1, NULL, MPI_COMM_WORLD);
    else if (dir && (strcmp(argv[1], "kernels") == 0 || strcmp(argv[1], "memops") == 0 || strcmp(argv[1], "device") == 0))
        rc = mpi_report(argc, argv, dir, last_step ? 3 : 2, NULL, MPI_COMM_WORLD); /* and the GPU rows */
    else if (dir && (strcmp(argv[1], "api") == 0 || strcmp(argv[1], "latency") == 0 || strcmp(argv[1], "overlap") == 0 ||
                     strcmp(argv[1], "idle") == 0 || strcmp(argv[1], "launches") == 0 || strcmp(argv[1], "queue") == 0))
        rc = mpi_report(argc, argv, dir, 3, NULL, MPI_COMM_WORLD); /* and the host calls */
    else if (dir && strcmp(argv[1], "memory") == 0)
        rc = mpi_report(argc, argv, dir, 4, NULL, MPI_COMM_WORLD); /* and the memory events */
    else if (dir && strcmp(argv[1], "summary") == 0)
        rc = mpi_report(argc, argv, dir, 4, ops_shard_pass, MPI_COMM_WORLD); /* and ops' pass */
    else
        rc = me == 0 ? tracedb_main(argc, argv, NULL) : 0;
    MPI_Finalize();
    return rc;
}
