/* test_completion.c: bash completion (tools/completion.bash), sourced into bash and its function called
 * as bash calls it (COMP_WORDS, COMP_CWORD): commands, a command's options, --sort keys, option values
 * and files of the kind each place takes, all as the tracedb under test tells them. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The completions (one a line, sorted, malloc'd) of the last of words (NULL-ended) after "tracedb", in
 * directory dir. */
static char *complete_in(const char *dir, ...)
{
    char words[2048] = "";
    size_t n = 0;
    va_list ap;
    va_start(ap, dir);
    for (const char *w; (w = va_arg(ap, const char *));)
        n += (size_t)snprintf(words + n, sizeof words - n, " '%s'", w);
    va_end(ap);
    cr_assert_lt(n, sizeof words);
    int st;
    char *out = run_capture(&st,
                            "cd '%s' && bash --norc --noprofile -c 'source \"$1\" && shift && COMP_WORDS=(\"$@\") && "
                            "COMP_CWORD=$(($# - 1)) && _tracedb && printf \"%%s\\n\" \"${COMPREPLY[@]}\"' _ '%s' '%s'%s | "
                            "sed /^$/d | LC_ALL=C sort",
                            dir, src_path("tools/completion.bash"), tracedb(), words);
    cr_assert_eq(st, 0, "%s", out);
    return out;
}

#define complete(...) complete_in(".", __VA_ARGS__, NULL)

Test(completion, commands_and_options)
{
    int st;
    char *listed = run_capture(&st, "'%s' help | sed -n 's/^    \\([a-z][a-z-]*\\)  .*/\\1/p' | (cat; echo help) | "
                                    "LC_ALL=C sort", tracedb());
    char *out = complete("");
    cr_assert_str_eq(out, listed, "every command tracedb help lists, and help");
    cr_assert_geq(strlen(out), 100);
    free(out), free(listed);
    out = complete("ke");
    cr_assert_str_eq(out, "kernels\n");
    free(out);
    out = complete("help", "cr");
    cr_assert_str_eq(out, "critical-path\n");
    free(out);
    out = complete("ops", "--gr");
    cr_assert_str_eq(out, "--group-by\n");
    free(out);
    out = complete("ops", "run.db", "-");
    cr_assert(strstr(out, "--sort\n") && strstr(out, "-s\n") && strstr(out, "--no-device-rows\n") && strstr(out, "--format\n") &&
                  !strstr(out, "--patterns"),
              "%s", out);
    free(out);
    out = complete("record", "-o", "run.db", "--", "bas");
    cr_assert(strstr(out, "bash\n"), "the program to run: %s", out);
    free(out);
}

Test(completion, sort_keys_and_option_values)
{
    int st;
    /* the keys are the ones an unknown key gets listed */
    char *keys = run_capture(&st, "'%s' kernels x.db --sort '?' 2>&1 | sed 's/.*(one of: \\(.*\\))/\\1/' | tr ' ' '\\n' | "
                                  "LC_ALL=C sort", tracedb());
    char *out = complete("kernels", "x.db", "--sort", "");
    cr_assert_str_eq(out, keys);
    cr_assert(strstr(out, "total_ns\n") && strstr(out, "med_ns\n"), "%s", out);
    free(out), free(keys);
    out = complete("ops", "x.db", "--sort", "self_cpu_t");
    cr_assert_str_eq(out, "self_cpu_time_total\n");
    free(out);
    out = complete("api", "x.db", "--sort=ca");
    cr_assert_str_eq(out, "--sort=calls\n");
    free(out);
    out = complete("device", "x.db", "--executions", "--sort", ""); /* the options typed choose the keys */
    cr_assert_str_eq(out, "io_wait\nrun\nstart\ntotal\n");
    free(out);
    out = complete("ops", "x.db", "--format", "");
    cr_assert_str_eq(out, "csv\njson\ntable\n");
    free(out);
    out = complete("ops", "x.db", "-g", "");
    cr_assert_str_eq(out, "name\nshape\nstack\n");
    free(out);
    out = complete("kernels", "x.db", "--group-by", "");
    cr_assert_str_eq(out, "launch\nname\n");
    free(out);
    out = complete("kernels", "x.db", "--kinds", "kernel,me");
    cr_assert_str_eq(out, "kernel,memcpy\nkernel,memset\n");
    free(out);
    out = complete("export", "");
    cr_assert_str_eq(out, "chrome\ncsv\n");
    free(out);
    out = complete("ops", "x.db", "--limit", "");
    cr_assert_str_eq(out, "", "a number: nothing to offer");
    free(out);
}

Test(completion, files_of_the_kind_each_place_takes)
{
    char *dir = temp_dir();
    cr_assert_eq(run("cd '%s' && touch a.db b.json c.json.gz d.txt e.html && mkdir sub", dir), 0);
    /* a report's database: databases, traces, directories */
    char *out = complete_in(dir, "summary", "", NULL);
    cr_assert_str_eq(out, "a.db\nb.json\nc.json.gz\nsub\n");
    free(out);
    out = complete_in(dir, "diff", "a.db", "", NULL);
    cr_assert_str_eq(out, "a.db\nb.json\nc.json.gz\nsub\n");
    free(out);
    /* traces: the names tracedb help gives them */
    out = complete_in(dir, "import", "", NULL);
    cr_assert_str_eq(out, "b.json\nc.json.gz\nsub\n");
    free(out);
    out = complete_in(dir, "import", "b.json", "c", NULL);
    cr_assert_str_eq(out, "c.json.gz\n");
    free(out);
    /* Furiosa's records (.csv), as import's line in tracedb help names them too */
    cr_assert_eq(run("touch '%s/f.csv'", dir), 0);
    out = complete_in(dir, "import", "", NULL);
    cr_assert_str_eq(out, "b.json\nc.json.gz\nf.csv\nsub\n");
    free(out);
    out = complete_in(dir, "summary", "", NULL);
    cr_assert_str_eq(out, "a.db\nb.json\nc.json.gz\nf.csv\nsub\n");
    free(out);
    cr_assert_eq(run("rm '%s/f.csv'", dir), 0);
    /* outputs: the kind the usage names (-o run.db, -o report.html, -o trace.json[.gz]) */
    out = complete_in(dir, "import", "b.json", "-o", "", NULL);
    cr_assert_str_eq(out, "a.db\nsub\n");
    free(out);
    out = complete_in(dir, "report", "a.db", "-o", "", NULL);
    cr_assert_str_eq(out, "e.html\nsub\n");
    free(out);
    out = complete_in(dir, "export", "chrome", "a.db", "--output", "", NULL);
    cr_assert_str_eq(out, "b.json\nc.json.gz\nsub\n");
    free(out);
    out = complete_in(dir, "sql", "a.db", "", NULL);
    cr_assert_str_eq(out, "", "SQL: nothing to offer");
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}
