/* fuzz_cli.c: libFuzzer target for the command line: option parsing (every option type, sizes, times,
 * globs, sort keys, formats) and the reports it drives, against the sample database. The input is an
 * argument list (NUL or newline separated); its first byte picks a read-only command. Arguments that
 * would write files or print help and exit are left out. A second byte with its top bit set makes the rest a
 * structured input (structured_args); tests/fuzz/cli.dict gives libFuzzer the options and their values; at exit the target prints how many runs got past option parsing (exit status other than 2)
 * to their report, which run.sh shows beside the coverage. */
#include "cli.h"
#include "sample_db.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long runs, reached; /* every run, and those whose options parsed (the report ran) */

static void say_reached(void)
{
    fprintf(stderr, "fuzz_cli: %ld of %ld runs reached their report\n", reached, runs);
}

static const char *const commands[] = {"summary", "ops",    "kernels", "api",  "memops",   "latency",
                                       "device",  "memory", "ranks",   "sql",  "export",   "diff",
                                       "overlap", "idle",   "launches", "queue"};

/* Structured inputs (the second byte's top bit set): each later byte picks one argument, with its value,
 * from the options every report takes or from its own (as its --help lists them), so that most runs get
 * past option parsing to the report; a byte picking the one choice past the lists takes raw text up to the
 * next newline (a value no table holds). */
static const char *const common_args[] = {
    "--limit\n3", "--limit\n0", "--format\njson", "--format\ncsv", "--from\n1ms", "--to\n40ms", "--from\n0",
    "--range\nProfilerStep#*", "--range\n*", "--by-rank", "--drop-last-step", "--wide", "--columns\nname",
    NULL};
static const struct {
    const char *command, *args[12];
} own_args[] = {
    {"ops", {"--group-by\nshape", "--group-by\nstack", "--stack-depth\n2", "--with-flops", "--by-step",
             "--sort\nself_cpu_ns", "--sort\ncalls", "--sort\nflops", NULL}},
    {"kernels", {"--kinds\nkernel,memcpy,memset", "--group-by\nlaunch", "--by-step", "--by-type",
                 "--patterns\naten::", "--min-kernels\n2", "--sort\ninstances", "--sort\nmed_ns", NULL}},
    {"api", {"--sort\ncalls", "--sort\nmax_ns", NULL}},
    {"memops", {"--bandwidth", "--timeline", "--sort\ntotal_bytes", NULL}},
    {"latency", {"--name\naten::*", "--top-level", "--thread\n1", "--each", "--sort\nmedian_ns", NULL}},
    {"device", {"--steps\nProfilerStep#*", "--steps\n*", NULL}},
    {"memory", {"--by-op", "--timeline", NULL}},
    {"ranks", {"--sort\nstraggle_ns", NULL}},
    {"idle", {"--kernel-wait-below\n5us", "--negative-gaps", "--sort\nidle_ns", NULL}},
    {"launches", {"--short-below\n10us", "--delay-above\n1us", "--each", "--sort\ndelay_max_ns", NULL}},
    {"diff", {"--tolerance\n1", "--fail-above\n5", "--metric\nkernel_total", "--alpha\n0.1", NULL}},
    {"sql", {"SELECT count(*), median(dur_ns) FROM events", "SELECT * FROM kernels", NULL}},
    {"export", {"--table\nevents", "--query\nSELECT * FROM ops", "--report\nops", "--kinds\nkernel", NULL}},
};

/* The structured input's argument list, newline-separated, into out (malloc'd). */
static char *structured_args(const char *command, const uint8_t *data, size_t size)
{
    const char *const *own = NULL;
    for (size_t i = 0; i < sizeof own_args / sizeof own_args[0]; i++)
        if (strcmp(own_args[i].command, command) == 0)
            own = own_args[i].args;
    size_t ncommon = 0, nown = 0;
    while (common_args[ncommon])
        ncommon++;
    while (own && own[nown])
        nown++;
    size_t cap = 64 * size + 1, n = 0;
    char *out = malloc(cap);
    for (size_t i = 0; out && i < size; i++) {
        size_t k = data[i] % (ncommon + nown + 1), len; /* the last choice: raw text */
        const char *arg = k < ncommon ? common_args[k] : k - ncommon < nown ? own[k - ncommon] : NULL;
        if (!arg) { /* raw text, to the next newline */
            size_t j = i + 1;
            while (j < size && data[j] != '\n')
                j++;
            arg = (const char *)data + i + 1, len = j - i - 1, i = j;
        } else
            len = strlen(arg);
        if (n + len + 2 > cap)
            break;
        memcpy(out + n, arg, len);
        n += len;
        out[n++] = '\n';
    }
    if (out)
        out[n] = 0;
    return out;
}

static int banned(const char *a)
{
    static const char *const no[] = {"-h", "--help", "-o", "--output", "--write", "-f", "--force", NULL};
    for (int i = 0; no[i]; i++)
        if (strncmp(a, no[i], strlen(no[i])) == 0 && (a[strlen(no[i])] == 0 || a[strlen(no[i])] == '='))
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    const char *db = sample_db();
    if (!devnull) {
        devnull = fopen("/dev/null", "w");
        atexit(say_reached);
    }
    if (size < 1 || size > 4096)
        return 0;
    const char *name = commands[data[0] % (sizeof commands / sizeof commands[0])];
    const struct cli_command *cmd = cli_command(name);
    if (!cmd)
        return 0;
    char *text;
    if (size >= 2 && (data[1] & 0x80)) { /* structured: arguments picked from the tables */
        text = structured_args(name, data + 2, size - 2);
        if (!text)
            return 0;
    } else {
        text = malloc(size);
        memcpy(text, data + 1, size - 1);
        text[size - 1] = 0;
    }
    size_t text_len = size >= 2 && (data[1] & 0x80) ? strlen(text) : size - 1; /* raw: NULs separate too */
    char *argv[76];
    int argc = 0;
    argv[argc++] = (char *)name;
    if (strcmp(name, "export") == 0)
        argv[argc++] = (data[0] & 0x80) ? "chrome" : "csv";
    argv[argc++] = (char *)db;
    if (strcmp(name, "diff") == 0)
        argv[argc++] = (char *)db;
    for (char *p = text, *end = text + text_len; p < end && argc < 70;) {
        size_t n = strcspn(p, "\n");
        p[n] = 0;
        if (!banned(p))
            argv[argc++] = p;
        p += n + 1;
    }
    if (strcmp(name, "export") == 0 && (data[0] & 0x80)) { /* chrome wants -o: to standard output */
        argv[argc++] = "-o";
        argv[argc++] = "-";
    }
    argv[argc] = NULL;
    struct cli cli = {{devnull, devnull, "fuzz"}, cmd->example};
    runs++;
    reached += cmd->fn(argc, argv, &cli) != 2;
    free(text);
    return 0;
}
