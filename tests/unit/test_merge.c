/* test_merge.c: `tracedb merge`: two ranks imported apart and merged keep every rank's rows, kernels,
 * parents within their rank and launch links, and `tracedb ranks` reads the job. */
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
