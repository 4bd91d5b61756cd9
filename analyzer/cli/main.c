/* main.c: the tracedb command: the process's settings, then the command named by the first argument
 * (dispatch.c: one alphabetical table of subcommands, dispatched by name, as perf and git do). */
#include "cli.h"
#include "output_claim.h"
#include "term_text.h"
#include <signal.h>
#include <sqlite3.h>

int tracedb_main(int argc, char **argv, struct shards_handover *handover)
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
    int rc = cli_dispatch(argc - 1, argv + 1, stdout, err ? err : stderr, 0, handover);
    if (err)
        fclose(err);
    return rc;
}

#ifndef TDB_NO_MAIN /* tracedb-mpi builds this file with -DTDB_NO_MAIN: its main is mpi_main.c's */
int main(int argc, char **argv)
{
    return tracedb_main(argc, argv, NULL);
}
#endif
