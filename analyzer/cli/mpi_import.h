/* mpi_import.h: `tracedb-mpi import`: traces spread over an MPI job's processes, a database each. */
#ifndef TDB_MPI_IMPORT_H
#define TDB_MPI_IMPORT_H
#include <mpi.h>

/* argv[0] is "import"; every process of comm calls it with the same arguments. The exit status: 0, 1
 * when a trace failed (the others imported), 2 for bad usage. */
int mpi_import(int argc, char **argv, MPI_Comm comm);

#endif
