/* test_trace_inputs.c: what tracedb takes as its traces: a directory of them (as PyTorch's
 * tensorboard_trace_handler writes one per rank and cycle), hand-made with ranks and names chosen so
 * that the order and the ranks expected follow from the names and the traces themselves. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A one-operator trace named op, with distributedInfo.rank rank (none when rank < 0). */
static void write_rank_trace(const char *path, const char *op, int rank)
{
    char json[512], dist[64] = "";
    if (rank >= 0)
        snprintf(dist, sizeof dist, "\"distributedInfo\":{\"rank\":%d},", rank);
    snprintf(json, sizeof json,
             "{%s\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10}]}",
             dist, op);
    write_file(path, json, (long)strlen(json));
}

/* tensorboard_trace_handler's names (worker.time_ms.pt.trace.json[.gz]): the gzip one sorts first by
 * name, so it is trace 1 with its rank 0 (from the trace), the plain one trace 2 with rank 1. A note, a
 * subdirectory and a hidden file are no traces by name: left out, and said. */
Test(trace_inputs, directory_imports_its_traces_sorted_with_their_ranks)
{
    char *dir = temp_dir(), traces[1100], path[1200], db[1100];
    snprintf(traces, sizeof traces, "%s/traces", dir);
    cr_assert_eq(run("mkdir -p '%s/sub'", traces), 0);
    snprintf(path, sizeof path, "%s/host_11.1700000000002.pt.trace.json", traces);
    write_rank_trace(path, "second", 1);
    snprintf(path, sizeof path, "%s/host_10.1700000000001.pt.trace.json", traces);
    write_rank_trace(path, "first", 0);
    cr_assert_eq(run("gzip '%s'", path), 0);
    snprintf(path, sizeof path, "%s/notes.txt", traces);
    write_file(path, "notes\n", 6);
    snprintf(path, sizeof path, "%s/.scratch.json", traces);
    write_file(path, "[", 1);
    snprintf(db, sizeof db, "%s/job.db", dir);
    int st;
    char *err = run_capture(&st, "'%s' import '%s' -o '%s' 2>&1", tracedb(), traces, db);
    cr_assert_eq(st, 0, "%s", err);
    cr_assert(strstr(err, "3 files skipped, not traces (.json, .json.gz, or Furiosa's records: .csv): .scratch.json, notes.txt, sub/"), "%s", err);
    free(err);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM trace"), 2);
    cr_assert_eq(file_int(db, "SELECT rank FROM trace WHERE id = 1 AND source_file LIKE '%/host_10.1700000000001.pt.trace.json.gz'"), 0);
    cr_assert_eq(file_int(db, "SELECT rank FROM trace WHERE id = 2 AND source_file LIKE '%/host_11.1700000000002.pt.trace.json'"), 1);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM events e JOIN thread t ON t.id = e.thread_id JOIN process p ON p.id = t.process_id "
                              "JOIN trace r ON r.id = p.trace_id WHERE (e.name = 'first' AND r.rank = 0) OR (e.name = 'second' AND r.rank = 1)"),
                 2);
    /* -q: nothing said; the same database as the two files named one by one, in that order */
    char one[1100];
    snprintf(one, sizeof one, "%s/one.db", dir);
    err = run_capture(&st, "'%s' import -q '%s/host_10.1700000000001.pt.trace.json.gz' '%s/host_11.1700000000002.pt.trace.json' "
                           "-o '%s' 2>&1 && '%s' import -q '%s' -o '%s' --force 2>&1",
                      tracedb(), traces, traces, one, tracedb(), traces, db);
    cr_assert_eq(st, 0, "%s", err);
    cr_assert_str_eq(err, "");
    free(err);
    const char *q = "SELECT group_concat(rank || ' ' || source_file, ', ') FROM (SELECT * FROM trace ORDER BY id)";
    sqlite3 *a = db_open(db), *b = db_open(one);
    char *ta = db_text(a, q), *tb = db_text(b, q);
    cr_assert_str_eq(ta, tb);
    free(ta), free(tb);
    sqlite3_close(a), sqlite3_close(b);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Furiosa's records in a directory are traces by their header, any case of .csv: a directory holding
 * tests/data/furiosa/records.csv as NPU.CSV, its first 79 rows gzip'd as b.csv.gz, and a table of one's own (kernels.csv,
 * no start, end, cat, name) imports the two records (80 + 79 events, a row each) and says
 * the table skipped. */
Test(trace_inputs, a_directorys_furiosa_records_are_traces_by_their_header)
{
    char *dir = temp_dir(), db[1100];
    cr_assert_eq(run("cd '%s' && mkdir log && cp '%s' log/NPU.CSV && head -n 80 log/NPU.CSV | gzip > log/b.csv.gz && "
                     "printf 'name,total_ns\\nconv,100\\n' > log/kernels.csv",
                     dir, src_path("tests/data/furiosa/records.csv")),
                 0);
    snprintf(db, sizeof db, "%s/log.db", dir);
    int st;
    char *err = run_capture(&st, "cd '%s' && '%s' import log 2>&1", dir, tracedb());
    cr_assert_eq(st, 0, "%s", err);
    cr_assert(strstr(err, "1 file skipped, not traces (.json, .json.gz, or Furiosa's records: .csv): kernels.csv"), "%s", err);
    free(err);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM trace WHERE source_format = 'furiosa-records'"), 2);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM events"), 80 + 79);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Traces naming no rank get --rank N, N+1 in the directory's order (a.json before b.json). */
Test(trace_inputs, directory_traces_without_ranks_take_rank_in_order)
{
    char *dir = temp_dir(), path[1200], db[1100];
    snprintf(path, sizeof path, "%s/t/b.json", dir);
    run("mkdir -p '%s/t'", dir);
    write_rank_trace(path, "b", -1);
    snprintf(path, sizeof path, "%s/t/a.json", dir);
    write_rank_trace(path, "a", -1);
    snprintf(db, sizeof db, "%s/r.db", dir);
    cr_assert_eq(run("'%s' import -q '%s/t/' --rank 4 -o '%s'", tracedb(), dir, db), 0);
    cr_assert_eq(file_int(db, "SELECT rank FROM trace WHERE source_file LIKE '%/t/a.json'"), 4);
    cr_assert_eq(file_int(db, "SELECT rank FROM trace WHERE source_file LIKE '%/t/b.json'"), 5);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* --rank takes an MPI rank (an int): past 2^31 - 1 it is refused before any work, so the next traces'
 * N+1, N+2 cannot pass 2^63 - 1 (--rank 9223372036854775807 with two traces overflowed). */
Test(trace_inputs, a_rank_past_an_int_is_refused_before_any_work)
{
    char *dir = temp_dir(), path[1200], db[1100];
    run("mkdir -p '%s/t'", dir);
    snprintf(path, sizeof path, "%s/t/a.json", dir);
    write_rank_trace(path, "a", -1);
    snprintf(path, sizeof path, "%s/t/b.json", dir);
    write_rank_trace(path, "b", -1);
    snprintf(db, sizeof db, "%s/r.db", dir);
    static const char *const ranks[] = {"9223372036854775807", "2147483648"};
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
        int st;
        char *err = run_capture(&st, "'%s' import -q '%s/t' --rank %s -o '%s' 2>&1", tracedb(), dir, ranks[i], db);
        cr_expect_eq(st, 2, "--rank %s: exit 2: %s", ranks[i], err);
        cr_expect(strstr(err, "--rank wants a rank from 0 to 2147483647"), "--rank %s: said: %s", ranks[i], err);
        free(err);
        cr_expect_eq(run("test -e '%s'", db), 1, "--rank %s: no database", ranks[i]);
    }
    cr_assert_eq(run("'%s' import -q '%s/t' --rank 2147483647 -o '%s'", tracedb(), dir, db), 0);
    cr_expect_eq(file_int(db, "SELECT rank FROM trace WHERE source_file LIKE '%/t/b.json'"), 2147483648LL);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A directory with no trace in it is an error naming it; nothing is written. */
Test(trace_inputs, directory_without_traces_is_an_error_naming_it)
{
    char *dir = temp_dir(), path[1200], db[1100];
    snprintf(path, sizeof path, "%s/empty/notes.txt", dir);
    run("mkdir -p '%s/empty'", dir);
    write_file(path, "x", 1);
    snprintf(db, sizeof db, "%s/e.db", dir);
    int st;
    char *err = run_capture(&st, "'%s' import '%s/empty' -o '%s' 2>&1", tracedb(), dir, db);
    cr_assert_eq(st, 1);
    char want[1300];
    snprintf(want, sizeof want, "%s/empty: no trace in this directory", dir);
    cr_assert(strstr(err, want), "%s", err);
    free(err);
    cr_assert_neq(access(db, F_OK), 0, "no database");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Without -o the database goes beside the (first) trace, its name less .gz, then less .json (or .csv), plus .db,
 * said on stderr; an existing one is refused without --force, as with -o; standard input has no name. */
Test(trace_inputs, import_without_output_names_the_database_beside_the_trace)
{
    char *dir = temp_dir(), path[1200], want[1200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    write_rank_trace(path, "op", -1);
    cr_assert_eq(run("cd '%s' && gzip run.json && mkdir log && gzip -dc run.json.gz > log/w.1700000000000.pt.trace.json", dir), 0);
    int st;
    char *err = run_capture(&st, "'%s' import '%s/run.json.gz' 2>&1", tracedb(), dir);
    snprintf(want, sizeof want, "tracedb: %s/run.db: 1 events imported", dir);
    cr_assert(st == 0 && strstr(err, want), "%s", err);
    free(err);
    snprintf(path, sizeof path, "%s/run.db", dir);
    cr_assert_eq(file_int(path, "SELECT count(*) FROM events WHERE name = 'op'"), 1);
    /* a second time: refused, the database untouched; --force replaces it */
    err = run_capture(&st, "'%s' import '%s/run.json.gz' 2>&1", tracedb(), dir);
    cr_assert(st == 1 && strstr(err, "already exists; use --force"), "%s", err);
    free(err);
    cr_assert_eq(run("'%s' import -q --force '%s/run.json.gz'", tracedb(), dir), 0);
    /* tensorboard_trace_handler's name keeps its .pt.trace; a directory gives DIR.db beside it */
    cr_assert_eq(run("cd '%s' && '%s' import -q log/w.1700000000000.pt.trace.json && test -f log/w.1700000000000.pt.trace.db",
                     dir, tracedb()),
                 0);
    cr_assert_eq(run("cd '%s/log' && '%s' import -q ../log/ && test -f ../log.db", dir, tracedb()), 0);
    cr_assert_eq(run("cd '%s/log' && rm ../log.db && '%s' import -q . && test -f ../log.db", dir, tracedb()), 0);
    /* Furiosa's records: less .csv */
    cr_assert_eq(run("cp '%s' '%s/npu.csv' && '%s' import -q '%s/npu.csv' && test -f '%s/npu.db'",
                     src_path("tests/data/furiosa/records.csv"), dir, tracedb(), dir, dir),
                 0);
    err = run_capture(&st, "'%s' import - < '%s/run.json.gz' 2>&1", tracedb(), dir);
    cr_assert(st == 2 && strstr(err, "standard input has no name to take one from: -o run.db names it"), "%s", err);
    free(err);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The modification time of path in ns (-1 when it is missing). */
static long long mtime_ns(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec : -1;
}

/* A report given a trace reads TRACE.tracedb beside it: imported the first time (said), used again
 * while the trace is unchanged (nothing said, the file untouched), imported again when it changed; the
 * same numbers as the database `tracedb import` makes of it. */
Test(trace_inputs, a_report_given_a_trace_reads_its_database_beside_it)
{
    char *dir = temp_dir(), trace[1200], cache[1300], db[1200];
    snprintf(trace, sizeof trace, "%s/run.json", dir);
    write_rank_trace(trace, "first", -1);
    cr_assert_eq(run("gzip '%s'", trace), 0);
    snprintf(trace, sizeof trace, "%s/run.json.gz", dir);
    snprintf(cache, sizeof cache, "%s.tracedb", trace);
    int st;
    char *err = run_capture(&st, "'%s' summary '%s' --format json 2>&1 >/dev/null", tracedb(), trace);
    char want[3000];
    snprintf(want, sizeof want, "tracedb: importing %s into %s (kept beside it, used again while the trace is unchanged)\n",
             trace, cache);
    cr_assert(st == 0 && strcmp(err, want) == 0, "%s", err);
    free(err);
    snprintf(db, sizeof db, "%s/run.db", dir);
    cr_assert_eq(run("'%s' import -q '%s' -o '%s'", tracedb(), trace, db), 0);
    char *from_trace = run_capture(&st, "'%s' summary '%s' --format json", tracedb(), trace);
    char *from_db = run_capture(&st, "'%s' summary '%s' --format json", tracedb(), db);
    cr_assert_str_eq(from_trace, from_db);
    free(from_trace), free(from_db);
    long long first = mtime_ns(cache);
    err = run_capture(&st, "'%s' ops '%s' --format csv 2>&1 >/dev/null", tracedb(), trace);
    cr_assert(st == 0 && !*err, "used again, nothing said: %s", err);
    free(err);
    cr_assert_eq(mtime_ns(cache), first, "the unchanged trace was imported again");
    /* another trace under the name: imported again, its operator read */
    snprintf(db, sizeof db, "%s/run.json", dir);
    write_rank_trace(db, "second", -1);
    cr_assert_eq(run("gzip -f '%s'", db), 0);
    char *out = run_capture(&st, "'%s' ops '%s' --format csv 2>/dev/null", tracedb(), trace);
    cr_assert(st == 0 && strstr(out, "second") && !strstr(out, "first"), "%s", out);
    free(out);
    /* tracedb import --cache: the same database, its path printed */
    out = run_capture(&st, "'%s' import -q --cache '%s'", tracedb(), trace);
    snprintf(want, sizeof want, "%s\n", cache);
    cr_assert(st == 0 && strcmp(out, want) == 0, "%s", out);
    free(out);
    /* --write would write into a database: refused, the import to run said */
    err = run_capture(&st, "'%s' sql '%s' 'SELECT 1' --write 2>&1", tracedb(), trace);
    cr_assert(st != 0 && strstr(err, "is a trace, not a database") && strstr(err, "tracedb import"), "%s", err);
    free(err);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A directory of traces gives DIR.tracedb beside it; a trace added to it is read (imported again). diff
 * takes traces on both sides. */
Test(trace_inputs, a_report_given_a_directory_reads_its_traces)
{
    char *dir = temp_dir(), path[1200];
    run("mkdir '%s/log'", dir);
    snprintf(path, sizeof path, "%s/log/a.pt.trace.json", dir);
    write_rank_trace(path, "a", 0);
    int st;
    char *out = run_capture(&st, "'%s' ops '%s/log' --format csv 2>/dev/null", tracedb(), dir);
    cr_assert(st == 0 && strstr(out, "\r\na,1,"), "%s", out);
    free(out);
    snprintf(path, sizeof path, "%s/log/b.pt.trace.json", dir);
    write_rank_trace(path, "b", 1);
    snprintf(path, sizeof path, "%s/log.tracedb", dir);
    cr_assert_eq(file_int(path, "SELECT count(*) FROM trace"), 1);
    cr_assert_eq(run("'%s' summary '%s/log/' >/dev/null 2>&1", tracedb(), dir), 0);
    cr_assert_eq(file_int(path, "SELECT count(*) FROM trace"), 2, "the added trace imported");
    /* "." is the directory by its own name: log.tracedb beside it, used again (not log/..tracedb) */
    cr_assert_eq(run("cd '%s/log' && '%s' summary . >/dev/null 2>&1 && test ! -e ..tracedb", dir, tracedb()), 0);
    cr_assert_eq(file_int(path, "SELECT count(*) FROM trace"), 2);
    cr_assert_eq(run("'%s' diff '%s/log/a.pt.trace.json' '%s/log/b.pt.trace.json' >/dev/null 2>&1", tracedb(), dir, dir), 0);
    cr_assert_eq(run("test -f '%s/log/a.pt.trace.json.tracedb' && test -f '%s/log/b.pt.trace.json.tracedb'", dir, dir), 0);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A file of the database's name that is not a tracedb database is never replaced: the report says why
 * and the exact import to run instead; import --cache exits 3. */
Test(trace_inputs, a_file_in_the_way_is_left_alone_and_the_import_to_run_said)
{
    char *dir = temp_dir(), trace[1200], notes[1300];
    snprintf(trace, sizeof trace, "%s/run.json.gz", dir);
    snprintf(notes, sizeof notes, "%s/run.json", dir);
    write_rank_trace(notes, "op", -1);
    cr_assert_eq(run("gzip '%s'", notes), 0);
    snprintf(notes, sizeof notes, "%s.tracedb", trace);
    write_file(notes, "my notes\n", 9);
    int st;
    char *err = run_capture(&st, "'%s' summary '%s' 2>&1", tracedb(), trace);
    char want[3000];
    snprintf(want, sizeof want, "is not a tracedb database): import it yourself: tracedb import %s -o run.db, then tracedb summary run.db",
             trace);
    cr_assert(st == 1 && strstr(err, want), "%s", err);
    free(err);
    char *kept = read_file(notes, NULL);
    cr_assert_str_eq(kept, "my notes\n");
    free(kept);
    cr_assert_eq(run("'%s' import -q --cache '%s' >/dev/null 2>&1", tracedb(), trace), 3);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A trace written to while a report imports it (a profiler still writing, a copy still arriving) may have
 * been read half old, half new: its database is not kept, and the report says why and to run it again.
 * The trace: 500,000 complete events (seconds to import under the sanitizers); its time is changed once
 * the import's temporary database exists, that is once its size and time were taken. */
Test(trace_inputs, a_trace_written_to_during_the_reports_import_is_not_kept, .timeout = 300)
{
    char *dir = temp_dir();
    cr_assert_eq(run("cd '%s' && /usr/bin/python3 -c \"import sys\n"
                     "with open('run.json', 'w') as f:\n"
                     "    f.write('{\\\"traceEvents\\\":[' + ','.join('{\\\"ph\\\":\\\"X\\\",\\\"name\\\":\\\"op%%d\\\","
                     "\\\"pid\\\":1,\\\"tid\\\":1,\\\"ts\\\":%%d,\\\"dur\\\":1}' %% (i %% 50, 2 * i) for i in range(500000)) + ']}')\"",
                     dir),
                 0);
    int st;
    char *out = run_capture(&st,
                            "cd '%s' || exit 9; (for i in $(seq 6000); do ls run.json.tracedb.tmp-* >/dev/null 2>&1 && break; "
                            "sleep 0.01; done; touch -d '2001-01-01' run.json) & "
                            "'%s' summary run.json > /dev/null 2> err; echo rc=$?; wait; cat err; ls",
                            dir, tracedb());
    cr_expect(strstr(out, "rc=1\n"), "%s", out);
    cr_expect(strstr(out, "tracedb: run.json changed while it was read (its size or time): nothing kept; run the "
                          "command again once it is written\n"),
              "%s", out);
    cr_expect(strstr(out, "\nerr\nrun.json\n"), "no database kept, no temporary left: %s", out);
    free(out);
    /* run again, unchanged while read: kept */
    cr_expect_eq(run("cd '%s' && '%s' summary run.json > /dev/null 2>&1 && test -f run.json.tracedb", dir, tracedb()), 0);
    run("rm -rf '%s'", dir);
    free(dir);
}
