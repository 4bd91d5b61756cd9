/* test_sql_extension.c: libtracedb.so as a SQLite extension: loaded into the sqlite3 shell and Python's
 * sqlite3, README's examples give the figures pandas and numpy compute; a foreign SQLite is refused. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ext_traces[] = {
    "tests/data/kineto/critical_path_alexnet_trace.json.gz",  /* 79 kernels, one device */
    "tests/data/kineto/nccl_parser_config_nccl_data.json.gz", /* 2,700 kernels on two GPUs, 3 steps */
    "tests/data/kineto/trace_diff_control_control.json.gz",   /* 8,568 kernels, 6 steps */
};

/* tests/sql_extension_check.py: README's median / percentile / interval_union examples through `.load
 * build/libtracedb` in the sqlite3 shell and load_extension in Python, against pandas and numpy over the
 * rows plain SQL reads. */
Test(sql_extension, readme_examples_through_the_shell_and_python_match_pandas, .timeout = 300)
{
    if (run("command -v sqlite3 >/dev/null") != 0)
        skip_for_missing("the sqlite3 shell (sh tools/deps.sh test installs it)");
    if (run("/usr/bin/python3 -c 'import pandas, numpy' 2>/dev/null") != 0)
        skip_for_missing("Debian's python3-pandas (sh tools/deps.sh test installs it)");
    char *dirs[3], *dbs[3];
    for (int i = 0; i < 3; i++)
        dbs[i] = imported(ext_traces[i], &dirs[i]);
    char lib[1024];
    snprintf(lib, sizeof lib, "%s", src_path("build/libtracedb")); /* SQLite adds .so */
    int st;
    char *out = run_capture(&st, "/usr/bin/python3 '%s' '%s' '%s' '%s' '%s' '%s' 2>&1", src_path("tests/sql_extension_check.py"),
                            src_path("README.md"), lib, dbs[0], dbs[1], dbs[2]);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, " 0 failures"), "%s", out);
    free(out);
    for (int i = 0; i < 3; i++)
        cleanup(dirs[i], dbs[i]);
}

/* A program with its own copy of SQLite (linked statically) cannot be served by calls into the system's
 * libsqlite3: the load is refused, saying why, and the program goes on. */
Test(sql_extension, a_program_with_its_own_sqlite_is_refused_at_load, .timeout = 120)
{
    if (run("test -f /usr/lib/x86_64-linux-gnu/libsqlite3.a || test -f /usr/lib/libsqlite3.a") != 0)
        skip_for_missing("libsqlite3.a (Debian's libsqlite3-dev)");
    char *dir = temp_dir();
    int st;
    char *out = run_capture(&st, "cc -o '%s/host' '%s' $(ls /usr/lib/x86_64-linux-gnu/libsqlite3.a /usr/lib/libsqlite3.a "
                                 "2>/dev/null | head -1) -lm -ldl -lpthread 2>&1",
                            dir, src_path("tests/sql_foreign_host.c"));
    cr_assert_eq(st, 0, "%s", out);
    free(out);
    out = run_capture(&st, "'%s/host' '%s' 2>&1", dir, src_path("build/libtracedb"));
    cr_assert_eq(st, 1, "the load fails, the host lives: %s", out);
    cr_assert(strstr(out, "is not the libsqlite3 libtracedb.so is linked with"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}
