/* cmd_record.c: `tracedb record -o run.db -- CMD ARGS...`: runs a program with tracedb's injection
 * library named in NVTX_INJECTION64_PATH (and CUDA_INJECTION64_PATH where CUPTI support is built), so
 * its NVTX ranges and, with a GPU, its CUDA activity land in run.db with no code change. Programs
 * linked with libtracedb record their C API events through TRACEDB_OUTPUT the same way.
 * Exits with the program's status, or 1 where it is 0 and a schedule saw no step. */
#define _GNU_SOURCE
#include "cli.h"
#include "db_guard.h"
#include "output_claim.h"
#include "recording.h"
#include "report.h"
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char record_usage[] =
    "tracedb record [-o run.db] [--force] [--level 1|2] [--kinds LIST] [--schedule S,W,U,A,R [--step NAME]] -- CMD [ARGS...]";

/* The injection library: $TRACEDB_INJECT, or beside this binary, or in ../lib/tracedb/. */
static int record_inject_path(char *out, size_t n)
{
    const char *env = getenv("TRACEDB_INJECT");
    if (env && access(env, R_OK) == 0)
        return snprintf(out, n, "%s", env) < (int)n ? 0 : -1;
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return -1;
    self[len] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = 0;
    static const char *const rel[] = {"libtracedb_inject.so", "../lib/tracedb/libtracedb_inject.so"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        if (strlen(self) + strlen(rel[i]) + 2 > n)
            continue;
        strcpy(out, self);
        strcat(out, "/");
        strcat(out, rel[i]);
        if (access(out, R_OK) == 0)
            return 0;
    }
    return -1;
}

/* No database is there: no recording was opened (the program made no call that opens one), or one was
 * and wrote none (where its schedule saw no step and kept nothing, as it said). Scheduled: either way the
 * schedule saw no step. */
static void record_none(const char *path, int opened, int scheduled, struct cli *cli)
{
    fprintf(cli->io.err, "tracedb: no database was written at %s (%s%s)\n", path,
            opened && scheduled ? "" : "did the program make any NVTX, CUDA or tracedb call?",
            !scheduled ? "" : opened ? "the schedule saw no step" : " The schedule saw no step");
}

/* One line on what the recording holds; the steps its schedule saw (-1: none was set, or it is not known). */
static int64_t record_summary(const char *path, int scheduled, struct cli *cli)
{
    sqlite3 *db;
    if (tdb_db_open(path, SQLITE_OPEN_READONLY, &db) != SQLITE_OK) {
        record_none(path, 1, scheduled, cli);
        sqlite3_close(db);
        return scheduled ? 0 : -1;
    }
    int64_t steps = -1;
    sqlite3_stmt *st = report_prepare(db, "record_summary", &cli->io);
    if (st && sqlite3_step(st) == SQLITE_ROW) {
        const char *status = (const char *)sqlite3_column_text(st, 2);
        char seen[64] = "";
        if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
            steps = sqlite3_column_int64(st, 4);
            snprintf(seen, sizeof seen, "; the schedule saw %lld steps", (long long)steps);
        }
        /* never closed (the program was killed): the staging file holds every event staged, more than was
         * committed, and finish builds the database from it */
        char stage[PATH_MAX + 8];
        struct stat sb;
        int open_ended = status && strcmp(status, "recording") == 0;
        int staged = open_ended && (size_t)snprintf(stage, sizeof stage, "%s-stage", path) < sizeof stage &&
                     stat(stage, &sb) == 0;
        fprintf(cli->io.err, "tracedb: %s: %lld events on %lld threads%s%s%s; %lld dropped%s. Next: tracedb %s %s%s\n",
                path, (long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1),
                !open_ended ? ""
                : staged    ? " committed (the program ended without closing the recording; "
                            : " (the program ended without closing the recording: everything up to its last commit is kept)",
                staged ? stage : "", staged ? " holds every event it staged)" : "", (long long)sqlite3_column_int64(st, 3),
                seen, staged ? "finish" : "summary", path, staged ? " (builds the database from it)" : "");
    } else if (st) {
        fprintf(cli->io.err, "tracedb: %s: %s\n", path, sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return steps;
}

/* What the recording keeps where no CUDA driver is: said before the program runs. */
static void record_no_driver(const struct tdb_options *o, const char *kinds, struct cli *cli)
{
    if (!tdb_recording_keeps_host(o))
        fprintf(cli->io.err, "tracedb: no CUDA driver on this machine, and %s%s keeps device work only: this recording "
                             "will hold no events (--level 2, the default, keeps NVTX ranges and marks and tracedb API "
                             "events)\n", kinds ? "--kinds " : "--level 1", kinds ? kinds : "");
    else if (kinds)
        fprintf(cli->io.err, "tracedb: no CUDA driver on this machine: recording only the NVTX and tracedb API events of "
                             "the kinds --kinds %s names\n", kinds);
    else
        fprintf(cli->io.err, "tracedb: no CUDA driver on this machine: recording NVTX ranges and marks and tracedb API "
                             "events only\n");
}

/* The recordings of the program's child processes (each writes its own, OUT.PID, recording.c), made since
 * started: named, so that none is left unsaid. */
static void record_children(const char *out, time_t started, struct cli *cli)
{
    const char *slash = strrchr(out, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) + (slash == out) : 1, slash ? out : ".");
    const char *base = slash ? slash + 1 : out;
    size_t bn = strlen(base);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        const char *digits = e->d_name + bn + 1;
        char path[PATH_MAX + 256];
        struct stat sb;
        if (strncmp(e->d_name, base, bn) != 0 || e->d_name[bn] != '.' || !*digits ||
            strspn(digits, "0123456789") != strlen(digits))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &sb) == 0 && sb.st_mtime >= started)
            fprintf(cli->io.err, "tracedb: process %s (a child of the program, or another recorder of %s) recorded "
                                 "into %s\n", digits, out, slash ? path : e->d_name);
    }
    if (d)
        closedir(d);
}

int cmd_record(int argc, char **argv, struct cli *cli)
{
    const char *out = "run.db", *kinds = NULL, *schedule = NULL, *step = NULL;
    int force = 0;
    int64_t level = 2;
    const struct opt opts[] = {
        {"output", 'o', OPT_STRING, &out, "the database to write (default run.db)"},
        {"force", 'f', OPT_FLAG, &force, "replace it if it exists"},
        {"level", 0, OPT_INT, &level, "1: device work only; 2 (default): also host ranges, marks, memory"},
        {"kinds", 0, OPT_STRING, &kinds, "exactly these kinds: range, instant, counter, memory"},
        {"schedule", 0, OPT_STRING, &schedule, "skip_first,wait,warmup,active,repeat in steps (PyTorch's)"},
        {"step", 0, OPT_STRING, &step, "with --schedule: a step ends where an NVTX range so named ends (a glob; "
                                       "default " TDB_STEP_GLOB_DEFAULT ")"},
        OPT_END,
    };
    /* options end at the command: everything from the first word that is not ours belongs to it */
    int split = 1;
    while (split < argc && strcmp(argv[split], "--") != 0)
        split++;
    int n = cli_parse_options(split, argv, opts, record_usage, cli);
    if (n != 0 || split + 1 >= argc) {
        if (n >= 0)
            cli_usage(opts, record_usage, cli->io.err);
        return 2;
    }
    char **cmd = argv + split + 1;
    if (level != 1 && level != 2) {
        fprintf(cli->io.err, "%s: --level is 1 or 2\n", cli->io.prog);
        return 2;
    }
    char lv[8];
    snprintf(lv, sizeof lv, "%d", (int)level);
    struct tdb_options checked; /* --kinds and --schedule as the program's recording will read them: said now */
    if (tdb_recording_options(lv, kinds, schedule, &checked, cli->io.err) != 0)
        return 2;
    /* a schedule the program inherits (TRACEDB_SCHEDULE) counts as one given here */
    struct tdb_options inherited;
    const char *env_schedule = getenv("TRACEDB_SCHEDULE");
    int scheduled = schedule ? checked.active > 0
                             : env_schedule && tdb_recording_options(NULL, NULL, env_schedule, &inherited, NULL) == 0 &&
                                   inherited.active > 0;
    if (step && (!*step || !scheduled)) {
        fprintf(cli->io.err, "%s: --step %s\n", cli->io.prog,
                !*step ? "needs the name (or glob) of the ranges that mark a step"
                       : "names the ranges that end a step of --schedule: give --schedule too");
        return 2;
    }
    struct stat sb;
    char stage[PATH_MAX];
    const char *why = tdb_out_unwritable(out, stage, sizeof stage);
    if (why) { /* said now, not after the whole program has run */
        fprintf(cli->io.err, "%s: cannot record to %s: %s\n", cli->io.prog, out, why);
        return 1;
    }
    snprintf(stage, sizeof stage, "%s-stage", out);
    int exists = stat(out, &sb) == 0, staged = stat(stage, &sb) == 0;
    if ((exists || staged) && !force) {
        fprintf(cli->io.err, "%s: %s already exists; use --force to replace it%s\n", cli->io.prog, exists ? out : stage,
                staged ? " (or tracedb finish to build the database from its staging file)" : "");
        return 2;
    }
    if (exists || staged) { /* the old database, its side files, and the staging file of a recording that crashed */
        char side[PATH_MAX];
        unlink(out);
        unlink(stage);
        snprintf(side, sizeof side, "%s-wal", out), unlink(side);
        snprintf(side, sizeof side, "%s-shm", out), unlink(side);
    }
    char inject[PATH_MAX], abs_out[PATH_MAX];
    if (record_inject_path(inject, sizeof inject) != 0) {
        fprintf(cli->io.err, "%s: cannot find libtracedb_inject.so (beside tracedb, in ../lib/tracedb, or $TRACEDB_INJECT)\n",
                cli->io.prog);
        return 1;
    }
    /* the name claimed now, atomically (an empty file the program's recording takes over): of two
     * recordings started at once to one name, one runs and the other is told, before its program runs */
    char token[PATH_MAX + 8];
    snprintf(token, sizeof token, "%s-claim", out);
    int claim = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), e = errno;
    if (claim < 0) {
        fprintf(cli->io.err, "%s: %s %s\n", cli->io.prog, out,
                e == EEXIST ? "already exists (another recording took it meanwhile); use --force to replace it"
                            : tdb_out_reason(e));
        return e == EEXIST ? 2 : 1;
    }
    close(claim);
    int token_fd = open(token, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644); /* the first process to remove it takes out */
    if (token_fd < 0) {
        fprintf(cli->io.err, "%s: cannot write %s: %s\n", cli->io.prog, token, tdb_out_reason(errno));
        unlink(out);
        return 1;
    }
    close(token_fd);
    time_t started = time(NULL);
    if (out[0] == '/')
        snprintf(abs_out, sizeof abs_out, "%s", out);
    else {
        if (!getcwd(abs_out, sizeof abs_out) || strlen(abs_out) + strlen(out) + 2 > sizeof abs_out)
            return 1;
        strcat(abs_out, "/");
        strcat(abs_out, out);
    }
    void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!cuda)
        record_no_driver(&checked, kinds, cli);
    else
        dlclose(cuda);
    if (cuda) /* CUDA loads the library at cuInit and calls its InitializeInjection (CUPTI) */
        setenv("CUDA_INJECTION64_PATH", inject, 1);
    setenv("TRACEDB_OUTPUT", abs_out, 1);
    setenv("TRACEDB_OUTPUT_CLAIMED", abs_out, 1); /* the empty file there is this recording's to take */
    setenv("TRACEDB_LEVEL", lv, 1);
    if (kinds)
        setenv("TRACEDB_KINDS", kinds, 1);
    if (schedule)
        setenv("TRACEDB_SCHEDULE", schedule, 1);
    if (step)
        setenv("TRACEDB_STEP", step, 1);
    setenv("NVTX_INJECTION64_PATH", inject, 1);
    fflush(NULL);
    int exec_said[2]; /* closed by a successful exec; a failed one writes its errno: the program never ran */
    if (pipe(exec_said) != 0)
        exec_said[0] = exec_said[1] = -1;
    else
        fcntl(exec_said[0], F_SETFD, FD_CLOEXEC), fcntl(exec_said[1], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(cli->io.err, "%s: fork: %s\n", cli->io.prog, strerror(errno));
        unlink(out), unlink(token);
        close(exec_said[0]), close(exec_said[1]);
        return 1;
    }
    if (pid == 0) {
        execvp(cmd[0], cmd);
        int exec_error = errno;
        fprintf(stderr, "tracedb record: cannot run %s: %s\n", cmd[0], strerror(exec_error));
        ssize_t said = write(exec_said[1], &exec_error, sizeof exec_error);
        (void)said;
        _exit(127);
    }
    close(exec_said[1]);
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(exec_said[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(exec_said[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got == (ssize_t)sizeof exec_errno) { /* said by the child; no recording to speak of, the claim undone */
        if (unlink(token) == 0 && stat(out, &sb) == 0 && sb.st_size == 0)
            unlink(out);
        return 127;
    }
    int64_t steps = -1; /* the steps the schedule saw: 0, where there is one, is a failure */
    if (unlink(token) == 0 && stat(out, &sb) == 0 && sb.st_size == 0) { /* never taken: no recording was made */
        unlink(out);
        record_none(out, 0, scheduled, cli);
        steps = scheduled ? 0 : -1;
    } else
        steps = record_summary(out, scheduled, cli);
    record_children(out, started, cli);
    if (WIFSIGNALED(status)) {
        fprintf(cli->io.err, "tracedb: %s was killed by signal %d\n", cmd[0], WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status) == 0 && steps == 0 ? 1 : WEXITSTATUS(status);
}
