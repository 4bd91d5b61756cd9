/* test_record_options.c: tracedb record's --kinds, --level, --schedule and --step, and the TRACEDB_KINDS,
 * TRACEDB_LEVEL, TRACEDB_SCHEDULE and TRACEDB_STEP variables a recorded program reads, on what the recording
 * holds. What the programs record, read from them:
 *   tests/record_sample.c `steps`: 6 steps (tdb_step: ranges ProfilerStep#1..6), each holding forward {
 *   aten::linear { alloc, counter loss, free } } and a mark: 2 ranges, 1 mark, 2 memory events and 1 counter
 *   a step, with no tdb_open (TRACEDB_OUTPUT names the database);
 *   samples/nvtx_sample.c, through the injection library: 8 ranges, 2 operators (emit_nvtx names) and 1 mark;
 *   tests/nvtx_steps.c N NAME: N steps that are NVTX ranges (NAME with k for %d), each with a mark "load" before
 *   it and a range "work" holding a mark "m" inside it, then a mark "tail": 4 events a step, 1 after them.
 * Built only with the CUDA toolkit (the NVTX headers and the injection library), as test_record.c is. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Commands start with none of the variables from the test's own environment. */
#define CLEAN_ENV "env -u TRACEDB_KINDS -u TRACEDB_LEVEL -u TRACEDB_SCHEDULE -u TRACEDB_STEP -u TRACEDB_OUTPUT "

/* What a recording of record_sample steps holds, in one line. */
static char *steps_held(const char *db)
{
    sqlite3 *d = db_open(db);
    char *s = db_text(d, "SELECT 'steps ' || coalesce((SELECT group_concat(step, ',') FROM (SELECT step FROM steps ORDER BY step)), '-')"
                         " || '; forward ' || (SELECT count(*) FROM ranges WHERE name = 'forward')"
                         " || '; aten::linear ' || (SELECT count(*) FROM ranges WHERE name = 'aten::linear')"
                         " || '; marks ' || (SELECT count(*) FROM events WHERE kind = 'instant' AND name = 'mark')"
                         " || '; counters ' || (SELECT count(*) FROM counter)"
                         " || '; memory ' || (SELECT count(*) FROM memory_events)"
                         " || '; events ' || (SELECT count(*) FROM events)");
    sqlite3_close(d);
    return s;
}

/* What a recording of nvtx_sample holds, in one line. */
static char *nvtx_held(const char *db)
{
    sqlite3 *d = db_open(db);
    char *s = db_text(d, "SELECT 'ranges ' || (SELECT count(*) FROM events WHERE kind = 'range')"
                         " || '; ops ' || (SELECT count(*) FROM events WHERE kind = 'op')"
                         " || '; marks ' || (SELECT count(*) FROM events WHERE kind = 'instant')"
                         " || '; events ' || (SELECT count(*) FROM events)");
    sqlite3_close(d);
    return s;
}

static const char *inject_lib(void)
{
    const char *lib = getenv("TRACEDB_INJECT");
    return lib && *lib ? lib : src_path("build/libtracedb_inject.so");
}

/* Runs `ENV tracedb record -o DIR/NAME.db FLAGS -- PROGRAM` (program: record_sample steps or nvtx_sample) and
 * returns what the recording holds. */
static char *recorded(const char *dir, const char *name, const char *env, const char *flags, int nvtx)
{
    char db[1200];
    snprintf(db, sizeof db, "%s/%s.db", dir, name);
    int st = run(CLEAN_ENV "%s '%s' record -o '%s' %s -- '%s'%s 2>/dev/null", env, tracedb(), db, flags,
                 src_path(nvtx ? "build/nvtx_sample" : "build/test/record_sample"), nvtx ? "" : " steps");
    cr_assert_eq(st, 0, "record %s %s: the program's status", env, flags);
    return nvtx ? nvtx_held(db) : steps_held(db);
}

/* Runs PROGRAM with ENV and TRACEDB_OUTPUT=DIR/NAME.db (nvtx_sample through the injection library), no
 * tracedb record, and returns what the recording holds. */
static char *recorded_by_env(const char *dir, const char *name, const char *env, int nvtx)
{
    char db[1200];
    snprintf(db, sizeof db, "%s/%s.db", dir, name);
    int st;
    if (nvtx)
        st = run(CLEAN_ENV "%s TRACEDB_OUTPUT='%s' NVTX_INJECTION64_PATH='%s' '%s' 2>/dev/null", env, db, inject_lib(),
                 src_path("build/nvtx_sample"));
    else
        st = run(CLEAN_ENV "%s TRACEDB_OUTPUT='%s' '%s' steps 2>/dev/null", env, db, src_path("build/test/record_sample"));
    cr_assert_eq(st, 0, "%s: the program ran", env);
    return nvtx ? nvtx_held(db) : steps_held(db);
}

static const char all_steps[] = "steps 1,2,3,4,5,6; forward 6; aten::linear 6; marks 6; counters 6; memory 12; events 36";
static const char all_nvtx[] = "ranges 8; ops 2; marks 1; events 11";

/* --kinds LIST keeps exactly those host kinds. record_sample steps (36 events: 6 steps, 6 forward, 6
 * aten::linear, 6 marks, 12 memory; 6 counters apart):
 *   no --kinds: everything;  --kinds instant,counter: 6 marks and 6 counters (the steps are ranges: none);
 *   --kinds memory: the 12 memory events alone;  --kinds range: the steps and both ranges of each, 18
 * nvtx_sample (11 events): --kinds range: 8 ranges and 2 operators;  --kinds instant: the mark alone. */
Test(options, record_kinds_keeps_exactly_those_kinds, .timeout = 120)
{
    char *dir = temp_dir();
    static const struct {
        const char *flags, *held;
        int nvtx;
    } want[] = {
        {"", all_steps, 0},
        {"--kinds instant,counter", "steps -; forward 0; aten::linear 0; marks 6; counters 6; memory 0; events 6", 0},
        {"--kinds memory", "steps -; forward 0; aten::linear 0; marks 0; counters 0; memory 12; events 12", 0},
        {"--kinds range", "steps 1,2,3,4,5,6; forward 6; aten::linear 6; marks 0; counters 0; memory 0; events 18", 0},
        {"", all_nvtx, 1},
        {"--kinds range", "ranges 8; ops 2; marks 0; events 10", 1},
        {"--kinds instant", "ranges 0; ops 0; marks 1; events 1", 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "kinds%zu", i);
        char *held = recorded(dir, name, "", want[i].flags, want[i].nvtx);
        cr_expect_str_eq(held, want[i].held, "record %s -- %s", want[i].flags, want[i].nvtx ? "nvtx_sample" : "record_sample steps");
        free(held);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* --level 1 is device work only: with no GPU work in either program, a recording of nothing (a database of
 * 0 events); --level 2, the default, everything. */
Test(options, record_level_1_keeps_no_host_events, .timeout = 120)
{
    char *dir = temp_dir();
    static const struct {
        const char *flags, *held;
        int nvtx;
    } want[] = {
        {"--level 1", "steps -; forward 0; aten::linear 0; marks 0; counters 0; memory 0; events 0", 0},
        {"--level 2", all_steps, 0},
        {"--level 1", "ranges 0; ops 0; marks 0; events 0", 1},
        {"--level 2", all_nvtx, 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "level%zu", i);
        char *held = recorded(dir, name, "", want[i].flags, want[i].nvtx);
        cr_expect_str_eq(held, want[i].held, "record %s -- %s", want[i].flags, want[i].nvtx ? "nvtx_sample" : "record_sample steps");
        free(held);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* --schedule skip_first,wait,warmup,active,repeat (PyTorch's), over record_sample's 6 steps; a step k is
 * kept when k - 1 - skip_first = pos >= 0, pos % (wait + warmup + active) >= wait + warmup, and (repeat > 0)
 * pos < repeat cycles; what happens in a step goes with it (2 ranges, 1 mark, 1 counter, 2 memory events).
 *   0,1,0,1,2: cycles of 2 steps, the second active, twice: pos 1 and 3, steps 2 and 4
 *   3,0,0,2,0: skip 3, then every step (cycles of 2 active, forever): steps 4, 5 and 6
 *   1,1,1,2,1: skip 1, wait 1, warm up 1, then 2 active, once: steps 4 and 5 */
Test(options, record_schedule_keeps_the_active_steps, .timeout = 120)
{
    char *dir = temp_dir();
    static const struct {
        const char *flags, *held;
    } want[] = {
        {"", all_steps},
        {"--schedule 0,1,0,1,2", "steps 2,4; forward 2; aten::linear 2; marks 2; counters 2; memory 4; events 12"},
        {"--schedule 3,0,0,2,0", "steps 4,5,6; forward 3; aten::linear 3; marks 3; counters 3; memory 6; events 18"},
        {"--schedule 1,1,1,2,1", "steps 4,5; forward 2; aten::linear 2; marks 2; counters 2; memory 4; events 12"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "schedule%zu", i);
        char *held = recorded(dir, name, "", want[i].flags, 0);
        cr_expect_str_eq(held, want[i].held, "record %s", want[i].flags);
        free(held);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The variables themselves, with no tracedb record: a program linked with libtracedb (record_sample) and an
 * NVTX program through the injection library read them when TRACEDB_OUTPUT opens their recording. Expected
 * as for the options above:
 *   TRACEDB_KINDS=instant,counter: 6 marks, 6 counters;  TRACEDB_KINDS=range (nvtx): 8 ranges, 2 operators
 *   TRACEDB_LEVEL=1: nothing (both programs);  TRACEDB_LEVEL=2: everything
 *   TRACEDB_SCHEDULE=2,0,1,1,0: skip 2, cycles of warmup 1 and active 1, forever: pos = k - 3 odd: steps 4, 6
 *   TRACEDB_SCHEDULE=2,0,1,1,0 with TRACEDB_KINDS=memory: the 2 memory events of steps 4 and 6 each
 * and tracedb record's option wins over a variable the program would inherit. */
Test(options, environment_variables_choose_kinds_level_schedule, .timeout = 120)
{
    char *dir = temp_dir();
    static const struct {
        const char *env, *held;
        int nvtx;
    } want[] = {
        {"", all_steps, 0},
        {"TRACEDB_KINDS=instant,counter", "steps -; forward 0; aten::linear 0; marks 6; counters 6; memory 0; events 6", 0},
        {"TRACEDB_LEVEL=1", "steps -; forward 0; aten::linear 0; marks 0; counters 0; memory 0; events 0", 0},
        {"TRACEDB_LEVEL=2", all_steps, 0},
        {"TRACEDB_SCHEDULE=2,0,1,1,0", "steps 4,6; forward 2; aten::linear 2; marks 2; counters 2; memory 4; events 12", 0},
        {"TRACEDB_SCHEDULE=2,0,1,1,0 TRACEDB_KINDS=memory",
         "steps -; forward 0; aten::linear 0; marks 0; counters 0; memory 4; events 4", 0},
        {"", all_nvtx, 1},
        {"TRACEDB_KINDS=range", "ranges 8; ops 2; marks 0; events 10", 1},
        {"TRACEDB_LEVEL=1", "ranges 0; ops 0; marks 0; events 0", 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "env%zu", i);
        char *held = recorded_by_env(dir, name, want[i].env, want[i].nvtx);
        cr_expect_str_eq(held, want[i].held, "%s %s", want[i].env, want[i].nvtx ? "nvtx_sample" : "record_sample steps");
        free(held);
    }
    char *held = recorded(dir, "wins", "TRACEDB_KINDS=memory TRACEDB_LEVEL=1", "--kinds instant,counter --level 2", 0);
    cr_expect_str_eq(held, "steps -; forward 0; aten::linear 0; marks 6; counters 6; memory 0; events 6");
    free(held);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A kind or a schedule recording cannot take is refused before the program runs: exit 2, the reason said,
 * the program not run (it would touch a file), no database: --kinds rnage (no such kind), --schedule with
 * four numbers, a negative one, or a number followed by letters. Given as variables to a program run without
 * tracedb record, the program runs, says why, and records nothing: no database, no staging file, through the
 * injection library as through libtracedb; through tracedb record (a variable the program inherits), it says
 * that no database was written. */
Test(options, record_refuses_kinds_and_schedules_it_cannot_take, .timeout = 120)
{
    char *dir = temp_dir();
    static const struct {
        const char *flags, *says;
    } bad[] = {
        {"--kinds rnage", "unknown kind in 'rnage'"},
        {"--schedule 1,1,1,2", "not '1,1,1,2'"},
        {"--schedule 1,1,1,2,-1", "not '1,1,1,2,-1'"},
        {"--schedule 1,1,1,2,1x", "not '1,1,1,2,1x'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int st;
        char *err = run_capture(&st, "cd '%s' && " CLEAN_ENV "'%s' record -o bad.db %s -- sh -c 'touch ran' 2>&1", dir, tracedb(),
                                bad[i].flags);
        cr_expect_eq(st, 2, "record %s: exit 2: %s", bad[i].flags, err);
        cr_expect(strstr(err, bad[i].says), "record %s: says %s: %s", bad[i].flags, bad[i].says, err);
        free(err);
        cr_expect_eq(count_files(dir, "ran"), 0, "record %s: the program did not run", bad[i].flags);
        cr_expect_eq(count_files(dir, "bad.db"), 0, "record %s: no database", bad[i].flags);
        run("rm -f '%s/ran' '%s'/bad.db*", dir, dir);
    }
    static const struct {
        const char *env;
        int nvtx;
        const char *says;
    } vars[] = {
        {"TRACEDB_KINDS=rnage", 1, "unknown kind in 'rnage'"},
        {"TRACEDB_SCHEDULE=1,2", 1, "not '1,2'"},
        {"TRACEDB_KINDS=rnage", 0, "unknown kind in 'rnage'"},
        {"TRACEDB_SCHEDULE=1,2", 0, "not '1,2'"},
    };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        int st;
        char *err;
        if (vars[i].nvtx)
            err = run_capture(&st, "cd '%s' && " CLEAN_ENV "%s TRACEDB_OUTPUT=var.db NVTX_INJECTION64_PATH='%s' '%s' 2>&1", dir,
                              vars[i].env, inject_lib(), src_path("build/nvtx_sample"));
        else
            err = run_capture(&st, "cd '%s' && " CLEAN_ENV "%s TRACEDB_OUTPUT=var.db '%s' steps 2>&1", dir, vars[i].env,
                              src_path("build/test/record_sample"));
        cr_expect_eq(st, 0, "%s: the program ran: %s", vars[i].env, err);
        cr_expect(strstr(err, vars[i].says), "%s: says %s: %s", vars[i].env, vars[i].says, err);
        free(err);
        cr_expect_eq(count_files(dir, "var.db"), 0, "%s %s: no database, no staging file", vars[i].env,
                     vars[i].nvtx ? "nvtx_sample" : "record_sample steps");
        run("rm -f '%s'/var.db*", dir);
    }
    int st;
    char *err = run_capture(&st, "cd '%s' && " CLEAN_ENV "TRACEDB_KINDS=rnage '%s' record -o inherited.db -- '%s' 2>&1", dir,
                            tracedb(), src_path("build/nvtx_sample"));
    cr_expect_eq(st, 0, "the program's status: %s", err);
    cr_expect(strstr(err, "unknown kind in 'rnage'") && strstr(err, "no database was written at inherited.db"), "%s", err);
    free(err);
    cr_expect_eq(count_files(dir, "inherited.db"), 0, "no database, no staging file, no claim left");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* What a recording of nvtx_steps holds, in one line: the step ranges kept, in order, then the rest. */
static char *nvtx_steps_held(const char *db)
{
    sqlite3 *d = db_open(db);
    char *s = db_text(d, "SELECT 'steps ' || coalesce((SELECT group_concat(name, ',') FROM (SELECT name FROM ranges "
                         "WHERE name != 'work' ORDER BY start_ns)), '-')"
                         " || '; work ' || (SELECT count(*) FROM ranges WHERE name = 'work')"
                         " || '; load ' || (SELECT count(*) FROM events WHERE kind = 'instant' AND name = 'load')"
                         " || '; m ' || (SELECT count(*) FROM events WHERE kind = 'instant' AND name = 'm')"
                         " || '; tail ' || (SELECT count(*) FROM events WHERE kind = 'instant' AND name = 'tail')"
                         " || '; events ' || (SELECT count(*) FROM events)");
    sqlite3_close(d);
    return s;
}

/* --schedule over a program whose steps are NVTX ranges: the end of the k-th range named like --step (default
 * ProfilerStep*) ends step k, as the k-th tdb_step() call would begin it; what comes before a step range (its
 * "load") goes with that step, what comes after the last (the "tail") with step N + 1. Step k is kept when
 * pos = k - 1 - skip_first >= 0, pos % (wait + warmup + active) >= wait + warmup and (repeat > 0) pos < repeat
 * cycles (PyTorch's schedule); a kept step holds load, its range, work and m (4 events). Over 6 steps:
 *   0,1,0,1,2: cycles of 2, the second active, twice: pos 1 and 3, steps 2 and 4; step 7 (pos 6) is past
 *   1,1,1,2,1: skip 1, wait 1, warm up 1, 2 active once: pos 2 and 3, steps 4 and 5
 *   3,0,0,2,0: skip 3, then every step forever: steps 4, 5, 6 and the tail (step 7): 13 events
 *   0,0,0,2,1: the first 2 steps, once (nothing skipped: the recording starts in an active step)
 * and the same whichever way the step range is made: pushed and popped on a thread of its own for each step,
 * started on one thread and ended on another, pushed and popped in a domain of its own. */
Test(options, record_schedule_steps_by_nvtx_ranges, .timeout = 120)
{
    char *dir = temp_dir();
    static const char two_four[] = "steps ProfilerStep#2,ProfilerStep#4; work 2; load 2; m 2; tail 0; events 8";
    static const char four_five[] = "steps ProfilerStep#4,ProfilerStep#5; work 2; load 2; m 2; tail 0; events 8";
    static const char from_four[] =
        "steps ProfilerStep#4,ProfilerStep#5,ProfilerStep#6; work 3; load 3; m 3; tail 1; events 13";
    static const struct {
        const char *flags, *name, *mode, *held;
    } want[] = {
        {"--schedule 0,1,0,1,2", "ProfilerStep#%d", "push", two_four},
        {"--schedule 1,1,1,2,1", "ProfilerStep#%d", "push", four_five},
        {"--schedule 3,0,0,2,0", "ProfilerStep#%d", "push", from_four},
        {"--schedule 0,0,0,2,1", "ProfilerStep#%d", "push",
         "steps ProfilerStep#1,ProfilerStep#2; work 2; load 2; m 2; tail 0; events 8"},
        {"--schedule 0,1,0,1,2", "ProfilerStep#%d", "threads", two_four},
        {"--schedule 1,1,1,2,1", "ProfilerStep#%d", "start", four_five},
        {"--schedule 3,0,0,2,0", "ProfilerStep#%d", "domain", from_four},
        {"--schedule 0,1,0,1,2 --step 'train step *'", "train step %d", "push",
         "steps train step 2,train step 4; work 2; load 2; m 2; tail 0; events 8"},
        /* the default glob is ProfilerStep*: ProfilerStep#N, the names PyTorch's profiler gives its steps */
        {"--schedule 0,1,0,1,2 --step 'ProfilerStep*'", "ProfilerStep#%d", "push", two_four},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char db[1200];
        snprintf(db, sizeof db, "%s/steps%zu.db", dir, i);
        int st;
        char *err = run_capture(&st, CLEAN_ENV "TRACEDB_INJECT='%s' '%s' record -o '%s' %s -- '%s' 6 '%s' %s 2>&1",
                                inject_lib(), tracedb(), db, want[i].flags, src_path("build/nvtx_steps"), want[i].name,
                                want[i].mode);
        cr_expect_eq(st, 0, "record %s -- nvtx_steps %s %s: exit 0: %s", want[i].flags, want[i].name, want[i].mode, err);
        cr_expect(strstr(err, "the schedule saw 6 steps"), "record %s -- nvtx_steps %s: %s", want[i].flags, want[i].mode, err);
        free(err);
        char *held = nvtx_steps_held(db);
        cr_expect_str_eq(held, want[i].held, "record %s -- nvtx_steps 6 '%s' %s", want[i].flags, want[i].name, want[i].mode);
        free(held);
    }
    /* TRACEDB_SCHEDULE and TRACEDB_STEP, with no tracedb record: as --schedule and --step */
    char db[1200];
    snprintf(db, sizeof db, "%s/env.db", dir);
    cr_expect_eq(run(CLEAN_ENV "TRACEDB_SCHEDULE=1,1,1,2,1 TRACEDB_STEP='iter*' TRACEDB_OUTPUT='%s' "
                               "NVTX_INJECTION64_PATH='%s' '%s' 6 'iter %%d' 2>/dev/null",
                     db, inject_lib(), src_path("build/nvtx_steps")), 0);
    char *held = nvtx_steps_held(db);
    cr_expect_str_eq(held, "steps iter 4,iter 5; work 2; load 2; m 2; tail 0; events 8", "TRACEDB_STEP=iter*");
    free(held);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A schedule that sees no step (no range named like --step ends; the program never calls tdb_step()) is said
 * on stderr, naming the glob, and tracedb record exits 1 (the program exited 0):
 *   0,1,0,1,2 over 6 ranges named "epoch k" (not ProfilerStep*): step 1 is a wait step and never ends, so
 *   nothing is kept: no database is written (no staging file, no claim left), rather than one of 0 events;
 *   --step 'nope*' over ProfilerStep#k ranges: the same;
 *   0,0,0,2,1 over "epoch k": step 1 is active and never ends, so all 25 events are kept: the database is
 *   written (nothing recorded is lost) and the exit is still 1.
 * Without tracedb record (TRACEDB_OUTPUT), the recorder says the same and writes no database either; the
 * program's status is its own. --step without --schedule, or with no name, is refused before the program runs. */
Test(options, record_schedule_without_steps_says_so, .timeout = 120)
{
    char *dir = temp_dir();
    static const struct {
        const char *flags, *name, *glob;
        int kept;
    } none[] = {
        {"--schedule 0,1,0,1,2", "epoch %d", "ProfilerStep*", 0},
        {"--schedule 0,1,0,1,2 --step 'nope*'", "ProfilerStep#%d", "nope*", 0},
        {"--schedule 0,0,0,2,1", "epoch %d", "ProfilerStep*", 1},
    };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        int st;
        char *err = run_capture(&st, "cd '%s' && " CLEAN_ENV "TRACEDB_INJECT='%s' '%s' record -o none.db %s -- '%s' 6 '%s' 2>&1",
                                dir, inject_lib(), tracedb(), none[i].flags, src_path("build/nvtx_steps"), none[i].name);
        cr_expect_eq(st, 1, "record %s -- nvtx_steps 6 '%s': exit 1: %s", none[i].flags, none[i].name, err);
        char says[128];
        snprintf(says, sizeof says, "saw no step: no range named like '%s' ended", none[i].glob);
        cr_expect(strstr(err, says), "record %s: says %s: %s", none[i].flags, says, err);
        if (none[i].kept) {
            cr_expect(strstr(err, "what was recorded is kept"), "%s", err);
            char db[1200];
            snprintf(db, sizeof db, "%s/none.db", dir);
            char *held = nvtx_steps_held(db);
            cr_expect_str_eq(held, "steps epoch 1,epoch 2,epoch 3,epoch 4,epoch 5,epoch 6; work 6; load 6; m 6; tail 1; events 25");
            free(held);
        } else {
            cr_expect(strstr(err, "no database was written at none.db (the schedule saw no step)"), "%s", err);
            cr_expect_eq(count_files(dir, "none.db"), 0, "record %s: no database, no staging file, no claim", none[i].flags);
        }
        free(err);
        run("rm -f '%s'/none.db*", dir);
    }
    int st;
    char *err = run_capture(&st, "cd '%s' && " CLEAN_ENV "TRACEDB_SCHEDULE=0,1,0,1,2 TRACEDB_OUTPUT=var.db "
                                 "NVTX_INJECTION64_PATH='%s' '%s' 6 'epoch %%d' 2>&1",
                            dir, inject_lib(), src_path("build/nvtx_steps"));
    cr_expect_eq(st, 0, "the program's own status: %s", err);
    cr_expect(strstr(err, "saw no step") && strstr(err, "no database is written"), "%s", err);
    free(err);
    cr_expect_eq(count_files(dir, "var.db"), 0, "TRACEDB_OUTPUT: no database, no staging file");
    static const struct {
        const char *flags, *says;
    } bad[] = {
        {"--step 'iter*'", "give --schedule too"},
        {"--schedule 0,0,0,0,0 --step 'iter*'", "give --schedule too"},
        {"--schedule 0,1,0,1,2 --step ''", "needs the name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = run_capture(&st, "cd '%s' && " CLEAN_ENV "'%s' record -o bad.db %s -- sh -c 'touch ran' 2>&1", dir, tracedb(),
                          bad[i].flags);
        cr_expect_eq(st, 2, "record %s: exit 2: %s", bad[i].flags, err);
        cr_expect(strstr(err, bad[i].says), "record %s: says %s: %s", bad[i].flags, bad[i].says, err);
        free(err);
        cr_expect_eq(count_files(dir, "ran") + count_files(dir, "bad.db"), 0, "record %s: nothing run, nothing written",
                     bad[i].flags);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* With no CUDA driver (this machine), --level 1 (device work only) records nothing at all: tracedb record says
 * so instead of "recording NVTX ranges"; --kinds names what is kept; the default level says NVTX ranges. The
 * recording itself is as record_level_1_keeps_no_host_events has it. */
Test(options, record_without_a_driver_says_what_it_records, .timeout = 120)
{
    char *dir = temp_dir();
    static const struct {
        const char *flags, *says, *never;
    } want[] = {
        {"--level 1", "--level 1 keeps device work only: this recording will hold no events", "recording NVTX"},
        {"--level 1 --kinds range", "recording only the NVTX and tracedb API events of the kinds --kinds range names",
         "will hold no events"},
        {"--kinds kernel", "--kinds kernel keeps device work only: this recording will hold no events", "recording NVTX"},
        {"", "recording NVTX ranges and marks and tracedb API events only", "will hold no events"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int st;
        char *err = run_capture(&st, "cd '%s' && " CLEAN_ENV "TRACEDB_INJECT='%s' '%s' record -o l%zu.db %s -- '%s' 2>&1", dir,
                                inject_lib(), tracedb(), i, want[i].flags, src_path("build/nvtx_sample"));
        cr_expect_eq(st, 0, "record %s: %s", want[i].flags, err);
        if (!strstr(err, "no CUDA driver")) { /* a machine with a driver: nothing to say */
            free(err);
            continue;
        }
        cr_expect(strstr(err, want[i].says), "record %s: says %s: %s", want[i].flags, want[i].says, err);
        cr_expect(!strstr(err, want[i].never), "record %s: never %s: %s", want[i].flags, want[i].never, err);
        free(err);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A program that cannot be run: said once, by what went wrong, exit 127 as a shell gives, nothing left at
 * the output's name; not followed by "no database was written ... (did the program make any NVTX ...)". */
Test(options, record_of_a_program_that_cannot_run_says_only_that, .timeout = 60)
{
    char *dir = temp_dir();
    int st;
    char *err = run_capture(&st, "cd '%s' && " CLEAN_ENV "TRACEDB_INJECT='%s' '%s' record -o r.db -- ./no-such-program 2>&1",
                            dir, inject_lib(), tracedb());
    cr_expect_eq(st, 127, "%s", err);
    cr_expect(strstr(err, "cannot run ./no-such-program: No such file or directory"), "%s", err);
    cr_expect(!strstr(err, "no database was written"), "%s", err);
    cr_expect_eq(run("test -e '%s/r.db' || test -e '%s/r.db-claim'", dir, dir), 1);
    free(err);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A program killed mid-run (nvtx_steps 5 ... killed: 5 steps of 4 events, then SIGKILL, never closing): the
 * line record prints sends the user to `tracedb finish`, which builds the database from the staging file the
 * kill left, not to a report over what was committed; and the command it names, run as printed, gives the
 * whole recording: 5 step ranges, 5 work, 5 load, 5 m (hand count), its staging file gone. */
Test(options, record_of_a_killed_program_names_finish, .timeout = 60)
{
    char *dir = temp_dir();
    int st;
    char *err = run_capture(&st, "cd '%s' && " CLEAN_ENV "TRACEDB_INJECT='%s' '%s' record -o k.db -- '%s' 5 'ProfilerStep#%%d' "
                                 "killed 2>&1", dir, inject_lib(), tracedb(), src_path("build/nvtx_steps"));
    cr_expect_eq(st, 128 + 9, "the program's status, killed by SIGKILL: %s", err);
    cr_expect(strstr(err, "k.db-stage"), "names the staging file the kill left: %s", err);
    const char *next = strstr(err, "Next: tracedb finish k.db");
    cr_expect(next, "the next command is finish: %s", err);
    cr_expect(!strstr(err, "Next: tracedb summary"), "not a report over a recording that never closed: %s", err);
    free(err);
    cr_expect_eq(run("test -e '%s/k.db-stage'", dir), 0, "the staging file is there for finish");
    cr_expect_eq(run("cd '%s' && '%s' finish k.db 2>/dev/null", dir, tracedb()), 0, "the command as printed runs");
    cr_expect_neq(run("test -e '%s/k.db-stage'", dir), 0, "finish used the staging file");
    char db[1100];
    snprintf(db, sizeof db, "%s/k.db", dir);
    char *held = nvtx_steps_held(db);
    cr_expect_str_eq(held, "steps ProfilerStep#1,ProfilerStep#2,ProfilerStep#3,ProfilerStep#4,ProfilerStep#5; work 5; "
                           "load 5; m 5; tail 0; events 20");
    free(held);
    run("rm -rf '%s'", dir);
    free(dir);
}
