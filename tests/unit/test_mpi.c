/* test_mpi.c: tracedb-mpi import (#13) under mpirun on localhost: the shards equal what a plain tracedb
 * import of each trace makes, the traces go to the processes balanced by bytes, the manifest lists them,
 * and a bad trace fails its shard alone. Run when make test built build/test/tracedb-mpi (Open MPI
 * installed: .ci/run makes sure); skipped otherwise. Open MPI's own allocations at MPI_Init (in plugins
 * it unloads, whose frames LeakSanitizer cannot name to suppress) are not leak-checked here: the import
 * code the shards go through is the plain tracedb's, leak-checked by every other test. */
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *mpi_binary(void)
{
    const char *m = getenv("TRACEDB_MPI");
    if (!m || !*m || access(m, X_OK) != 0 || run("command -v mpirun >/dev/null 2>&1") != 0)
        return NULL;
    return m;
}

#define MPIRUN "ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root --oversubscribe -n %d"

static const char *const traces[] = {
    "critical_path_alexnet_trace.json.gz", "trace_diff_control_control.json.gz", "ns_resolution_trace_rank-0.json.gz",
    "cpu_only_rank-34.json.gz", "nccl_parser_config_nccl_data.json.gz", "trace_diff_test_test.json.gz",
};
#define NTRACES (sizeof traces / sizeof traces[0])

/* What a database holds, as one line: its traces, the events' sums and the import's sums. */
static char *fingerprint(const char *db)
{
    sqlite3 *d = db_open(db);
    char *f = db_text(d, "SELECT (SELECT group_concat(coalesce(rank, '-') || ':' || coalesce(name, '') || ':' || status, ',') FROM trace) "
                         "|| '|' || (SELECT count(*) || ',' || total(start_ns) || ',' || total(dur_ns) || ',' || total(self_ns) || ',' || "
                         "  total(coalesce(parent_id, 0)) || ',' || total(coalesce(launch_id, 0)) || ',' || total(depth) || ',' || "
                         "  total(length(coalesce(args, ''))) FROM event) "
                         "|| '|' || (SELECT count(*) || ',' || total(calls) || ',' || total(total_ns) || ',' || total(self_ns) || ',' || "
                         "  total(max_ns) FROM event_stats) "
                         "|| '|' || (SELECT coalesce(group_concat(busy_ns || '/' || run_ns), '') FROM device_stats)");
    sqlite3_close(d);
    cr_assert(f, "%s: no fingerprint", db);
    return f;
}

static void check_against_plain_imports(int procs)
{
    const char *mpi = mpi_binary();
    if (!mpi)
        skip_for_missing("no tracedb-mpi (make mpi needs Open MPI: sh tools/deps.sh mpi)");
    char *dir = temp_dir(), cmd[8000], out[1200];
    snprintf(out, sizeof out, "%s/shards", dir);
    int o = snprintf(cmd, sizeof cmd, MPIRUN " '%s' import -q -o '%s'", procs, mpi, out);
    for (size_t i = 0; i < NTRACES; i++) {
        char rel[300];
        snprintf(rel, sizeof rel, "tests/data/kineto/%s", traces[i]);
        o += snprintf(cmd + o, sizeof cmd - (size_t)o, " '%s'", src_path(rel));
    }
    cr_assert_eq(run("%s", cmd), 0, "%s", cmd);
    /* the manifest */
    char path[1300];
    snprintf(path, sizeof path, "%s/shards.json", out);
    char *text = read_file(path, NULL);
    cJSON *doc = cJSON_Parse(text), *shards = cJSON_GetObjectItem(doc, "shards"), *s;
    free(text);
    cr_assert_eq(cJSON_GetArraySize(shards), (int)NTRACES);
    cr_assert_eq(cJSON_GetObjectItem(doc, "processes")->valueint, procs);
    double load[8] = {0}, biggest = 0;
    int i = 0;
    cJSON_ArrayForEach(s, shards)
    {
        char rel[300], shard[1400], plain[1400];
        snprintf(rel, sizeof rel, "tests/data/kineto/%s", traces[i]);
        struct stat sb;
        cr_assert_eq(stat(src_path(rel), &sb), 0);
        cr_expect_eq(cJSON_GetObjectItem(s, "bytes")->valuedouble, (double)sb.st_size, "%s", traces[i]);
        cr_expect_str_eq(cJSON_GetObjectItem(s, "status")->valuestring, "imported");
        int p = cJSON_GetObjectItem(s, "process")->valueint;
        cr_assert(p >= 0 && p < procs);
        load[p] += (double)sb.st_size;
        biggest = (double)sb.st_size > biggest ? (double)sb.st_size : biggest;
        /* the shard is the plain import of its trace */
        snprintf(shard, sizeof shard, "%s/%s", out, cJSON_GetObjectItem(s, "file")->valuestring);
        snprintf(plain, sizeof plain, "%s/plain-%d.db", dir, i);
        cr_assert_eq(import_to(src_path(rel), plain), 0);
        char *a = fingerprint(shard), *b = fingerprint(plain);
        cr_expect(strcmp(a, b) == 0, "%s: shard %s: %s; plain import: %s", traces[i], shard, a, b);
        free(a), free(b);
        i++;
    }
    /* balanced by bytes: greedy largest-first leaves no process more than the largest trace above another */
    double lo = load[0], hi = load[0];
    for (int p = 1; p < procs; p++)
        lo = load[p] < lo ? load[p] : lo, hi = load[p] > hi ? load[p] : hi;
    cr_expect(hi - lo <= biggest, "loads %g..%g, largest trace %g", lo, hi, biggest);
    for (int p = 0; p < procs; p++)
        cr_expect(load[p] > 0, "process %d got nothing", p);
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(mpi, import_shards_equal_plain_imports_on_2_processes, .timeout = 300)
{
    check_against_plain_imports(2);
}

Test(mpi, import_shards_equal_plain_imports_on_3_processes, .timeout = 300)
{
    check_against_plain_imports(3);
}

/* A trace that is not JSON fails its shard alone: the others are imported, the error names the file, the
 * exit status is 1, the manifest marks it; a second import into the directory is refused without --force. */
Test(mpi, a_bad_trace_fails_its_shard_alone, .timeout = 300)
{
    const char *mpi = mpi_binary();
    if (!mpi)
        skip_for_missing("no tracedb-mpi (make mpi needs Open MPI: sh tools/deps.sh mpi)");
    char *dir = temp_dir(), bad[1200], out[1200];
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    snprintf(out, sizeof out, "%s/shards", dir);
    static const char broken[] = "{\"traceEvents\": [ {\"ph\": \"X\", \"name\": ";
    write_file(bad, broken, (long)strlen(broken));
    int st;
    char *err = run_capture(&st, MPIRUN " '%s' import -o '%s' '%s' '%s' '%s' 2>&1", 2, mpi, out,
                            src_path("tests/data/kineto/cpu_only_rank-34.json.gz"), bad,
                            src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"));
    cr_expect_neq(st, 0, "%s", err);
    cr_expect(strstr(err, bad) && strstr(err, "failed"), "the error names the file: %s", err);
    free(err);
    char path[1300];
    snprintf(path, sizeof path, "%s/shards.json", out);
    char *text = read_file(path, NULL);
    cJSON *doc = cJSON_Parse(text), *shards = cJSON_GetObjectItem(doc, "shards");
    free(text);
    cr_assert_eq(cJSON_GetArraySize(shards), 3);
    static const char *const want[] = {"imported", "failed", "imported"};
    for (int i = 0; i < 3; i++)
        cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(shards, i), "status")->valuestring, want[i]);
    cr_expect(cJSON_IsString(cJSON_GetObjectItem(cJSON_GetArrayItem(shards, 1), "error")));
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "%s/shard-0002.db", out);
    sqlite3 *d = db_open(path);
    cr_expect_gt(db_int(d, "SELECT count(*) FROM event"), 100);
    sqlite3_close(d);
    /* a report over the directory names the shard that failed rather than summing the others */
    char *said = run_capture(&st, "'%s' summary '%s' 2>&1", tracedb(), out);
    cr_expect(st == 1 && strstr(said, bad) && strstr(said, "was not imported"), "%s", said);
    free(said);
    /* the directory holds an import: refused, then replaced with --force */
    cr_expect_neq(run(MPIRUN " '%s' import -q -o '%s' '%s' 2>/dev/null", 2, mpi, out,
                      src_path("tests/data/kineto/cpu_only_rank-34.json.gz")),
                  0);
    cr_expect_eq(run(MPIRUN " '%s' import -q --force -o '%s' '%s' 2>/dev/null", 2, mpi, out,
                     src_path("tests/data/kineto/cpu_only_rank-34.json.gz")),
                 0);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Six real traces, two of them two ranks of one job (steps 551 and 552), one with [memory] events, one
 * with CUDA syncs (alexnet). */
static const char *const job[] = {"trace_diff_control_control.json.gz", "trace_diff_test_test.json.gz",
                                  "timeline_analysis_sampled_rank-0.json.gz", "trace_filter_sampled_rank-1.json.gz",
                                  "critical_path_alexnet_trace.json.gz", "df_index_resolver_df_index_resolver.json.gz"};
#define NJOB (sizeof job / sizeof job[0])

/* dir/one.db: the traces imported into one database; dir/shards: a shard each with its manifest,
 * made by plain tracedb imports (as tracedb-mpi import makes them). */
static void make_job(const char *dir)
{
    char cmd[6000], shard[1300];
    int o = snprintf(cmd, sizeof cmd, "'%s' import -q -o '%s/one.db'", tracedb(), dir);
    cr_assert_eq(run("mkdir -p '%s/shards'", dir), 0);
    char manifest[4000];
    int m = snprintf(manifest, sizeof manifest, "{\"format\": \"tracedb shards\", \"version\": 1, \"shards\": [");
    for (int i = 0; i < (int)NJOB; i++) {
        char rel[300];
        snprintf(rel, sizeof rel, "tests/data/kineto/%s", job[i]);
        o += snprintf(cmd + o, sizeof cmd - (size_t)o, " '%s'", src_path(rel));
        snprintf(shard, sizeof shard, "%s/shards/shard-%04d.db", dir, i);
        cr_assert_eq(import_to(src_path(rel), shard), 0);
        m += snprintf(manifest + m, sizeof manifest - (size_t)m, "%s{\"file\": \"shard-%04d.db\", \"trace\": \"%s\", \"status\": \"imported\"}",
                      i ? ", " : "", i, job[i]);
    }
    snprintf(manifest + m, sizeof manifest - (size_t)m, "]}");
    cr_assert_eq(run("%s 2>/dev/null", cmd), 0);
    char path[1300];
    snprintf(path, sizeof path, "%s/shards/shards.json", dir);
    write_file(path, manifest, (long)strlen(manifest));
}

static const char *const shard_reports[] = {"ops", "ops --by-rank --format json --limit 100000",
                                            "ops --sort cpu_memory_usage --format csv", "ops --no-device-rows",
                                            "summary --format json", "ranks", "ranks --sort straggle_ns --format csv", "kernels",
                                            "kernels --by-rank --kinds kernel,memcpy,memset --format json",
                                            "kernels --by-type --by-rank", "memops --by-rank --format csv", "device",
                                            "device --steps '*' --format csv", "api --by-rank", "latency --top-level --format csv",
                                            "memory --format json", "overlap", "idle",
                                            "launches --format csv", "queue", "overlap --drop-last-step",
                                            "idle --drop-last-step", "launches --drop-last-step", "queue --drop-last-step",
                                            "kernels --by-type --drop-last-step", "device --drop-last-step",
                                            "memops --drop-last-step"};

/* Each of shard_reports run by runner (a command prefix) over dir/shards prints what tracedb prints
 * over dir/one.db, byte for byte. */
static void compare_shard_reports(const char *dir, const char *runner)
{
    for (size_t r = 0; r < sizeof shard_reports / sizeof shard_reports[0]; r++) {
        char cmd[200];
        snprintf(cmd, sizeof cmd, "%s", shard_reports[r]);
        char *sp = strchr(cmd, ' '), *rest = sp ? sp + 1 : (char *)"";
        if (sp)
            *sp = 0;
        int s1, s2;
        char *one = run_capture(&s1, "'%s' %s '%s/one.db' %s 2>&1", tracedb(), cmd, dir, rest);
        char *sh = run_capture(&s2, "%s %s '%s/shards' %s 2>&1", runner, cmd, dir, rest);
        cr_expect(s1 == 0 && s2 == 0 && strcmp(one, sh) == 0 && strlen(one) > 200, "%s %s:\n%s\n---\n%s", runner,
                  shard_reports[r], one, sh);
        free(one), free(sh);
    }
    /* the summary's GPU efficiency over the directory (equal to one database's: above), from the passes of
     * overlap, idle and launches over its reduce database: a row per rank and device */
    int s2;
    char *sh = run_capture(&s2, "%s summary '%s/shards' --format json 2>/dev/null", runner, dir);
    cJSON *b = cJSON_Parse(sh);
    const cJSON *gpu = cJSON_GetObjectItem(b, "gpu_efficiency");
    cr_expect(s2 == 0 && cJSON_GetArraySize(gpu) > 0 && cJSON_GetObjectItem(cJSON_GetArrayItem(gpu, 0), "device"), "%s", sh);
    cJSON_Delete(b);
    free(sh);
}

/* The reports the issue names (summary, ops, kernels, api, memops, latency, device, memory, ranks) and
 * HTA's overlap, idle, launches and queue (also in HTA's window, --drop-last-step) over a shard directory
 * print what they print over one database of the same traces, byte for byte (medians and standard
 * deviations included: the rows they need are gathered in the shards' order; ops' PyTorch merge of an
 * only same-name child and memory per operator, which df_index_resolver's events need, from each shard's
 * own pass); a report that needs more
 * (critical-path), and other windows, refuse it and say why; a shard that failed at import is named. */
Test(shards, reports_over_a_directory_equal_one_database, .timeout = 300)
{
    char *dir = temp_dir();
    make_job(dir);
    char runner[1200];
    snprintf(runner, sizeof runner, "'%s'", tracedb());
    compare_shard_reports(dir, runner);
    int st;
    char *out = run_capture(&st, "'%s' critical-path '%s/shards' 2>&1", tracedb(), dir);
    cr_expect(st == 1 && strstr(out, "directory of shards") && strstr(out, "tracedb merge"), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' ops '%s/shards' --range 'ProfilerStep#551' 2>&1", tracedb(), dir);
    cr_expect(st == 1 && strstr(out, "windows"), "%s", out);
    free(out);
    char path[1300];
    snprintf(path, sizeof path, "%s/shards/shards.json", dir);
    char *text = read_file(path, NULL), *imported = strstr(text, "\"status\": \"imported\"}]");
    cr_assert(imported);
    memcpy(imported, "\"status\": \"failed\"  }]", 22);
    write_file(path, text, (long)strlen(text));
    free(text);
    out = run_capture(&st, "'%s' ops '%s/shards' 2>&1", tracedb(), dir);
    cr_expect(st == 1 && strstr(out, "df_index_resolver_df_index_resolver.json.gz") && strstr(out, "was not imported"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The same under mpirun: every process reads its share of the shards, process 0 adds them up. */
static void reports_under_mpi(int procs)
{
    const char *mpi = mpi_binary();
    if (!mpi)
        skip_for_missing("no tracedb-mpi (make mpi needs Open MPI: sh tools/deps.sh mpi)");
    char *dir = temp_dir();
    make_job(dir);
    char runner[1200];
    snprintf(runner, sizeof runner, MPIRUN " '%s'", procs, mpi);
    compare_shard_reports(dir, runner);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(mpi, reports_over_shards_on_2_processes, .timeout = 600)
{
    reports_under_mpi(2);
}

Test(mpi, reports_over_shards_on_3_processes, .timeout = 600)
{
    reports_under_mpi(3);
}

/* A process still busy past --timeout ends the job instead of hanging it: one trace is a FIFO nobody
 * writes (a stalled filesystem, say), so its process waits for ever; the command returns well within the
 * shell's own 120 s limit (which would kill it: status 137), fails, and says why. */
Test(mpi, a_process_past_its_timeout_ends_the_job, .timeout = 300)
{
    const char *mpi = mpi_binary();
    if (!mpi)
        skip_for_missing("no tracedb-mpi (make mpi needs Open MPI: sh tools/deps.sh mpi)");
    char *dir = temp_dir(), fifo[1200];
    snprintf(fifo, sizeof fifo, "%s/stalled.json", dir);
    cr_assert_eq(run("mkfifo '%s'", fifo), 0);
    int st;
    char *err = run_capture(&st, "timeout -s KILL 120 env " MPIRUN " '%s' import --timeout 2 -o '%s/shards' '%s' '%s' 2>&1", 2, mpi,
                            dir, fifo, src_path("tests/data/kineto/cpu_only_rank-34.json.gz"));
    cr_expect(st != 0 && st != 137 && strstr(err, "--timeout passed"), "status %d: %s", st, err);
    free(err);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A manifest naming a shard that is not there, or a file outside the directory: a clear error, and the
 * report writes nothing (SQLite would make an empty database of a missing file it attaches). */
Test(shards, a_missing_or_outside_shard_is_named_and_nothing_written_and_none_is_no_rows)
{
    char *dir = temp_dir(), path[1200];
    static const char missing[] = "{\"shards\": [{\"file\": \"shard-0000.db\", \"status\": \"imported\"}]}";
    static const char outside[] = "{\"shards\": [{\"file\": \"../one.db\", \"status\": \"imported\"}]}";
    snprintf(path, sizeof path, "%s/shards.json", dir);
    write_file(path, missing, (long)strlen(missing));
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' 2>&1", tracedb(), dir);
    cr_expect(st == 1 && strstr(out, "shard-0000.db is missing"), "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/shard-0000.db", dir);
    cr_expect_neq(access(path, F_OK), 0, "the report made %s", path);
    snprintf(path, sizeof path, "%s/shards.json", dir);
    write_file(path, outside, (long)strlen(outside));
    out = run_capture(&st, "'%s' kernels '%s' 2>&1", tracedb(), dir);
    cr_expect(st == 1 && strstr(out, "names no file in the directory"), "%s", out);
    free(out);
    /* a directory of no shard: no operator, no error (no shard's pass made the table of their rows) */
    static const char none[] = "{\"shards\": []}";
    write_file(path, none, (long)strlen(none));
    out = run_capture(&st, "'%s' ops '%s' --format csv 2>&1", tracedb(), dir);
    cr_expect(st == 0 && strncmp(out, "name,calls,", 11) == 0 && !strchr(strchr(out, '\n') + 1, '\n'), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A directory stands for the traces in it, as for tracedb import: two traces (b.json.gz and a.json,
 * listed in name order: shard-0000 is a.json) and a note, skipped and said once (by process 0). */
Test(mpi, directory_is_its_traces_one_shard_each)
{
    const char *mpi = mpi_binary();
    if (!mpi)
        skip_for_missing("no tracedb-mpi (make mpi needs Open MPI: sh tools/deps.sh mpi)");
    char *dir = temp_dir(), out[1200];
    snprintf(out, sizeof out, "%s/shards", dir);
    cr_assert_eq(run("mkdir '%s/t' && cp '%s' '%s/t/b.json.gz' && gzip -dc '%s' > '%s/t/a.json' && echo x > '%s/t/notes.txt'", dir,
                     src_path("tests/data/kineto/cpu_only_rank-34.json.gz"), dir,
                     src_path("tests/data/kineto/ns_resolution_trace_rank-0.json.gz"), dir, dir),
                 0);
    int st;
    char *err = run_capture(&st, MPIRUN " '%s' import '%s/t' -o '%s' 2>&1", 2, mpi, dir, out);
    cr_assert_eq(st, 0, "%s", err);
    const char *said = strstr(err, "1 file skipped, not traces (.json, .json.gz, or Furiosa's records: .csv): notes.txt");
    cr_assert(said && !strstr(said + 20, "file skipped"), "said once: %s", err);
    free(err);
    char path[1300], want[1300];
    snprintf(path, sizeof path, "%s/shards.json", out);
    char *text = read_file(path, NULL);
    cJSON *doc = cJSON_Parse(text), *shards = cJSON_GetObjectItem(doc, "shards");
    free(text);
    cr_assert_eq(cJSON_GetArraySize(shards), 2);
    snprintf(want, sizeof want, "%s/t/a.json", dir);
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(shards, 0), "trace")->valuestring, want);
    snprintf(want, sizeof want, "%s/t/b.json.gz", dir);
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(shards, 1), "trace")->valuestring, want);
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}
