/* test_tables.c: tables people read, on the real traces: names cut in the middle so that different
 * kernels never print alike, never cut in `tracedb sql`, headers in words with csv/json unchanged, empty
 * columns left out and --columns to choose, every report fitted to the terminal's width (100 with none),
 * a line saying why when a report has no rows, and the command line's small kindnesses (a suggestion for
 * a typo, a quiet end on a closed pipe). */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *db_of(const char *dir, const char *trace)
{
    char *db = malloc(600);
    snprintf(db, 600, "%s/%s.db", dir, strrchr(trace, '/') + 1);
    cr_assert_eq(import_to(src_path(trace), db), 0);
    return db;
}

/* The distinct lines among the table rows of out (between the 2nd and 3rd dash rules). */
static int rows_and_distinct(char *out, int *distinct)
{
    char *lines[4096];
    int n = 0, rules = 0;
    for (char *l = strtok(out, "\n"); l && n < 4096; l = strtok(NULL, "\n")) {
        if (l[0] == '-' && l[1] == '-') {
            rules++;
            continue;
        }
        if (rules == 2)
            lines[n++] = l;
    }
    *distinct = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(lines[i], lines[j]) == 0;
        *distinct += !seen;
    }
    return n;
}

/* The widest line of s, in characters (UTF-8 code points, as a terminal shows them). */
static size_t widest_line(const char *s)
{
    size_t widest = 0, w = 0;
    for (; *s; s++) {
        if (*s == '\n')
            w = 0;
        else if (((unsigned char)*s & 0xC0) != 0x80 && ++w > widest)
            widest = w;
    }
    return widest;
}

Test(tables, long_kernel_names_are_cut_in_the_middle_and_stay_apart)
{
    char *dir = temp_dir(), *db = db_of(dir, "tests/data/kineto/trace_diff_test_test.json.gz");
    int st;
    /* names only: 9 split_embedding kernels whose first 57 characters repeat (the old cut made pairs alike) */
    char *out = run_capture(&st, "COLUMNS=120 '%s' kernels '%s' --columns name 2>&1", tracedb(), db);
    cr_assert_eq(st, 0, "%s", out);
    /* a C++ signature keeps its name and template arguments; its parameter list is cut */
    cr_assert(strstr(out, "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<float, "
                          "float, float, 5ul>(a"),
              "%s", out);
    cr_assert(strstr(out, "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float"),
              "%s", out);
    for (char *l = out; (l = strchr(l, '\n')); l++) {
        size_t w = strcspn(l + 1, "\n");
        cr_assert(w <= 120, "a line wider than the terminal (%zu)", w);
    }
    int distinct, rows = rows_and_distinct(out, &distinct);
    cr_assert_gt(rows, 20);
    cr_assert_eq(distinct, rows, "every kernel prints apart: %d distinct of %d", distinct, rows);
    free(out);
    /* --wide: every name whole */
    out = run_capture(&st, "COLUMNS=120 '%s' kernels '%s' --columns name --wide", tracedb(), db);
    cr_assert(strstr(out, "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<float, "
                          "float, float, 5ul>(at::GenericPackedTensorAccessor<float, "),
              "%s", out);
    free(out);
    /* sql never cuts the column asked for: the longest name whole (its length read by SQLite itself) */
    sqlite3 *d = db_open(db);
    int64_t longest = db_int(d, "SELECT max(length(value)) FROM string");
    sqlite3_close(d);
    cr_assert_gt(longest, 1000);
    out = run_capture(&st, "COLUMNS=80 '%s' sql '%s' \"SELECT value FROM string ORDER BY length(value) DESC LIMIT 1\"",
                      tracedb(), db);
    char *line = strstr(out, "void split_embedding_backward_codegen_rowwise_adagrad_weighted_kernel_cta_per_row");
    cr_assert(line, "%s", out);
    cr_assert_geq((int64_t)strcspn(line, "\n"), longest);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

/* A name in many rows (a kernel in every step) is cut alike in each, and apart from every other name: as
 * many names print as the csv has whole. */
Test(tables, a_name_in_every_step_is_cut_alike_in_each)
{
    char *dir = temp_dir(), *db = db_of(dir, "tests/data/kineto/trace_diff_test_test.json.gz");
    const char *how[2] = {"--wide", ""}; /* the names whole, then cut */
    int distinct[2], rows[2], cut_rows = 0;
    for (int k = 0; k < 2; k++) {
        int st;
        char *out = run_capture(&st, "COLUMNS=100 '%s' kernels '%s' --by-step --columns step,name %s", tracedb(), db, how[k]);
        cr_assert_eq(st, 0, "%s", out);
        char *names[512];
        distinct[k] = rows[k] = 0;
        for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
            if (strncmp(l, "ProfilerStep#", 13) != 0)
                continue;
            char *name = l + strcspn(l, " ");
            name += strspn(name, " ");
            rows[k]++;
            cut_rows += k == 1 && strstr(name, "...") != NULL;
            int seen = 0;
            for (int i = 0; i < distinct[k] && !seen; i++)
                seen = strcmp(names[i], name) == 0;
            if (!seen && distinct[k] < 512)
                names[distinct[k]++] = name;
        }
        free(out);
    }
    cr_assert_gt(distinct[0], 10);
    cr_assert_eq(rows[0], rows[1]);
    cr_assert_gt(rows[0], distinct[0], "names repeat over the steps");
    cr_assert_gt(cut_rows, 2 * 9, "long names cut in more than one step's rows: %d", cut_rows);
    cr_assert_eq(distinct[1], distinct[0], "each name prints one way, apart from the others: %d shown, %d whole", distinct[1],
                 distinct[0]);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

/* Which columns a table leaves out comes from the sums (event_stats); a recording not closed has none
 * yet, and its events tell instead. */
Test(tables, device_and_memory_columns_from_the_sums_or_a_recordings_events)
{
    char *dir = temp_dir(), *db = db_of(dir, "tests/data/kineto/df_index_resolver_df_index_resolver.json.gz");
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' --limit 3 --wide", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert(strstr(out, "Self device") && strstr(out, "Device mem"), "GPU work and [memory] events: %s", out);
    free(out);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "DELETE FROM event_stats; UPDATE meta SET value = 'recording' WHERE key = 'import_status'",
                              NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    out = run_capture(&st, "'%s' ops '%s' --limit 3 --wide 2>&1", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert(strstr(out, "Self device") && strstr(out, "Device mem"), "a recording's events show them too: %s", out);
    free(out);
    /* a closed database whose sums say it has neither: both columns left out (the footer under the table
     * is the pass's totals, from the events) */
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "UPDATE meta SET value = 'complete' WHERE key = 'import_status'", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    out = run_capture(&st, "'%s' ops '%s' --limit 3 --wide 2>&1", tracedb(), db);
    cr_assert_eq(st, 0);
    char *footer = strstr(out, "Self CPU time total");
    cr_assert(footer, "%s", out);
    *footer = 0;
    cr_assert(strstr(out, "Self CPU") && !strstr(out, "Self device") && !strstr(out, "Device mem"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

Test(tables, headers_in_words_and_empty_columns_left_out)
{
    char *dir = temp_dir(), *db = db_of(dir, "samples/resnet18_inference.json.gz");
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' --limit 3", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert(strstr(out, "Name") && strstr(out, "Calls") && strstr(out, "Self CPU %") && strstr(out, "CPU total"),
              "%s", out);
    cr_assert(!strstr(out, "_ns") && !strstr(out, "_pct"), "no unit suffix above formatted cells: %s", out);
    cr_assert(!strstr(out, "device") && !strstr(out, "Device"), "device columns are zero on a CPU trace: %s", out);
    free(out);
    out = run_capture(&st, "'%s' summary '%s'", tracedb(), db); /* its operator section likewise */
    cr_assert(strstr(out, "Self CPU") && !strstr(out, "Self device"), "%s", out);
    free(out);
    /* csv keeps every column, snake_case, integers */
    out = run_capture(&st, "'%s' ops '%s' --limit 1 --format csv", tracedb(), db);
    cr_assert(strncmp(out, "name,calls,self_cpu_ns,self_cpu_pct,cpu_total_ns,cpu_total_pct,cpu_avg_ns,self_device_ns", 86) == 0,
              "%s", out);
    free(out);
    out = run_capture(&st, "'%s' ops '%s' --limit 2 --columns name,self_device_ns,calls", tracedb(), db);
    char *name = strstr(out, "Name"), *dev = name ? strstr(name, "Self device") : NULL, *calls = dev ? strstr(dev, "Calls") : NULL;
    cr_assert(calls && strcspn(name, "\n") < strcspn(name, "S") + 40 && !strstr(out, "Self CPU %"),
              "chosen columns, in order: %s", out);
    free(out);
    out = run_capture(&st, "'%s' ops '%s' --columns name,bogus 2>&1", tracedb(), db);
    cr_assert_neq(st, 0);
    cr_assert(strstr(out, "unknown --columns name 'bogus' (one of: name calls self_cpu_ns"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

Test(tables, empty_reports_say_why)
{
    char *dir = temp_dir(), *db = db_of(dir, "samples/resnet18_inference.json.gz");
    const struct {
        const char *args, *says;
    } cases[] = {
        /* PyTorch 1.13's legacy export (samples/make_samples.py asked for shapes): what the format lacks */
        {"memory", "(no rows: no [memory] events: this trace is PyTorch's legacy export (torch.profiler without Kineto: "
                   "no categories), which carries no input shapes and no [memory] events whatever the profiler recorded"},
        {"latency", "(no rows: no ProfilerStep#N steps: name the ranges to measure with --name NAME"},
        {"kernels", "(no rows: no GPU work of these kinds in this trace (a CPU-only trace has none))"},
        {"device", "(no rows: no device work in this trace: no GPU kernels, copies or sets, no NPU spans (a CPU-only "
                   "trace has none))"},
        {"api", "(no rows: no CUDA runtime or driver calls in this trace"},
        {"latency --name 'nope*'", "(no rows: no range, operator or step named 'nope*')"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st;
        char *out = run_capture(&st, "COLUMNS=1000 '%s' %s '%s' 2>&1", tracedb(), cases[i].args, db); /* one line */
        cr_assert_eq(st, 0, "%s: %s", cases[i].args, out);
        cr_assert(strstr(out, cases[i].says), "%s: %s", cases[i].args, out);
        cr_assert(!strstr(out, "----"), "%s: no empty frame: %s", cases[i].args, out);
        free(out);
    }
    int st;
    /* what the trace lacks for what was asked, and what would produce it */
    char *out = run_capture(&st, "'%s' ops '%s' --with-flops 2>&1 >/dev/null", tracedb(), db);
    cr_assert(strstr(out, "no operator has input shapes, so FLOPs stay empty: this trace is PyTorch's legacy export"), "%s",
              out);
    free(out);
    /* a Kineto trace (categories) without shapes or memory: what the profiler was not asked for */
    char kineto[600];
    snprintf(kineto, sizeof kineto, "%s/alexnet.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), kineto), 0);
    out = run_capture(&st, "'%s' ops '%s' --with-flops 2>&1 >/dev/null", tracedb(), kineto);
    cr_assert(strstr(out, "no operator has input shapes, so FLOPs stay empty: profile with "
                          "torch.profiler.profile(record_shapes=True)"),
              "%s", out);
    free(out);
    out = run_capture(&st, "COLUMNS=1000 '%s' memory '%s' 2>&1", tracedb(), kineto);
    cr_assert(strstr(out, "no [memory] events in this trace: profile with torch.profiler.profile(profile_memory=True)"), "%s",
              out);
    free(out);
    out = run_capture(&st, "'%s' ops '%s' --group-by stack 2>&1 >/dev/null", tracedb(), db);
    cr_assert(strstr(out, "no Python frames in this trace"), "%s", out);
    free(out);
    /* FLOPs as people read them: PyTorch's 18,135,613,440 for resnet18's conv2d */
    char flops_db[600];
    snprintf(flops_db, sizeof flops_db, "%s/flops.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/resnet18_flops.json"), flops_db), 0);
    out = run_capture(&st, "COLUMNS=120 '%s' ops '%s' --with-flops --columns name,flops 2>&1", tracedb(), flops_db);
    cr_assert(strstr(out, "FLOPs") && strstr(out, "18.14 GFLOP") && strstr(out, "5.12 MFLOP"), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' ops '%s' --from 2ms --to 1ms 2>&1", tracedb(), db);
    cr_assert_eq(st, 1);
    cr_assert(strstr(out, "the window is empty: --from 2ms is not before --to 1ms"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

Test(tables, typos_unknown_formats_and_closed_pipes)
{
    char *dir = temp_dir(), *db = db_of(dir, "samples/resnet18_inference.json.gz");
    int st;
    char *out = run_capture(&st, "'%s' sumary '%s' 2>&1", tracedb(), db);
    cr_assert_eq(st, 2);
    cr_assert(strstr(out, "'sumary' is not a tracedb command; did you mean 'summary'?"), "%s", out);
    free(out);
    /* an option too, with or without its value; one far from any: the usage */
    out = run_capture(&st, "'%s' ops '%s' --limt 3 2>&1; '%s' kernels '%s' --sortt=total_ns 2>&1; '%s' ops '%s' --zzzzzz 2>&1",
                      tracedb(), db, tracedb(), db, tracedb(), db);
    cr_assert(strstr(out, "tracedb ops: unknown option '--limt'; did you mean '--limit'?\n") &&
                  strstr(out, "unknown option '--sortt=total_ns'; did you mean '--sort'?") &&
                  strstr(out, "unknown option '--zzzzzz'\nusage: tracedb ops"),
              "%s", out);
    free(out);
    out = run_capture(&st, "'%s' -V", tracedb());
    cr_assert(st == 0 && strncmp(out, "tracedb ", 8) == 0 && strstr(out, "(schema "), "%s", out);
    free(out);
    /* sql prints exactly the columns asked, one NULL in every row too */
    out = run_capture(&st, "'%s' sql '%s' 'SELECT 1 AS a, NULL AS b, 3 AS c'", tracedb(), db);
    cr_assert(st == 0 && strstr(out, "a  b  c"), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' export pdf '%s' -o x.pdf 2>&1", tracedb(), db);
    cr_assert_eq(st, 2);
    cr_assert(strstr(out, "unknown export format 'pdf' (chrome or csv)"), "%s", out);
    free(out);
    /* every command's --help carries an example; the man page is made of the same --help texts */
    out = run_capture(&st, "'%s' help record", tracedb());
    cr_assert(strstr(out, "examples:\n    tracedb record -o run.db -- python train.py"), "%s", out);
    free(out);
    out = run_capture(&st, "sh '%s' '%s'", src_path("tools/manpage.sh"), tracedb());
    cr_assert_eq(st, 0);
    int sections = 0;
    for (char *p = out; (p = strstr(p, "\n.SS ")); p++)
        sections++;
    int st2;
    char *listed = run_capture(&st2, "'%s' help | grep -c '^    [a-z]'", tracedb());
    cr_assert_eq(sections, atoi(listed), "one section per command tracedb help lists: %d", sections);
    cr_assert_geq(sections, 20);
    free(listed);
    /* help groups the commands by task, under headings in this order, each command once, descriptions in
     * one column */
    char *help = run_capture(&st2, "'%s' help", tracedb());
    static const char *const order[] = {"\nimport and record:\n    finish ", "\nreports (PyTorch, nsys, Furiosa):\n",
                                        "\nHTA's analyses:\n    critical-path  per rank", "\ncompare runs and ranks:\n    diff   ",
                                        "\nexport and share:\n", "\nSQL:\n    sql            run"};
    const char *at = help;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        const char *h = strstr(at, order[k]);
        cr_assert(h, "heading %zu in order: %s", k, help);
        at = h + 1;
    }
    cr_assert(strstr(help, "\n    summary        where the time") && strstr(help, "\n    import         turn"), "%s", help);
    /* help's own --help is that list too (not "'--help' is not a tracedb command") */
    for (int k = 0; k < 2; k++) {
        char *again = run_capture(&st2, "'%s' help %s 2>&1", tracedb(), k ? "-h" : "--help");
        cr_assert(st2 == 0 && strcmp(again, help) == 0, "help %s: %s", k ? "-h" : "--help", again);
        free(again);
    }
    free(help);
    cr_assert(strstr(out, "\\-\\-max\\-string SIZE") && strstr(out, "\\-\\-on\\-inconclusive VALUE") &&
                  strstr(out, "tracedb diff base.db new.db \\-\\-fail\\-above 5"),
              "options and examples as --help has them (%zu bytes): %.300s", strlen(out), out);
    free(out);
    /* far more than a pipe holds, into head: no "Broken pipe", no error */
    out = run_capture(&st, "'%s' sql '%s' 'SELECT * FROM events' --format csv 2>'%s/err' | head -1 >/dev/null; cat '%s/err'",
                      tracedb(), db, dir, dir);
    cr_assert_eq(strlen(out), 0, "stderr: %s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

/* A table far longer than the 64 KiB its text is gathered in: every line whole and in order (each worked
 * out here, not read back from tracedb), the last block written too, and a closed pipe ends it quietly. */
Test(tables, a_long_table_is_written_whole_and_in_order)
{
    char *dir = temp_dir(), *db = db_of(dir, "samples/resnet18_inference.json.gz");
    int st;
    enum { N = 30000 }; /* about 570 KB of text */
    char *out = run_capture(&st, "'%s' sql '%s' \"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d) "
                                 "SELECT x, printf('%%05d-%%s', x, hex(x)) AS t FROM c\"",
                            tracedb(), db, N);
    cr_assert_eq(st, 0, "%.300s", out);
    /* x is numeric: right-aligned to the widest, "30000"; t is as wide as its widest cell, "30000-3330303030"
     * (5 + 1 + 2 * 5), and as the last column it is not padded; every cell is followed by two blanks */
    char *line = out, expect[128], hex[32];
    size_t tw = 5 + 1 + 2 * 5, width = 5 + 2 + tw + 2;
    for (int k = 0; k < 3; k++) { /* rule, header, rule */
        size_t n = strcspn(line, "\n");
        if (k != 1) {
            cr_assert_eq(n, width, "rule %d: %.*s", k, (int)n, line);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(line[i], '-');
        } else {
            snprintf(expect, sizeof expect, "%5s  %s  ", "x", "t");
            cr_assert(strncmp(line, expect, n) == 0 && n == strlen(expect), "header: %.*s", (int)n, line);
        }
        line += n + 1;
    }
    for (int x = 1; x <= N; x++) {
        char digits[16];
        int nd = snprintf(digits, sizeof digits, "%d", x);
        for (int i = 0; i < nd; i++) /* SQLite's hex() of an integer: of its text's bytes */
            snprintf(hex + 2 * i, 3, "%02X", (unsigned char)digits[i]);
        char cell[64];
        snprintf(cell, sizeof cell, "%05d-%s", x, hex);
        snprintf(expect, sizeof expect, "%5d  %s  ", x, cell);
        size_t n = strcspn(line, "\n");
        cr_assert(n == strlen(expect) && strncmp(line, expect, n) == 0, "row %d: '%.*s', not '%s'", x, (int)n, line, expect);
        cr_assert_eq(line[n], '\n', "row %d ends its line", x);
        line += n + 1;
    }
    size_t n = strcspn(line, "\n");
    cr_assert_eq(n, width, "the closing rule: %.*s", (int)n, line);
    cr_assert_str_eq(line + n, "\n", "nothing after the closing rule");
    free(out);
    /* into head: no "Broken pipe", no error */
    out = run_capture(&st, "'%s' sql '%s' 'SELECT * FROM events' 2>'%s/err' | head -1 >/dev/null; cat '%s/err'", tracedb(), db,
                      dir, dir);
    cr_assert_eq(strlen(out), 0, "stderr: %s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

/* summary of a merged job names both files, the ranks and the world size; of a trace whose
 * deviceProperties list GPUs 0 and 1 but whose work ran on GPU 1 (Python, from the JSON), GPU 1 alone. */
Test(tables, summary_of_a_job_and_of_a_machine_with_idle_gpus)
{
    char *dir = temp_dir();
    char job[600];
    snprintf(job, sizeof job, "%s/job.db", dir);
    cr_assert_eq(run("'%s' import -q '%s' '%s' -o '%s'", tracedb(), src_path("tests/data/kineto/timeline_analysis_sampled_rank-0.json.gz"),
                     src_path("tests/data/kineto/trace_filter_sampled_rank-1.json.gz"), job),
                 0);
    int st;
    char *out = run_capture(&st, "'%s' summary '%s' --format json", tracedb(), job);
    cr_assert_eq(st, 0);
    cr_assert(strstr(out, "\"source_file\":\"2 files ("), "%s", out);
    cr_assert(strstr(out, "\"traces\":2") && strstr(out, "\"ranks\":2") && strstr(out, "\"world_size\":128"), "%s", out);
    free(out);
    char *db = db_of(dir, "tests/data/kineto/df_index_resolver_df_index_resolver.json.gz");
    out = run_capture(&st, "'%s' summary '%s' --format json", tracedb(), db);
    char *devices = strstr(out, "\"devices\"");
    cr_assert(devices, "%s", out);
    cr_assert(strstr(devices, "\"device\":1,") && !strstr(devices, "\"device\":0,"), "%s", devices);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

/* A database is a stranger's file: a view's column named with terminal escapes ("\e]0;...\a" retitles
 * the window, "\e[2J" clears the screen) is shown escaped in the header, as cells are. */
Test(tables, column_names_reach_the_terminal_escaped)
{
    char *dir = temp_dir();
    char *db = db_of(dir, "tests/data/kineto/critical_path_alexnet_trace.json.gz");
    cr_assert_eq(run("/usr/bin/python3 -c \"import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                     "c.execute('CREATE VIEW v AS SELECT 1 AS \\\"' + chr(27) + ']0;PWNED' + chr(7) + chr(27) + '[2J\\\"'); "
                     "c.commit()\" '%s'", db),
                 0);
    int st;
    char *out = run_capture(&st, "'%s' sql '%s' 'SELECT * FROM v'", tracedb(), db);
    cr_expect_eq(st, 0, "%s", out);
    cr_expect(!strchr(out, 0x1b) && !strchr(out, 0x07), "no raw escape reaches the terminal: %s", out);
    cr_expect(strstr(out, "\\x1b]0;PWNED\\x07\\x1b[2J"), "the name, escaped: %s", out);
    free(out);
    cleanup(dir, db);
}

/* A file name is a stranger's text too: every message naming one (the import a report makes beside a
 * trace, a file that cannot be opened, the output left unwritten) shows its escapes escaped, as tables do;
 * the messages' own newlines stay. */
Test(tables, file_names_reach_the_terminal_escaped_in_messages)
{
    char *dir = temp_dir();
    int st;
    char *out = run_capture(&st,
                            "cd '%s' && n=\"$(printf 'x\\033]0;PWNED\\007\\033[2J')\" && cp '%s' \"$n.json\" && "
                            "'%s' summary \"$n.json\" 2>&1 >/dev/null && '%s' import \"no$n.json\" 2>&1; echo rc=$?",
                            dir, src_path("tests/data/kineto/call_stack_backward_thread.json"), tracedb(), tracedb());
    cr_expect(!strchr(out, 0x1b) && !strchr(out, 0x07), "no raw escape reaches the terminal: %s", out);
    cr_expect(strstr(out, "tracedb: importing x\\x1b]0;PWNED\\x07\\x1b[2J.json into "), "the report's import: %s", out);
    cr_expect(strstr(out, "tracedb: cannot open nox\\x1b]0;PWNED\\x07\\x1b[2J.json: No such file or directory\n"),
              "the file that cannot be opened, on its own line: %s", out);
    cr_expect(strstr(out, "rc=1"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* At a 100-character terminal every report's table fits: names narrow to 40 characters, then the least
 * telling figures are left out (percentages, then spreads and extremes, then the rightmost), never the
 * first column or the sort key, and a footer names each one as csv names it; --wide and --columns leave
 * nothing out. */
Test(tables, tables_fit_the_terminal_and_say_what_they_left_out, .timeout = 120)
{
    char *dir = temp_dir(), *db = db_of(dir, "tests/data/kineto/trace_diff_test_test.json.gz");
    static const char *const reports[] = {"ops",   "kernels", "launches", "memops", "critical-path", "idle",
                                          "queue", "api",     "latency",  "device", "kernels --sort max_ns"};
    int st, left_out_somewhere = 0;
    for (size_t i = 0; i < sizeof reports / sizeof *reports; i++) {
        char *out = run_capture(&st, "COLUMNS=100 '%s' %s '%s' --limit 5 2>/dev/null", tracedb(), reports[i], db);
        cr_assert_eq(st, 0, "%s: %s", reports[i], out);
        char *csv = run_capture(&st, "'%s' %s '%s' --limit 5 --format csv 2>/dev/null", tracedb(), reports[i], db);
        csv[strcspn(csv, "\r\n")] = 0;
        char header[2048];
        snprintf(header, sizeof header, ",%s,", csv);
        for (char *l = out; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
            size_t w = strcspn(l, "\n");
            cr_expect(w <= 100, "%s: a line of %zu characters: %.*s", reports[i], w, (int)w, l);
        }
        char *left = strstr(out, "(left out to fit 100 characters:");
        if (left) {
            left_out_somewhere++;
            char *end = strstr(left, "--wide");
            cr_assert(end, "%s: %s", reports[i], left);
            *end = 0;
            for (char *name = strtok(left + strlen("(left out to fit 100 characters:"), ",; \n"); name;
                 name = strtok(NULL, ",; \n")) {
                char quoted[300];
                snprintf(quoted, sizeof quoted, ",%s,", name);
                cr_expect(strstr(header, quoted), "%s: '%s' left out is no column of %s", reports[i], name, csv);
                cr_expect(strcmp(name, "max_ns") != 0 || !strstr(reports[i], "max_ns"), "%s: the sort key left out",
                          reports[i]);
            }
        }
        free(out), free(csv);
        out = run_capture(&st, "COLUMNS=100 '%s' %s '%s' --limit 5 --wide 2>/dev/null", tracedb(), reports[i], db);
        cr_expect(!strstr(out, "left out to fit"), "%s --wide: %s", reports[i], out);
        free(out);
    }
    cr_expect_geq(left_out_somewhere, 6, "only %d reports were wider than 100 characters", left_out_somewhere);
    char *out = run_capture(&st, "COLUMNS=100 '%s' critical-path '%s' --columns rank,path_ns,window_end_ns 2>/dev/null", tracedb(), db);
    cr_expect(strstr(out, "Window end") && !strstr(out, "left out"), "--columns: %s", out);
    free(out);
    /* the sort key by its PyTorch name stays; columns of zeros go first (this trace's memory is the
     * device's: its CPU columns are zero); diff and summary take --wide but not --columns: they fit, and
     * say so offering --wide alone; with it nothing is left out */
    out = run_capture(&st, "COLUMNS=70 '%s' ops '%s' --sort cuda_time_total --limit 3 2>/dev/null", tracedb(), db);
    cr_expect(strstr(out, "Device total") && strstr(out, "left out"), "%s", out);
    free(out);
    char *df = db_of(dir, "tests/data/kineto/df_index_resolver_df_index_resolver.json.gz");
    out = run_capture(&st, "COLUMNS=60 '%s' memory '%s' --by-op --limit 3 2>/dev/null", tracedb(), df);
    cr_expect(strstr(out, "Self device allocated") && strstr(out, "self_cpu_allocated_bytes"), "%s", out);
    free(out);
    out = run_capture(&st, "COLUMNS=100 '%s' diff '%s' '%s' 2>/dev/null; COLUMNS=100 '%s' summary '%s'", tracedb(), db, df,
                      tracedb(), db);
    cr_expect(strstr(out, "left out to fit 100 characters") && strstr(out, "--wide shows every column)") &&
                  !strstr(out, "--columns"), "%s", out);
    cr_expect_leq(widest_line(out), 100, "%s", out);
    free(out);
    /* diff's fitted tables keep the change they are sorted by: at 80 the operators' Delta, the steps'
     * Delta median, the devices' Delta busy */
    out = run_capture(&st, "COLUMNS=80 '%s' diff '%s' '%s' 2>/dev/null", tracedb(), db, df);
    cr_expect(strstr(out, "  Delta  ") && strstr(out, "Delta median") && strstr(out, "Delta busy"), "%s", out);
    free(out);
    out = run_capture(&st, "COLUMNS=100 '%s' diff '%s' '%s' --wide 2>/dev/null; COLUMNS=100 '%s' summary '%s' --wide", tracedb(),
                      db, df, tracedb(), db);
    cr_expect(!strstr(out, "left out") && widest_line(out) > 100, "%s", out);
    free(out);
    free(df);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

/* Every report on one trace at COLUMNS=100 and 80: no line of its output wider (names narrowed, columns
 * left out, lines beside the tables wrapped; diagnostics on stderr stay one line each, "tracedb ...: ");
 * with --wide, nothing left out. */
static void every_report_fits(const char *trace, void *ctx)
{
    static const char *const reports[] = {"ops",  "kernels",  "api",   "memops",        "memory", "latency", "device",
                                          "idle", "overlap", "launches", "queue", "critical-path", "ranks", "summary"};
    int *part = ctx;
    if (part[1]++ % 4 != part[0]) /* this test's quarter of the traces */
        return;
    char *dir = temp_dir(), db[600], err[600];
    snprintf(db, sizeof db, "%s/run.db", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    cr_assert_eq(import_to(trace, db), 0, "%s", trace);
    for (size_t i = 0; i < sizeof reports / sizeof *reports; i++) {
        for (int cols = 100; cols >= 80; cols -= 20) {
            int st;
            char *out = run_capture(&st, "COLUMNS=%d '%s' %s '%s' 2>'%s'", cols, tracedb(), reports[i], db, err);
            char *msg = read_file(err, NULL);
            cr_expect_eq(st, 0, "%s %s: %s", reports[i], trace, msg);
            cr_expect_leq(widest_line(out), (size_t)cols, "%s %s at %d:\n%s", reports[i], trace, cols, out);
            free(out), free(msg);
        }
        int st;
        char *out = run_capture(&st, "COLUMNS=80 '%s' %s '%s' --wide 2>/dev/null", tracedb(), reports[i], db);
        cr_expect(st == 0 && !strstr(out, "left out to fit"), "%s --wide %s: %s", reports[i], trace, out);
        free(out);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Each quarter of the real traces (tests/data/kineto, in directory order), the first with Furiosa's and
 * RAF's traces: in four tests that run side by side. */
static void every_report_fits_part(int part)
{
    int ctx[2] = {part, 0};
    cr_assert_gt(each_real_trace(every_report_fits, ctx), 10);
    if (part == 0) {
        ctx[1] = 0;
        every_report_fits(src_path("tests/data/furiosa/trace.json"), ctx);
        ctx[1] = 0;
        every_report_fits(src_path("tests/data/raf/trace.json"), ctx);
    }
}

Test(tables, every_report_fits_100_and_80_characters_0, .timeout = 900)
{
    every_report_fits_part(0);
}

Test(tables, every_report_fits_100_and_80_characters_1, .timeout = 900)
{
    every_report_fits_part(1);
}

Test(tables, every_report_fits_100_and_80_characters_2, .timeout = 900)
{
    every_report_fits_part(2);
}

Test(tables, every_report_fits_100_and_80_characters_3, .timeout = 900)
{
    every_report_fits_part(3);
}

/* help kernels (and kernels --help) lists every sort key kernels accepts (those an unknown key's message
 * lists, scope_sort_column's) and every column kernels --format csv prints, each with its table header and
 * its unit: the header in words and the unit as the table shows them (Total: a time, in ns); every other
 * report's help, every column its csv prints. */
Test(tables, help_lists_the_sort_keys_and_the_columns)
{
    char *dir = temp_dir(), *db = db_of(dir, "tests/data/kineto/critical_path_alexnet_trace.json.gz");
    int st;
    char *help = run_capture(&st, "'%s' help kernels", tracedb());
    cr_assert_eq(st, 0, "%s", help);
    char *same = run_capture(&st, "'%s' kernels --help", tracedb());
    cr_assert_str_eq(same, help);
    free(same);
    char *keys_at = strstr(help, "\nsort keys (--sort):"), *columns_at = strstr(help, "\ncolumns");
    cr_assert(keys_at && columns_at && keys_at < columns_at, "%s", help);
    char *keys = strndup(keys_at, (size_t)(columns_at - keys_at));
    char *said = run_capture(&st, "'%s' kernels '%s' --sort no_such_key 2>&1", tracedb(), db);
    char *list = strstr(said, "(one of:");
    cr_assert(st == 2 && list, "%s", said);
    int n = 0;
    for (char *k = strtok(list + strlen("(one of:"), " )\n"); k; k = strtok(NULL, " )\n"), n++) {
        char word[64];
        snprintf(word, sizeof word, " %s", k);
        char *at = strstr(keys, word);
        cr_expect(at && strchr(",\n ", at[strlen(word)]), "sort key %s not in: %s", k, keys);
    }
    cr_assert_geq(n, 6, "%s", said);
    free(said), free(keys);
    char *csv = run_capture(&st, "'%s' kernels '%s' --format csv --limit 1", tracedb(), db);
    csv[strcspn(csv, "\r\n")] = 0;
    n = 0;
    for (char *c = strtok(csv, ","); c; c = strtok(NULL, ","), n++) {
        char line[64];
        snprintf(line, sizeof line, "\n    %s (", c);
        cr_expect(strstr(columns_at, line), "column %s not in: %s", c, columns_at);
    }
    cr_assert_geq(n, 10, "%s", csv);
    free(csv);
    cr_expect(strstr(help, "\n    total_ns (Total, ns): "), "%s", help);
    cr_expect(strstr(help, "\n    time_pct (Time %): "), "the header says the unit: %s", help);
    cr_expect(strstr(help, "\n    shared_mem_bytes (Shared mem, bytes): "), "%s", help);
    cr_expect(strstr(help, "\n  with --patterns:\n    rank ("), "the columns of its other tables too: %s", help);
    free(help);
    /* every other report's help lists its csv columns too */
    static const char *const reports[] = {"ops",  "api",     "memops",   "memory", "latency",       "device",
                                          "idle", "overlap", "launches", "queue",  "critical-path", "ranks"};
    for (size_t i = 0; i < sizeof reports / sizeof *reports; i++) {
        help = run_capture(&st, "'%s' help %s", tracedb(), reports[i]);
        csv = run_capture(&st, "'%s' %s '%s' --format csv --limit 1 2>/dev/null", tracedb(), reports[i], db);
        csv[strcspn(csv, "\r\n")] = 0;
        cr_expect(strchr(csv, ','), "%s: %s", reports[i], csv);
        for (char *c = strtok(csv, ","); c; c = strtok(NULL, ",")) {
            char line[64];
            snprintf(line, sizeof line, "\n    %s (", c);
            cr_expect(strstr(help, line), "%s: column %s not in its help", reports[i], c);
        }
        free(help), free(csv);
    }
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

/* tracedb sql's one number format (docs/sql.md): a column named *_ns, and a function that keeps its
 * argument's unit of one (median, avg, max of k.dur_ns, percentile, round(avg(...))), print as times; a
 * count and an expression as numbers; csv raw. By hand, of 1000, 2000 and 6000 ns: max 6.000us, avg
 * 3.000us, median and the 50th percentile 2.000us, count 3, sum / 1000 = 9. Rule lines stop at the
 * terminal's width, the values whole. */
Test(tables, sql_prints_a_column_and_its_aggregates_alike)
{
    char *dir = temp_dir(), *db = db_of(dir, "tests/data/kineto/call_stack_backward_thread.json");
    static const char with[] = "WITH k(dur_ns) AS (VALUES (1000), (2000), (6000)) ";
    int st;
    char *out = run_capture(&st, "'%s' sql '%s' \"%s SELECT dur_ns FROM k\"", tracedb(), db, with);
    cr_assert(st == 0 && strstr(out, "1.000us") && strstr(out, "6.000us"), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' sql '%s' \"%s SELECT max(k.dur_ns), avg(dur_ns), median(dur_ns), percentile(dur_ns, 50), "
                           "round(AVG(k.dur_ns)), count(dur_ns), sum(dur_ns) / 1000 FROM k\"",
                      tracedb(), db, with);
    cr_assert_eq(st, 0, "%s", out);
    char *row = out;
    for (int i = 0; i < 3; i++) /* rule, header, rule */
        row += strcspn(row, "\n") + 1;
    char want[256];
    snprintf(want, sizeof want, "%13s  %11s  %14s  %22s  %20s  %13s  %18s  \n", "6.000us", "3.000us", "2.000us", "2.000us",
             "3.000us", "3", "9");
    cr_expect(strncmp(row, want, strlen(want)) == 0, "got:\n%s\nwant:\n%s", out, want);
    free(out);
    out = run_capture(&st, "'%s' sql '%s' \"%s SELECT max(dur_ns), avg(dur_ns) FROM k\" --format csv", tracedb(), db, with);
    cr_expect(strstr(out, "\r\n6000,3000") && !strstr(out, "us"), "csv stays raw: %s", out);
    free(out);
    out = run_capture(&st, "COLUMNS=30 '%s' sql '%s' \"SELECT printf('%%060d', 7) AS wide\"", tracedb(), db);
    cr_expect(strstr(out, "\n000000000000000000000000000000000000000000000000000000000007  \n"), "whole: %s", out);
    for (char *l = out; *l; l += strcspn(l, "\n") + 1)
        if (*l == '-')
            cr_expect_eq(strcspn(l, "\n"), 30, "a rule the terminal's width: %s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

/* Units: a gbps column's header says GB/s; bytes print as KB, MB, GB of 1000 (by hand from the alexnet
 * trace's memcpy and memset bytes, 244403360 and 21760: 244.40 MB and 21.76 KB; 256 bytes: 256 B), but
 * ops' memory columns, which equal PyTorch's, as PyTorch's table prints them: torch_merge's ProfilerStep*
 * self CPU memory, -27320 bytes in PyTorch's own key_averages() (torch_merge_expected.json), is
 * -26.68 Kb (of 1024). csv keeps the names and raw bytes. */
Test(tables, units_gb_per_s_and_bytes_of_1000_but_pytorchs_in_ops)
{
    char *dir = temp_dir(), *db = db_of(dir, "tests/data/kineto/critical_path_alexnet_trace.json.gz");
    int st;
    char *out = run_capture(&st, "'%s' memops '%s' --wide", tracedb(), db);
    cr_assert_eq(st, 0, "%s", out);
    cr_expect(strstr(out, "Bandwidth GB/s") && !strstr(out, "gbps"), "%s", out);
    cr_expect(strstr(out, " 244.40 MB ") && strstr(out, " 21.76 KB ") && strstr(out, " 256 B "), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' memops '%s' --format csv", tracedb(), db);
    cr_expect(strstr(out, ",total_bytes,") && strstr(out, ",bandwidth_gbps,") && strstr(out, ",244403360,"), "%s", out);
    free(out);
    char *tm = db_of(dir, "tests/data/torch_merge.json.gz");
    out = run_capture(&st, "'%s' ops '%s' --columns name,self_cpu_mem_bytes --limit 1", tracedb(), tm);
    cr_expect(strstr(out, "ProfilerStep*") && strstr(out, " -26.68 Kb "), "%s", out);
    free(out), free(tm);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}
