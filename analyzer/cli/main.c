/* main.c: the tracedb command: the process's settings, then the command named by the first argument
 * (dispatch.c: one alphabetical table of subcommands, dispatched by name, as perf and git do). */
#include "cli.h"
#include "output_claim.h"
#include "term_text.h"
#include <signal.h>
#include <sqlite3.h>

#ifndef TDB_MAIN
#define TDB_MAIN main /* tracedb-mpi builds this file with -DTDB_MAIN=tracedb_main (mpi_main.c) */
#endif
int TDB_MAIN(int argc, char **argv)
{
    /* a closed pipe (tracedb ops run.db | head) ends tracedb quietly, as it ends git: SIGPIPE's default */
    signal(SIGPIPE, SIG_DFL);
    /* no allocation statistics (nothing reads them): each SQLite allocation took a global mutex for
     * them, 2% of the import's row writer. Before SQLite starts; later (tracedb-mpi's second call) a no-op. */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    tdb_out_cleanup_on_signals(); /* no temporary outlives a SIGTERM; ulimit -f is a reported error */
    /* every message reaches the terminal with its control characters escaped: a file name, a trace's or a
     * database's text cannot rewrite the screen (term_text.h) */
    FILE *err = term_safe_stream(stderr);
    int rc = cli_dispatch(argc - 1, argv + 1, stdout, err ? err : stderr, 0);
    if (err)
        fclose(err);
    return rc;
}
