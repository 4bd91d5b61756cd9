/* cli.h: what every tracedb subcommand shares: its context, the option parser, the command table.
 *
 * Adding a command (a checklist, in the spirit of git's builtin.h):
 *   1. write analyzer/cli/cmd_NAME.c ending in `int cmd_NAME(int argc, char **argv, struct cli *cli)`:
 *      parse options with cli_parse_options (SCOPE_OPTIONS from report_options.h for a report) -> open
 *      the database with scope_open(..., &cli->io) -> run its queries/NAME.sql through scope_run;
 *   2. declare it below and add it to the alphabetical table in analyzer/cli/commands.c;
 *   3. add its SQL under queries/ (the Makefile embeds every .sql file there);
 *   4. add a test under tests/ and a README section with real output. */
#ifndef TDB_CLI_H
#define TDB_CLI_H
#include "report_io.h"
#include "shards.h"
#include <stdint.h>
#include <stdio.h>

/* A report's sort keys for its --help: keys as scope_sort_column reads them (NULL-terminated pairs:
 * accepted name, column), mode the option whose table they sort (NULL: the default table's). */
struct cli_sort_keys {
    const char *mode;
    const char *const *keys;
};

struct cli {
    struct report_io io; /* results, diagnostics, program name: what report/ and export/ take */
    const char *example; /* the command's examples, for --help (from its table entry) */
    int in_process;      /* run inside another program (tdb_run, a report table): --help fails, never exits */
    const char *command; /* the command's name: --help lists its columns (report_columns.c) */
    const struct cli_sort_keys *sort_keys; /* a report's, set before its options are parsed, for --help
                                            * (ended by an entry whose keys are NULL) */
    const struct cli_command *commands; /* the table the command was found in (commands.c's), for a command
                                         * that runs others (export csv --report, sql's report tables) */
};

enum opt_type { OPT_FLAG, OPT_STRING, OPT_INT, OPT_FORMAT, OPT_SIZE }; /* OPT_SIZE: bytes, "64M", "1G" -> int64_t */

struct opt {
    const char *name; /* long name without "--" */
    char short_name;  /* 0 when none */
    enum opt_type type;
    void *target;     /* int*, const char**, int64_t*, enum render_format* */
    const char *help;
};
#define OPT_END {0, 0, OPT_FLAG, 0, 0}

/* Parses argv[1..] against opts; positional arguments are moved to the front of argv and their count
 * returned. A "--" ends options; everything after it is positional. -1 on a bad option (printed). */
int cli_parse_options(int argc, char **argv, const struct opt *opts, const char *usage, struct cli *cli);
void cli_usage(const struct opt *opts, const char *usage, FILE *to);
/* --help's part on a report's table: its sort keys (cli->sort_keys) and its columns, each with its header,
 * unit and meaning (report_columns.c). */
void cli_columns_help(const struct cli *cli, FILE *out);

/* Runs the command argv[0] (help, --version, or a command of the table) with its arguments, printing to
 * out and err, its reports given handover (NULL: none; shards.h); its exit status. The tracedb program's
 * and (in_process) tdb_run's (dispatch.c). */
int cli_dispatch(int argc, char **argv, FILE *out, FILE *err, int in_process, struct shards_handover *handover);

/* One subcommand. */
/* What a command is for: `tracedb help` lists the commands under these headings, in this order. */
enum cli_group { CLI_IMPORT, CLI_REPORT, CLI_HTA, CLI_COMPARE, CLI_EXPORT, CLI_SQL, CLI_GROUPS };

struct cli_command {
    const char *name;
    int (*fn)(int argc, char **argv, struct cli *cli);
    int is_report; /* takes a database and --format: usable by export csv --report */
    const char *help;
    const char *example; /* shown by --help (and in the man page), one command a line */
    enum cli_group group;
};

/* The table (NULL-terminated, alphabetical) and a lookup by name (NULL when unknown). */
const struct cli_command *cli_commands(void);
const struct cli_command *cli_command(const char *name);

int cmd_api(int argc, char **argv, struct cli *cli);
int cmd_device(int argc, char **argv, struct cli *cli);
int cmd_diff(int argc, char **argv, struct cli *cli);
int cmd_export(int argc, char **argv, struct cli *cli);
int cmd_report(int argc, char **argv, struct cli *cli);
int cmd_overlap(int argc, char **argv, struct cli *cli);
int cmd_critical_path(int argc, char **argv, struct cli *cli);
/* The tracedb program (main.c), its reports given handover (NULL: none): main() and tracedb-mpi's
 * process 0 (analyzer/cli/mpi_main.c, mpi_reduce.c, which hands over the reduce database it made). */
int tracedb_main(int argc, char **argv, struct shards_handover *handover);
int cmd_idle(int argc, char **argv, struct cli *cli);
int cmd_launches(int argc, char **argv, struct cli *cli);
int cmd_queue(int argc, char **argv, struct cli *cli);
int cmd_finish(int argc, char **argv, struct cli *cli);
int cmd_import(int argc, char **argv, struct cli *cli);
int cmd_kernels(int argc, char **argv, struct cli *cli);
int cmd_latency(int argc, char **argv, struct cli *cli);
int cmd_memops(int argc, char **argv, struct cli *cli);
int cmd_memory(int argc, char **argv, struct cli *cli);
int cmd_merge(int argc, char **argv, struct cli *cli);
int cmd_ops(int argc, char **argv, struct cli *cli);
int cmd_ranks(int argc, char **argv, struct cli *cli);
int cmd_record(int argc, char **argv, struct cli *cli);
int cmd_sql(int argc, char **argv, struct cli *cli);
int cmd_summary(int argc, char **argv, struct cli *cli);

/* Edits (insert, delete, replace, swap two neighbours) from a to b, up to 3; 3 means "more" (options.c):
 * what a typo's suggestion is measured by, for commands and options alike. */
int cli_edit_distance(const char *a, const char *b);

#endif
