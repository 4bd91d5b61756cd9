/* mpi_reduce.h: reports over a shard directory, the shards read by every process of an MPI job. */
#ifndef TDB_MPI_REDUCE_H
#define TDB_MPI_REDUCE_H
#include "shards.h"
#include <mpi.h>

/* The shard directory among a command's arguments (argv[0] "tracedb-mpi", argv[1] the command), or NULL. */
const char *mpi_shard_dir(int argc, char **argv);

/* Every process of comm calls it: each reads its share of dir's shards (what level says: enum
 * shards_level, and what each makes of every shard: shards.h), process 0 gathers them and runs the
 * command (tracedb_main) on them, handed over. The command's exit status, on every process. */
int mpi_report(int argc, char **argv, const char *dir, int level, shards_each each, MPI_Comm comm);

#endif
