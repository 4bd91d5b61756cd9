/* fuzz_cli.c: libFuzzer target for the command line: option parsing (every option type, sizes, times,
 * globs, sort keys, formats) and the reports it drives, against the sample database. The input is an
 * argument list (NUL or newline separated); its first byte picks a read-only command. Arguments that
 * would write files or print help and exit are left out. */
#include "cli.h"
#include "sample_db.h"
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const commands[] = {"summary", "ops",    "kernels", "api",  "memops",   "latency",
                                       "device",  "memory", "ranks",   "sql",  "export",   "diff",
                                       "overlap", "idle",   "launches", "queue"};

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
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    if (size < 1 || size > 4096)
        return 0;
    const char *name = commands[data[0] % (sizeof commands / sizeof commands[0])];
    const struct cli_command *cmd = cli_command(name);
    if (!cmd)
        return 0;
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    char *argv[76];
    int argc = 0;
    argv[argc++] = (char *)name;
    if (strcmp(name, "export") == 0)
        argv[argc++] = (data[0] & 0x80) ? "chrome" : "csv";
    argv[argc++] = (char *)db;
    if (strcmp(name, "diff") == 0)
        argv[argc++] = (char *)db;
    for (char *p = text, *end = text + size - 1; p < end && argc < 70;) {
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
    cmd->fn(argc, argv, &cli);
    free(text);
    return 0;
}
