/* test_device_report.c: `tracedb device` against hand-worked traces: run, IO-wait and idle per step and
 * device, its steps cut by the report's window, each rank's steps under --range, a device numbered past
 * INT32_MAX; the summary's and memops' figures of the same trace. */
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two streams on device 0 and two steps on the CPU, worked by hand (times in us):
 *   gemm [0,10) s7, relu [5,20) s8 (computation); Memcpy [18,30) s7 (memory); nccl [40,50) s8 (communication)
 *   whole trace: span [0,50) 50, busy [0,30)+[40,50) 40, run [0,20) 20, io-wait 20, idle 10
 *   step 1 [0,25): busy 25, run 20, io-wait 5, idle 0;  step 2 [25,60): busy 5+10, run 0, io 15, idle 20 */
static const char device_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":25},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":25,\"dur\":35},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":10,\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu\",\"pid\":0,\"tid\":8,\"ts\":5,\"dur\":15,\"args\":{\"device\":0,\"stream\":8}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pinned -> Device)\",\"pid\":0,\"tid\":7,\"ts\":18,\"dur\":12,"
    "\"args\":{\"device\":0,\"stream\":7,\"bytes\":1048576}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\",\"pid\":0,\"tid\":8,\"ts\":40,"
    "\"dur\":10,\"args\":{\"device\":0,\"stream\":8}}]}";

static void check_device_row(cJSON *r, double span, double busy, double run, double io, double idle)
{
    cr_assert_eq(json_num(r, "span_ns"), span * 1000);
    cr_assert_eq(json_num(r, "busy_ns"), busy * 1000);
    cr_assert_eq(json_num(r, "run_ns"), run * 1000);
    cr_assert_eq(json_num(r, "io_wait_ns"), io * 1000);
    cr_assert_eq(json_num(r, "idle_ns"), idle * 1000);
}

Test(reports, device_run_io_wait_idle_by_hand)
{
    char *dir = temp_dir(), *trace = write_text_file(dir, "d.json", device_trace), db[1100], args[1200];
    snprintf(db, sizeof db, "%s/d.db", dir);
    cr_assert_eq(import_to(trace, db), 0);
    snprintf(args, sizeof args, "device '%s'", db);
    cJSON *rows = tracedb_json(args);
    cr_assert_eq(cJSON_GetArraySize(rows), 3);
    check_device_row(cJSON_GetArrayItem(rows, 0), 50, 40, 20, 20, 10);
    check_device_row(json_row_named(rows, "step", "ProfilerStep#1"), 25, 25, 20, 5, 0);
    check_device_row(json_row_named(rows, "step", "ProfilerStep#2"), 35, 15, 0, 15, 20);
    cJSON_Delete(rows);
    /* with a window the whole-window row is the same pass's (device_sweep.c), as without */
    snprintf(args, sizeof args, "device '%s' --from 0", db);
    rows = tracedb_json(args);
    check_device_row(cJSON_GetArrayItem(rows, 0), 50, 40, 20, 20, 10);
    check_device_row(json_row_named(rows, "step", "ProfilerStep#1"), 25, 25, 20, 5, 0);
    cJSON_Delete(rows);
    /* a window that ends inside a step ends the step there: --to 35us keeps the work starting before 35
     * (gemm, relu, the memcpy; not the nccl kernel at 40); the whole window's row spans that work [0,30):
     * busy 30, run [0,20) 20, io-wait 10, idle 0; step 2 is [25,35): span 10, busy the memcpy's [25,30) 5,
     * run 0, io-wait 5, idle 5 (not its whole 35 with the 5 of work the window kept: 30 idle) */
    snprintf(args, sizeof args, "device '%s' --to 35us", db);
    rows = tracedb_json(args);
    cr_assert_eq(cJSON_GetArraySize(rows), 3);
    check_device_row(cJSON_GetArrayItem(rows, 0), 30, 30, 20, 10, 0);
    check_device_row(json_row_named(rows, "step", "ProfilerStep#1"), 25, 25, 20, 5, 0);
    check_device_row(json_row_named(rows, "step", "ProfilerStep#2"), 10, 5, 0, 5, 5);
    cJSON_Delete(rows);
    /* a device a foreign database names in text is a group of its own all the same */
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE event SET device = 'gpu' || device WHERE device IS NOT NULL", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(d);
    snprintf(args, sizeof args, "device '%s' --from 0", db);
    rows = tracedb_json(args);
    cr_assert_eq(cJSON_GetArraySize(rows), 3);
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "device")->valuestring, "gpu0");
    check_device_row(cJSON_GetArrayItem(rows, 0), 50, 40, 20, 20, 10);
    check_device_row(json_row_named(rows, "step", "ProfilerStep#2"), 35, 15, 0, 15, 20);
    cJSON_Delete(rows);
    /* the summary's whole-trace row comes from the import (device_time.c): the same numbers */
    snprintf(args, sizeof args, "summary '%s'", db);
    cJSON *sum = tracedb_json(args);
    check_device_row(cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "device"), 0), 50, 40, 20, 20, 10);
    cJSON_Delete(sum);
    snprintf(args, sizeof args, "memops '%s'", db);
    rows = tracedb_json(args);
    cr_assert_eq(json_num(cJSON_GetArrayItem(rows, 0), "total_bytes"), 1048576);
    cr_assert_float_eq(json_num(cJSON_GetArrayItem(rows, 0), "bandwidth_gbps"), 87.381, 0.0005); /* 1048576 B / 12000 ns */
    cJSON_Delete(rows);
    free(trace);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A step cut by a window of several instances: ProfilerStep#1 [0,100) us; range W on two other tracks
 * [0,30) and [20,60); kernel k [40,45). --range W keeps the step (it starts in the first W) and k (it
 * starts in the second): the step runs to the last W it meets, [0,60): span 60, busy 5, idle 55 (not cut
 * at the first W's end, 30, which left k out: busy 0). */
Test(reports, device_cuts_a_step_at_the_last_window_it_meets)
{
    static const char trace[] =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"W\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"W\",\"pid\":1,\"tid\":3,\"ts\":20,\"dur\":40},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":40,\"dur\":5,\"args\":{\"device\":0,\"stream\":7}}]}";
    char *dir = temp_dir(), db[600], args[1200];
    import_text(dir, trace, db, sizeof db);
    snprintf(args, sizeof args, "device '%s' --range W", db);
    cJSON *rows = tracedb_json(args);
    cr_assert_eq(cJSON_GetArraySize(rows), 2);
    check_device_row(json_row_named(rows, "step", "ProfilerStep#1"), 60, 5, 5, 0, 55);
    cJSON_Delete(rows);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Two ranks whose steps overlap in time: --range keeps each rank's events inside its own ranges. Rank 0's
 * ProfilerStep#7 is [0,50) us, its #8 [55,120) with kernel k0late at [60,70); rank 1's #7 is [0,100), so
 * rank 0's #8 and k0late start inside rank 1's #7. By hand, --range 'ProfilerStep#7': rank 0 has k0
 * [10,20) alone (device 0: span 10, busy 10; its #7: span 50, busy 10, idle 40), rank 1 k1 [80,90)
 * (device 1: its #7 span 100, busy 10); no row for rank 0's #8 or k0late. */
Test(reports, a_range_keeps_each_ranks_events_inside_its_own_instances)
{
    static const char r0[] =
        "{\"distributedInfo\":{\"rank\":0},\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":50},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#8\",\"pid\":1,\"tid\":1,\"ts\":55,\"dur\":65},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k0\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":10,\"args\":{\"device\":0,\"stream\":7}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k0late\",\"pid\":0,\"tid\":7,\"ts\":60,\"dur\":10,\"args\":{\"device\":0,\"stream\":7}}]}";
    static const char r1[] =
        "{\"distributedInfo\":{\"rank\":1},\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":80,\"dur\":10,\"args\":{\"device\":1,\"stream\":7}}]}";
    char *dir = temp_dir(), *t0 = write_text_file(dir, "r0.json", r0), *t1 = write_text_file(dir, "r1.json", r1), db[1100], args[1200];
    snprintf(db, sizeof db, "%s/r.db", dir);
    cr_assert_eq(run("'%s' import -q '%s' '%s' -o '%s'", tracedb(), t0, t1, db), 0);
    snprintf(args, sizeof args, "kernels '%s' --range 'ProfilerStep#7' --by-rank", db);
    cJSON *rows = tracedb_json(args);
    cr_assert_eq(cJSON_GetArraySize(rows), 2, "k0 and k1; not k0late, which starts in rank 1's step only");
    cr_assert(json_row_named(rows, "name", "k0") && json_row_named(rows, "name", "k1") && !json_row_named(rows, "name", "k0late"));
    cr_assert_eq(json_num(json_row_named(rows, "name", "k0"), "rank"), 0);
    cr_assert_eq(json_num(json_row_named(rows, "name", "k1"), "rank"), 1);
    cJSON_Delete(rows);
    snprintf(args, sizeof args, "device '%s' --range 'ProfilerStep#7'", db);
    rows = tracedb_json(args);
    cr_assert_eq(cJSON_GetArraySize(rows), 4, "each device's whole window and its rank's #7; no row for rank 0's #8");
    cr_assert(!json_row_named(rows, "step", "ProfilerStep#8"));
    cJSON *r;
    int steps = 0;
    cJSON_ArrayForEach(r, rows)
    {
        int step = cJSON_IsString(cJSON_GetObjectItem(r, "step")), dev = (int)json_num(r, "device");
        steps += step;
        if (dev == 0)
            check_device_row(r, step ? 50 : 10, 10, 10, 0, step ? 40 : 0);
        else
            check_device_row(r, step ? 100 : 10, 10, 10, 0, step ? 90 : 0);
    }
    cr_assert_eq(steps, 2);
    cJSON_Delete(rows);
    /* the same where a trace's tracks are not a run of ids (a stranger's numbering: rank 0's GPU track
     * moved past rank 1's), which the window then looks up track by track */
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE thread SET id = 1000 WHERE id = (SELECT thread_id FROM event e JOIN string s "
                                 "ON s.id = e.name_id WHERE s.value = 'k0'); "
                                 "UPDATE event SET thread_id = 1000 WHERE name_id IN (SELECT id FROM string WHERE value "
                                 "IN ('k0', 'k0late'))",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(d));
    sqlite3_close(d);
    snprintf(args, sizeof args, "kernels '%s' --range 'ProfilerStep#7' --by-rank", db);
    rows = tracedb_json(args);
    cr_assert_eq(cJSON_GetArraySize(rows), 2, "k0 and k1, not k0late");
    cr_assert(json_row_named(rows, "name", "k0") && json_row_named(rows, "name", "k1"));
    cr_assert_eq(json_num(json_row_named(rows, "name", "k0"), "rank"), 0);
    cJSON_Delete(rows);
    free(t0), free(t1);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The same work on a device numbered past INT32_MAX / 4 (600000000): the whole-trace row is there, with
 * the hand-worked sums above, as the step rows are (one pass measures every window). */
Test(reports, device_whole_trace_row_of_a_large_device_index)
{
    char *dir = temp_dir(), db[1100], args[1200], text[sizeof device_trace + 100] = "";
    for (const char *p = device_trace, *at; *p; p = at + 11) { /* "device":0 -> "device":600000000 */
        if (!(at = strstr(p, "\"device\":0,"))) {
            strcat(text, p);
            break;
        }
        strncat(text, p, (size_t)(at - p));
        strcat(text, "\"device\":600000000,");
    }
    char *trace = write_text_file(dir, "d.json", text);
    snprintf(db, sizeof db, "%s/d.db", dir);
    cr_assert_eq(import_to(trace, db), 0);
    snprintf(args, sizeof args, "device '%s'", db);
    cJSON *rows = tracedb_json(args);
    cr_assert_eq(cJSON_GetArraySize(rows), 3, "the whole trace and two steps");
    cJSON *whole = cJSON_GetArrayItem(rows, 0);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(whole, "step")) && json_num(whole, "device") == 600000000);
    check_device_row(whole, 50, 40, 20, 20, 10);
    check_device_row(json_row_named(rows, "step", "ProfilerStep#2"), 35, 15, 0, 15, 20);
    cJSON_Delete(rows);
    free(trace);
    run("rm -rf '%s'", dir);
    free(dir);
}
