/* test_install.c: make install, under a PREFIX and under a DESTDIR: the binary, the libraries, the header,
 * the man pages (found by man under that prefix, rendered without a warning) and the bash completion
 * land where each belongs. The release build is test-run's (make test builds it first). */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* make install in the source tree with the given variables; its exit status (its output in dir/make.log). */
static int make_install(const char *dir, const char *vars)
{
    return run("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C '%s' install %s >'%s/make.log' 2>&1",
               src_path("."), vars, dir);
}

/* What make install puts under root (PREFIX, with DESTDIR before it when one is given). */
static void expect_installed(const char *root, const char *prefix)
{
    static const char *const files[] = {
        "bin/tracedb", "lib/libtracedb.so", "lib/libtracedb.a", "include/tracedb.h", "lib/pkgconfig/tracedb.pc",
        "share/man/man1/tracedb.1", "share/man/man7/tracedb-schema.7", "share/bash-completion/completions/tracedb",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", root, files[i]);
        cr_assert_eq(access(path, R_OK), 0, "make install put no %s", path);
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/bin/tracedb", root);
    cr_assert_eq(access(path, X_OK), 0, "%s is not executable", path);
    if (access(src_path("build/libtracedb_inject.so"), R_OK) == 0) { /* built with the CUDA toolkit */
        snprintf(path, sizeof path, "%s/lib/tracedb/libtracedb_inject.so", root);
        cr_assert_eq(access(path, R_OK), 0, "make install put no %s", path);
    }
    /* pkg-config's file names the prefix installed to, whichever PREFIX build/tracedb.pc was made with */
    int st;
    char *pc = run_capture(&st, "head -1 '%s/lib/pkgconfig/tracedb.pc'", root);
    char want[4300];
    snprintf(want, sizeof want, "prefix=%s\n", prefix);
    cr_assert_str_eq(pc, want);
    free(pc);
}

Test(install, prefix_and_destdir, .timeout = 120)
{
    int st;
    char *man = run_capture(&st, "command -v man && command -v groff");
    free(man);
    if (st != 0)
        skip_for_missing("man or groff is not installed (tools/deps.sh test installs man-db and groff-base)");
    char *dir = temp_dir();
    char vars[8400], root[4200];
    snprintf(root, sizeof root, "%s/prefix", dir);
    snprintf(vars, sizeof vars, "PREFIX='%s'", root);
    cr_assert_eq(make_install(dir, vars), 0, "make install %s failed (%s/make.log)", vars, dir);
    expect_installed(root, root);
    char *out = run_capture(&st, "'%s/bin/tracedb' --version", root);
    cr_assert(st == 0 && strncmp(out, "tracedb ", 8) == 0, "%s", out);
    free(out);
    /* man finds both pages under the prefix by name and section, and renders them without a warning */
    static const char *const pages[] = {"1 tracedb", "7 tracedb-schema"};
    for (size_t i = 0; i < 2; i++) {
        out = run_capture(&st, "MANPAGER=cat MANWIDTH=100 man --warnings -M '%s/share/man' %s 2>'%s/man.err'", root,
                          pages[i], dir);
        cr_assert(st == 0 && strlen(out) > 1000, "man %s: %d, %zu bytes", pages[i], st, strlen(out));
        cr_assert(strstr(out, i == 0 ? "ENVIRONMENT" : "kernel_launch"), "man %s: %.300s", pages[i], out);
        free(out);
        char err[4200];
        snprintf(err, sizeof err, "%s/man.err", dir);
        char *warned = read_file(err, NULL);
        cr_assert_str_eq(warned, "", "man %s warned", pages[i]);
        free(warned);
    }
    /* the completion installed is the one bash-completion loads for tracedb */
    out = run_capture(&st, "bash --norc --noprofile -c \"source '%s/share/bash-completion/completions/tracedb' && complete -p tracedb\"",
                      root);
    cr_assert(st == 0 && strstr(out, "complete -F _tracedb tracedb"), "%s", out);
    free(out);
    /* DESTDIR: the same tree under it, naming PREFIX (the Python package's library) as installed */
    snprintf(root, sizeof root, "%s/stage/opt/tdb", dir);
    snprintf(vars, sizeof vars, "DESTDIR='%s/stage' PREFIX=/opt/tdb", dir);
    cr_assert_eq(make_install(dir, vars), 0, "make install %s failed (%s/make.log)", vars, dir);
    expect_installed(root, "/opt/tdb");
    out = run_capture(&st, "cat '%s'/lib/python3*/dist-packages/tracedb/_where.py", root);
    cr_assert(st == 0 && strstr(out, "LIBRARY = '/opt/tdb/lib/libtracedb.so'"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* make demo builds the man pages too (the binary, then the pages made from it) and says how to read them. */
Test(install, demo_makes_the_man_pages)
{
    int st;
    char *out = run_capture(&st, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -n -C '%s' demo 2>&1",
                            src_path("."));
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, " build/tracedb build/tracedb.1 build/tracedb-schema.7\n") && strstr(out, "man -l build/tracedb.1"),
              "%s", out);
    free(out);
}
