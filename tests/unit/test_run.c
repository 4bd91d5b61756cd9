/* test_run.c: tdb_run, the tracedb commands inside a program that loads libtracedb.so (the Python package's
 * way in): each prints what the tracedb program prints, with its exit status and messages, also when two
 * threads run commands with different table options at once. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*run_fn)(int argc, const char *const *argv, int out_fd, int err_fd);

static run_fn load_run(void)
{
    void *lib = dlopen(src_path("build/libtracedb.so"), RTLD_NOW | RTLD_LOCAL);
    cr_assert(lib, "%s", dlerror());
    run_fn f = (run_fn)(uintptr_t)dlsym(lib, "tdb_run");
    cr_assert(f, "tdb_run is not exported");
    return f;
}

/* What tdb_run(argv) printed on its output and its messages; its status in *status. */
static char *run_in_process(run_fn f, int argc, const char *const *argv, int *status, char **messages)
{
    FILE *out = tmpfile(), *err = tmpfile();
    cr_assert(out && err);
    *status = f(argc, argv, fileno(out), fileno(err));
    char *text[2] = {NULL, NULL};
    FILE *files[2] = {out, err};
    for (int k = 0; k < 2; k++) {
        long n = (fseek(files[k], 0, SEEK_END), ftell(files[k]));
        rewind(files[k]);
        text[k] = calloc((size_t)n + 1, 1);
        cr_assert_eq(fread(text[k], 1, (size_t)n, files[k]), (size_t)n);
        fclose(files[k]);
    }
    if (messages)
        *messages = text[1];
    else
        free(text[1]);
    return text[0];
}

Test(run, a_command_in_process_prints_what_the_program_prints, .timeout = 120)
{
    run_fn f = load_run();
    char *dir;
    char *db = imported("tests/data/kineto/critical_path_alexnet_trace.json.gz", &dir);
    int st, cst;
    const char *summary[] = {"summary", db, "--format", "csv"};
    char *got = run_in_process(f, 4, summary, &st, NULL);
    char *want = run_capture(&cst, "'%s' summary '%s' --format csv", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert_eq(cst, 0);
    cr_assert_str_eq(got, want);
    cr_assert_gt(strlen(got), 100);
    free(got);
    free(want);
    /* failures: the program's status and its message */
    char *msg;
    const char *missing[] = {"ops", "/nonexistent/run.db"};
    free(run_in_process(f, 2, missing, &st, &msg));
    cr_assert_eq(st, 1);
    cr_assert_str_eq(msg, "tracedb ops: /nonexistent/run.db: no such database\n");
    free(msg);
    const char *bad[] = {"ops", db, "--group-by", "colour"};
    free(run_in_process(f, 4, bad, &st, &msg));
    cr_assert_eq(st, 2, "%s", msg);
    cr_assert(strstr(msg, "colour"), "%s", msg);
    free(msg);
    const char *record[] = {"record", "--", "true"};
    free(run_in_process(f, 3, record, &st, &msg));
    cr_assert_eq(st, 2);
    cr_assert(strstr(msg, "record runs a program"), "%s", msg);
    free(msg);
    /* --help in a program that loads the library: an error, never the end of the program (it exited 0) */
    const char *help[] = {"summary", db, "--help"};
    free(run_in_process(f, 3, help, &st, &msg));
    cr_assert_eq(st, 2, "%s", msg);
    cr_assert(strstr(msg, "tracedb summary: --help is the command line's"), "%s", msg);
    free(msg);
    const char *short_help[] = {"diff", "-h", db};
    free(run_in_process(f, 3, short_help, &st, &msg));
    cr_assert_eq(st, 2, "%s", msg);
    free(msg);
    const char *typo[] = {"opz"};
    free(run_in_process(f, 1, typo, &st, &msg));
    cr_assert_eq(st, 2);
    cr_assert(strstr(msg, "did you mean 'ops'"), "%s", msg);
    free(msg);
    cleanup(dir, db);
}

struct both {
    run_fn f;
    const char *const *argv;
    int argc;
    const char *want;
    int bad;
};

static void *again_and_again(void *arg)
{
    struct both *b = arg;
    for (int i = 0; i < 15; i++) {
        int st;
        char *got = run_in_process(b->f, b->argc, b->argv, &st, NULL);
        b->bad += st != 0 || strcmp(got, b->want) != 0;
        free(got);
    }
    return NULL;
}

/* The renderer's options are the process's: two threads with different --columns and tables each get
 * their own (one command at a time). */
Test(run, two_threads_get_their_own_tables, .timeout = 300)
{
    run_fn f = load_run();
    char *dir;
    char *db = imported("tests/data/kineto/critical_path_alexnet_trace.json.gz", &dir);
    const char *a[] = {"ops", db, "--columns", "name,calls", "--limit", "5"};
    const char *b[] = {"kernels", db, "--limit", "3"};
    int st;
    char *want_a = run_capture(&st, "'%s' ops '%s' --columns name,calls --limit 5", tracedb(), db);
    char *want_b = run_capture(&st, "'%s' kernels '%s' --limit 3", tracedb(), db);
    cr_assert(strstr(want_a, "Calls") && !strstr(want_a, "Self CPU %"), "%s", want_a);
    struct both x = {f, a, 6, want_a, 0}, y = {f, b, 4, want_b, 0};
    pthread_t t1, t2;
    pthread_create(&t1, NULL, again_and_again, &x);
    pthread_create(&t2, NULL, again_and_again, &y);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    cr_assert_eq(x.bad, 0, "ops differed %d times of 15", x.bad);
    cr_assert_eq(y.bad, 0, "kernels differed %d times of 15", y.bad);
    free(want_a);
    free(want_b);
    cleanup(dir, db);
}
