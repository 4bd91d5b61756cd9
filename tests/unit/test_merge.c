/* test_merge.c: `tracedb merge`: two ranks imported apart and merged keep every rank's rows, kernels,
 * parents within their rank and launch links, and `tracedb ranks` reads the job; databases made before
 * event.launch_ns are read, merged from and appended to; a database numbering its rows below 1 merges
 * whole. */
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(merge, two_ranks_in_one_database)
{
    char *dir = temp_dir(), a[1100], b[1100], job[1100];
    snprintf(a, sizeof a, "%s/r0.db", dir);
    snprintf(b, sizeof b, "%s/r1.db", dir);
    snprintf(job, sizeof job, "%s/job.db", dir);
    cr_assert_eq(run("'%s' import -q '%s' -o '%s' --rank 0", tracedb(),
                     src_path("tests/data/kineto/timeline_analysis_sampled_rank-0.json.gz"), a), 0);
    cr_assert_eq(run("'%s' import -q '%s' -o '%s'", tracedb(),
                     src_path("tests/data/kineto/trace_filter_sampled_rank-1.json.gz"), b), 0);
    cr_assert_eq(run("'%s' merge '%s' '%s' -o '%s'", tracedb(), a, b, job), 0);
    sqlite3 *ja = db_open(a), *jb = db_open(b), *jj = db_open(job);
    cr_assert_eq(db_int(jj, "SELECT count(*) FROM event"),
                 db_int(ja, "SELECT count(*) FROM event") + db_int(jb, "SELECT count(*) FROM event"));
    cr_assert_eq(db_int(jj, "SELECT count(DISTINCT rank) FROM trace"), 2);
    cr_assert_eq(db_int(jj, "SELECT sum(dur_ns) FROM kernels"),
                 db_int(ja, "SELECT sum(dur_ns) FROM kernels") + db_int(jb, "SELECT sum(dur_ns) FROM kernels"));
    cr_assert_eq(db_int(jj, "SELECT count(*) FROM events e JOIN events p ON p.id = e.parent_id WHERE p.trace_id <> e.trace_id"), 0,
                 "parents stay within their rank");
    cr_assert_eq(db_int(jj, "SELECT count(*) FROM kernels k JOIN events a ON a.id = k.launch_id WHERE a.correlation <> k.correlation"), 0);
    sqlite3_close(ja), sqlite3_close(jb), sqlite3_close(jj);
    int st;
    char *out = run_capture(&st, "'%s' ranks '%s' --format json", tracedb(), job);
    cr_assert_eq(st, 0);
    cJSON *rows = cJSON_Parse(out);
    cr_assert(rows && cJSON_GetArraySize(rows) > 0, "%s", out);
    cJSON_Delete(rows);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A database made before event.launch_ns (here: the column dropped from a new one) is read the old
 * way: every report that uses a launch's start prints what it prints on the database that has the
 * column. Merged from, it gives the merged rows their launches' starts; appended to, it gets the
 * column, filled for its old rows too. */
Test(merge, databases_made_before_launch_ns, .timeout = 120)
{
    char *dir = temp_dir(), now[1100], old[1100], job[1100], other[1100];
    snprintf(now, sizeof now, "%s/now.db", dir);
    snprintf(old, sizeof old, "%s/old.db", dir);
    snprintf(job, sizeof job, "%s/job.db", dir);
    snprintf(other, sizeof other, "%s/other.db", dir);
    const char *trace = src_path("tests/data/kineto/timeline_analysis_sampled_rank-0.json.gz");
    cr_assert_eq(run("'%s' import -q '%s' -o '%s' --rank 0", tracedb(), trace, now), 0);
    cr_assert_eq(run("cp '%s' '%s'", now, old), 0);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open_v2(old, &d, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "ALTER TABLE event DROP COLUMN launch_ns", NULL, NULL, NULL), SQLITE_OK, "%s",
                 sqlite3_errmsg(d));
    sqlite3_close(d);
    d = db_open(now);
    cr_assert_eq(launch_ns_wrong(d, "main"), 0);
    cr_assert_gt(db_int(d, "SELECT count(*) FROM event WHERE launch_ns IS NOT NULL"), 1000);
    sqlite3_close(d);
    const char *reports[] = {"kernels --by-step", "kernels --by-step --group-by launch --limit 3", "kernels --by-step --from 1ms",
                             "kernels --by-type --drop-last-step", "overlap --drop-last-step", "idle --drop-last-step",
                             "queue --drop-last-step", "launches --drop-last-step", "idle", "queue",
                             "critical-path --drop-last-step", "memops --drop-last-step"};
    for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++) {
        int s1, s2;
        char *a = run_capture(&s1, "'%s' %s '%s' --format csv", tracedb(), reports[i], now);
        char *b = run_capture(&s2, "'%s' %s '%s' --format csv", tracedb(), reports[i], old);
        cr_assert_eq(s1, 0, "%s", reports[i]);
        cr_assert_eq(s2, 0, "%s on the old database", reports[i]);
        cr_assert(strchr(a, '\n') && strchr(strchr(a, '\n') + 1, '\n'), "%s has rows: %s", reports[i], a);
        cr_assert_str_eq(a, b, "%s reads the same from a database without launch_ns", reports[i]);
        free(a), free(b);
    }
    /* merged from the old database and a new one */
    cr_assert_eq(run("'%s' import -q '%s' -o '%s'", tracedb(), src_path("tests/data/kineto/trace_filter_sampled_rank-1.json.gz"),
                     other), 0);
    cr_assert_eq(run("'%s' merge '%s' '%s' -o '%s'", tracedb(), old, other, job), 0);
    d = db_open(job);
    cr_assert_eq(launch_ns_wrong(d, "main"), 0);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE launch_ns IS NOT NULL"),
                 db_int(d, "SELECT count(*) FROM event WHERE launch_id IS NOT NULL"));
    sqlite3_close(d);
    /* appended to */
    cr_assert_eq(run("'%s' import -q --append '%s' -o '%s' --rank 1", tracedb(),
                     src_path("tests/data/kineto/trace_filter_sampled_rank-1.json.gz"), old), 0);
    d = db_open(old);
    cr_assert_eq(launch_ns_wrong(d, "main"), 0);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE launch_ns IS NOT NULL"),
                 db_int(d, "SELECT count(*) FROM event WHERE launch_id IS NOT NULL"));
    cr_assert_gt(db_int(d, "SELECT count(*) FROM event e JOIN trace t ON t.rank = 0 JOIN process p ON p.trace_id = t.id "
                           "JOIN thread th ON th.process_id = p.id AND th.id = e.thread_id WHERE e.launch_ns IS NOT NULL"), 1000,
                 "the old rows got their launches' starts");
    sqlite3_close(d);
    run("rm -rf '%s'", dir);
    free(dir);
}

static int64_t q_int(const char *db, const char *sql)
{
    sqlite3 *d = db_open(db);
    int64_t v = db_int(d, sql);
    sqlite3_close(d);
    return v;
}

/* trace imported into db, and a copy of db edited by sql (a stranger's, or an older build's, database). */
static void import_and_edit_copy(const char *trace, const char *db, const char *copy, const char *sql)
{
    cr_assert_eq(run("'%s' import -q '%s' -o '%s'", tracedb(), src_path(trace), db), 0);
    cr_assert_eq(run("cp '%s' '%s'", db, copy), 0);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open_v2(copy, &d, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(d));
    sqlite3_close(d);
}

/* The flow halves of a database, one line each in a fixed order: what, where and when, by value. */
static char *flow_lines(const char *db)
{
    sqlite3 *d = db_open(db);
    char *text = db_text(d, "SELECT group_concat(line, ' ') FROM (SELECT f.phase || coalesce(f.flow_id, '-') || '@' || p.pid || '/' || "
                            "t.tid || '@' || f.ts_ns || '/' || coalesce(c.value, '-') || '/' || f.bind_enclosing AS line "
                            "FROM flow f JOIN thread t ON t.id = f.thread_id JOIN process p ON p.id = t.process_id "
                            "LEFT JOIN string c ON c.id = f.cat_id ORDER BY line)");
    sqlite3_close(d);
    return text;
}

/* A database made before event.flow (here: made from a new one, every half put back in its table flow)
 * gives the same flow halves to an export, a merge and an append; the append turns it into the new
 * layout (its table becomes flow_loose, the view flow over both). The AMD trace holds 45 halves
 * (counted in the file: 8 fwdbwd, 37 ac2g, which ride in their events' rows), AlexNet's 500 (all ac2g). */
Test(merge, databases_made_before_event_flow, .timeout = 120)
{
    char *dir = temp_dir(), now[1100], old[1100], job[1100], a[1100], json[1100];
    snprintf(now, sizeof now, "%s/now.db", dir);
    snprintf(old, sizeof old, "%s/old.db", dir);
    snprintf(job, sizeof job, "%s/job.db", dir);
    snprintf(a, sizeof a, "%s/a.db", dir);
    snprintf(json, sizeof json, "%s/e.json", dir);
    import_and_edit_copy("tests/data/kineto/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz", now, old,
                         "DROP VIEW flow; ALTER TABLE flow_loose RENAME TO flow; "
                         "INSERT INTO flow (flow_id, cat_id, phase, thread_id, ts_ns, bind_enclosing) SELECT correlation, "
                         "flow >> 3, substr('stf', flow & 3, 1), thread_id, start_ns, (flow >> 2) & 1 FROM event "
                         "WHERE flow IS NOT NULL ORDER BY id; ALTER TABLE event DROP COLUMN flow");
    cr_assert_eq(q_int(now, "SELECT count(*) FROM flow"), 45);
    cr_assert_eq(q_int(now, "SELECT count(*) FROM flow_loose"), 8);
    cr_assert_eq(q_int(old, "SELECT count(*) FROM flow"), 45);
    char *want = flow_lines(now);
    char *got = flow_lines(old);
    cr_assert_str_eq(got, want, "the old layout holds the same halves");
    free(got);
    /* exported from either, imported again: the same halves */
    const char *from[] = {now, old};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(run("rm -f '%s' '%s' && '%s' export chrome '%s' -o '%s'", json, a, tracedb(), from[i], json), 0);
        cr_assert_eq(import_to(json, a), 0);
        got = flow_lines(a);
        cr_assert_str_eq(got, want, "exported from %s", from[i]);
        free(got);
        /* the new layout's export puts each riding half after its event, where the import finds it again;
         * the old one's puts every half at the end, as exports always did */
        cr_assert_eq(q_int(a, "SELECT count(*) FROM flow_loose"), i == 0 ? 8 : 45, "exported from %s", from[i]);
    }
    /* merged: both databases' halves, each twice */
    cr_assert_eq(run("'%s' merge '%s' '%s' -o '%s'", tracedb(), old, now, job), 0);
    cr_assert_eq(q_int(job, "SELECT count(*) FROM flow"), 90);
    cr_assert_eq(q_int(job, "SELECT count(*) FROM flow_loose"), 45 + 8);
    cr_assert_eq(q_int(job, "SELECT count(*) FROM (SELECT count(*) AS n FROM flow f JOIN thread t ON t.id = f.thread_id "
                            "JOIN process p ON p.id = t.process_id GROUP BY p.pid, t.tid, f.ts_ns, f.phase, f.flow_id, f.cat_id, "
                            "f.bind_enclosing HAVING n = 2)"), 45);
    /* appended to: it takes the new layout, its old halves loose, the new trace's riding in their rows */
    cr_assert_eq(run("'%s' import -q --append '%s' -o '%s'", tracedb(),
                     src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), old), 0);
    cr_assert_eq(q_int(old, "SELECT count(*) FROM sqlite_schema WHERE name = 'flow' AND type = 'view'"), 1);
    cr_assert_eq(q_int(old, "SELECT count(*) FROM flow_loose"), 45);
    cr_assert_eq(q_int(old, "SELECT count(*) FROM event WHERE flow IS NOT NULL"), 500);
    cr_assert_eq(q_int(old, "SELECT count(*) FROM flow"), 545);
    cr_assert_eq(q_int(old, "SELECT count(*) FROM flow f JOIN event e ON e.id = f.event_id JOIN thread t ON t.id = e.thread_id "
                            "JOIN process p ON p.id = t.process_id JOIN trace r ON r.id = p.trace_id WHERE r.id = 2"), 500);
    free(want);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A stranger's database may number its rows from anywhere: here every event and thread id of a copy is
 * negated (its links with them). Merged after the trace as imported, its rows must come whole, past
 * the first's ids (before, they were moved by the first's largest id alone, onto the first's own:
 * "UNIQUE constraint failed"), with each parent, launch, thread and side-table row still its own.
 * Counted by hand from the unedited trace: each link twice. */
Test(merge, a_database_numbering_its_rows_below_one)
{
    char *dir = temp_dir(), a[1100], b[1100], job[1100];
    snprintf(a, sizeof a, "%s/a.db", dir);
    snprintf(b, sizeof b, "%s/b.db", dir);
    snprintf(job, sizeof job, "%s/job.db", dir);
    import_and_edit_copy("tests/data/kineto/critical_path_alexnet_trace.json.gz", a, b,
                         "UPDATE event SET id = -id, parent_id = -parent_id, launch_id = -launch_id, thread_id = -thread_id;"
                         "UPDATE kernel_launch SET event_id = -event_id; UPDATE memory_event SET event_id = -event_id;"
                         "UPDATE thread SET id = -id");
    sqlite3 *one = db_open(a);
    int64_t events = db_int(one, "SELECT count(*) FROM event");
    int64_t parents = db_int(one, "SELECT count(*) FROM events e JOIN events p ON p.id = e.parent_id AND p.thread_id = e.thread_id");
    int64_t launches = db_int(one, "SELECT count(*) FROM kernels k JOIN events l ON l.id = k.launch_id AND l.correlation = k.correlation");
    int64_t grids = db_int(one, "SELECT count(*) FROM kernel_launch l JOIN event e ON e.id = l.event_id");
    int64_t threads = db_int(one, "SELECT count(DISTINCT thread_id) FROM event");
    sqlite3_close(one);
    cr_assert(events > 800 && parents > 500 && launches > 50 && grids > 50, "the trace has what this checks");
    cr_assert_eq(run("'%s' merge '%s' '%s' -o '%s'", tracedb(), a, b, job), 0);
    sqlite3 *j = db_open(job);
    cr_expect_eq(db_int(j, "SELECT count(*) FROM event"), 2 * events);
    cr_expect_eq(db_int(j, "SELECT min(id) FROM event"), 1);
    cr_expect_eq(db_int(j, "SELECT max(id) FROM event"), 2 * events);
    cr_expect_eq(db_int(j, "SELECT count(*) FROM events e JOIN events p ON p.id = e.parent_id AND p.thread_id = e.thread_id"), 2 * parents);
    cr_expect_eq(db_int(j, "SELECT count(*) FROM kernels k JOIN events l ON l.id = k.launch_id AND l.correlation = k.correlation"), 2 * launches);
    cr_expect_eq(db_int(j, "SELECT count(*) FROM kernel_launch l JOIN event e ON e.id = l.event_id"), 2 * grids);
    cr_expect_eq(db_int(j, "SELECT count(DISTINCT thread_id) FROM event WHERE thread_id IN (SELECT id FROM thread)"), 2 * threads);
    sqlite3_close(j);
    /* ids that moved past the first's would pass 2^63 - 1: refused by name, nothing written (SQLite
     * had made the sum a float: "datatype mismatch") */
    sqlite3 *d;
    cr_assert_eq(sqlite3_open_v2(b, &d, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE event SET id = 9223372036854775807 WHERE id = -1", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(d);
    int st;
    char *out = run_capture(&st, "'%s' merge '%s' '%s' -o '%s/job2.db' 2>&1", tracedb(), a, b, dir);
    cr_expect_eq(st, 1, "%s", out);
    cr_expect(strstr(out, "events' ids (from -") && strstr(out, "to 9223372036854775807), moved past") &&
                  strstr(out, "nothing written"), "%s", out);
    cr_expect_eq(run("test -e '%s/job2.db'", dir), 1, "no database is left");
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Python's sqlite3 (Debian's /usr/bin/python3) leaves db as a killed writer would: a hot journal
 * (journal) or a write-ahead log with a committed row not yet checkpointed (wal). */
static void leave_interrupted(const char *db, const char *how)
{
    int rc = run("/usr/bin/python3 -c \"import sqlite3, os, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
                 "wal = sys.argv[2] == 'wal'; c.execute('PRAGMA journal_mode=WAL' if wal else 'PRAGMA cache_size=1'); "
                 "c.execute('BEGIN'); c.execute('DELETE FROM event'); "
                 "c.executemany('INSERT INTO meta VALUES (?, ?)', [(str(i), 'x' * 1000) for i in range(2000)]); "
                 "c.execute('COMMIT') if wal else None; os._exit(0)\" '%s' %s",
                 db, how);
    cr_assert_eq(rc, 0, "python3 made the %s", how);
}

/* The input's files (name, and its -journal or -wal) byte for byte: malloc'd "size:sum ..." text. */
static char *input_files(const char *db)
{
    int st;
    return run_capture(&st, "cd \"$(dirname '%s')\" && for f in \"$(basename '%s')\" \"$(basename '%s')\"-journal "
                            "\"$(basename '%s')\"-wal; do [ -f \"$f\" ] && cksum < \"$f\"; done; true",
                       db, db, db, db);
}

Test(merge, inputs_are_read_only_a_hot_journal_is_refused_with_its_reason_a_wal_is_read_in_place)
{
    char *dir = temp_dir(), hot[600], wal[600];
    snprintf(hot, sizeof hot, "%s/hot.db", dir);
    snprintf(wal, sizeof wal, "%s/wal.db", dir);
    const char *trace = src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz");
    cr_assert_eq(import_to(trace, hot), 0);
    cr_assert_eq(import_to(trace, wal), 0);
    leave_interrupted(hot, "journal");
    leave_interrupted(wal, "wal");
    char *hot_before = input_files(hot), *wal_before = input_files(wal);
    cr_assert(strchr(strchr(hot_before, '\n') + 1, '\n'), "hot.db has its journal: %s", hot_before);
    int st;
    char *text = run_capture(&st, "cd '%s' && '%s' merge hot.db -o m1.db 2>&1", dir, tracedb());
    cr_expect_eq(st, 1, "%s", text);
    cr_expect(strstr(text, "hot.db has a hot journal") && strstr(text, "to recover it"), "the reason: %s", text);
    cr_expect(!strstr(text, "not an SQLite database"), "%s", text);
    free(text);
    /* the WAL's committed rows are the input's: read, and neither checkpointed into it nor deleted */
    text = run_capture(&st, "cd '%s' && '%s' merge wal.db -o m2.db 2>&1 && '%s' sql m2.db "
                            "'SELECT count(*) FROM event' --format csv", dir, tracedb(), tracedb());
    cr_expect_eq(st, 0, "%s", text);
    cr_expect_str_eq(text, "count(*)\r\n0\r\n", "the WAL's DELETE is seen");
    free(text);
    char *hot_after = input_files(hot), *wal_after = input_files(wal);
    cr_expect_str_eq(hot_after, hot_before, "hot.db and its journal are as they were");
    cr_expect_str_eq(wal_after, wal_before, "wal.db and its -wal are as they were");
    free(hot_before), free(hot_after), free(wal_before), free(wal_after);
    /* a mistyped input is named, and not created */
    text = run_capture(&st, "cd '%s' && '%s' merge wal.db nosuch.db -o m3.db 2>&1; ls", dir, tracedb());
    cr_expect(strstr(text, "cannot open nosuch.db: no such database"), "%s", text);
    cr_expect(!strstr(text, "\nnosuch.db\n") && !strstr(text, "\nm3.db"), "neither nosuch.db nor m3.db made: %s", text);
    free(text);
    run("rm -rf '%s'", dir);
    free(dir);
}
