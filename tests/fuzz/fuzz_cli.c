/* fuzz_cli.c: libFuzzer target for the command line: option parsing (every option type, sizes, times,
 * globs, sort keys, formats) and the reports it drives, against HTA's AlexNet trace (kernels, launches,
 * memory copies, ranges; sample_db.h). The input's first byte picks a read-only command. Its
 * second byte picks the form of the rest: below 0x10, raw text (arguments separated by NUL or newline,
 * tests/fuzz/cli.dict giving libFuzzer the options and their values); otherwise a structured input
 * (structured_args), each byte picking one of the arguments the command takes, with a value valid for
 * the trace, so that most runs get past option parsing and into the report. Arguments that would write
 * files or print help and exit are left out. At exit the target prints how many runs got past option
 * parsing (an exit status other than 2) to their report, which run.sh shows beside the coverage. */
#define FUZZ_SAMPLE_TRACE "/tests/data/kineto/critical_path_alexnet_trace.json.gz"
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

static const char *const commands[] = {"summary", "ops",     "kernels", "api",     "memops",  "latency",
                                       "device",  "memory",  "ranks",   "sql",     "export",  "diff",
                                       "overlap", "idle",    "launches", "queue",  "critical-path"};

/* What every report takes: its output, and the window (each value one the trace has). */
#define OUTPUT "--limit\n3", "--limit\n0", "--format\njson", "--format\ncsv"
#define WINDOW "--from\n1ms", "--to\n40ms", "--from\n0", "--range\n*measure|forward]", "--by-rank", \
               "--drop-last-step", "--wide"
/* Structured inputs: each byte picks one argument, with its value, from the options the command takes
 * (as its --help lists them), so that most runs get past option parsing to the report; a byte 0xff
 * takes raw text up to the next newline instead (a value no table holds). */
static const struct {
    const char *command, *args[32];
} own_args[] = {
    {"summary", {OUTPUT, NULL}},
    {"ops", {OUTPUT, WINDOW, "--group-by\nshape", "--group-by\nstack", "--stack-depth\n2", "--with-flops",
             "--by-step", "--sort\nself_cpu_ns", "--sort\ncalls", "--sort\nflops", "--columns\nname", NULL}},
    {"kernels", {OUTPUT, WINDOW, "--hta-rounding", "--kinds\nkernel,memcpy,memset", "--group-by\nlaunch",
                 "--by-step", "--by-type", "--patterns\naten::", "--min-kernels\n2", "--sort\ninstances",
                 "--sort\nmed_ns", NULL}},
    {"api", {OUTPUT, WINDOW, "--sort\ncalls", "--sort\nmax_ns", NULL}},
    {"memops", {OUTPUT, WINDOW, "--hta-rounding", "--bandwidth", "--timeline", "--sort\ntotal_bytes", NULL}},
    {"latency", {OUTPUT, WINDOW, "--name\naten::*", "--top-level", "--thread\n1", "--each", "--sort\nmedian_ns",
                 NULL}},
    {"device", {OUTPUT, WINDOW, "--hta-rounding", "--steps\n*measure*", "--steps\n*", NULL}},
    {"memory", {OUTPUT, WINDOW, "--by-op", "--timeline", NULL}},
    {"ranks", {OUTPUT, WINDOW, "--sort\nstraggle_ns", NULL}},
    {"sql", {"--format\njson", "--format\ncsv", "SELECT count(*), median(dur_ns) FROM events",
             "SELECT * FROM kernels", NULL}},
    {"export", {"--table\nevents", "--query\nSELECT * FROM ops", "--report\nops", "--kinds\nkernel", "--from\n1ms",
                "--to\n40ms", "--range\n*measure|forward]", NULL}},
    {"diff", {"--limit\n3", "--format\njson", "--format\ncsv", "--kinds\nkernel", "--tolerance\n1",
              "--section\nsteps", "--section\ndevice", "--by-shape", "--fail-above\n5", "--metric\nkernel_total",
              "--alpha\n0.1", "--on-inconclusive\npass", NULL}},
    {"overlap", {OUTPUT, WINDOW, "--hta-rounding", NULL}},
    {"idle", {OUTPUT, WINDOW, "--hta-rounding", "--kernel-wait-below\n5us", "--negative-gaps", "--sort\nidle_ns",
              NULL}},
    {"launches", {OUTPUT, WINDOW, "--hta-rounding", "--short-below\n10us", "--delay-above\n1us", "--each",
                  "--sort\ndelay_max_ns", NULL}},
    {"queue", {OUTPUT, WINDOW, "--hta-rounding", "--timeline", "--blocked-at\n2", NULL}},
    {"critical-path", {OUTPUT, WINDOW, "--hta-rounding", "--each", "--hta-launch-edges", NULL}},
};

/* At most this many arguments a structured input: options that do not go together are refused (as
 * they should be), and more picks make such a pair likelier, not new paths. */
#define MAX_PICKS 6

/* The structured input's argument list, newline-separated, into out (malloc'd). */
static char *structured_args(const char *command, const uint8_t *data, size_t size)
{
    const char *const *own = NULL;
    for (size_t i = 0; i < sizeof own_args / sizeof own_args[0]; i++)
        if (strcmp(own_args[i].command, command) == 0)
            own = own_args[i].args;
    size_t nown = 0;
    while (own && own[nown])
        nown++;
    size_t cap = 64 * size + 1, n = 0;
    char *out = malloc(cap);
    for (size_t i = 0, picked = 0; out && i < size && picked < MAX_PICKS; i++, picked++) {
        size_t len;
        const char *arg = data[i] == 0xff || !nown ? NULL : own[data[i] % nown]; /* 0xff: raw text */
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
    int structured = size >= 2 && data[1] >= 0x10;
    if (structured) { /* arguments picked from the tables */
        text = structured_args(name, data + 2, size - 2);
        if (!text)
            return 0;
    } else {
        text = malloc(size);
        memcpy(text, data + 1, size - 1);
        text[size - 1] = 0;
    }
    size_t text_len = structured ? strlen(text) : size - 1; /* raw: NULs separate too */
    char *argv[76];
    int argc = 0;
    argv[argc++] = (char *)name;
    if (strcmp(name, "export") == 0)
        argv[argc++] = (data[0] & 0x80) ? "chrome" : "csv";
    if (structured && strcmp(name, "export") == 0 && !(data[0] & 0x80)) { /* csv: what it writes */
        static const char *const what[][2] = {{"--table", "events"}, {"--query", "SELECT * FROM ops"},
                                              {"--report", "kernels"}, {"--report", "ops"}};
        argv[argc++] = (char *)what[(data[0] >> 5) & 3][0];
        argv[argc++] = (char *)what[(data[0] >> 5) & 3][1];
    }
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
    struct cli cli = {{devnull, devnull, "fuzz", NULL, NULL, NULL}, cmd->example, 1, cmd->name, NULL, cli_commands()}; /* in process: --help never exits */
    runs++;
    reached += cmd->fn(argc, argv, &cli) != 2;
    free(text);
    return 0;
}
