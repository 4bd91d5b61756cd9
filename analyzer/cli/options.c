/* options.c: the one option parser every subcommand uses (a table of struct opt, like git's OPT_*). */
#include "cli.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int opt_format(const char *v, enum render_format *f)
{
    if (strcmp(v, "table") == 0)
        *f = FMT_TABLE;
    else if (strcmp(v, "csv") == 0)
        *f = FMT_CSV;
    else if (strcmp(v, "json") == 0)
        *f = FMT_JSON;
    else
        return -1;
    return 0;
}

void cli_usage(const struct opt *opts, const char *usage, FILE *to)
{
    fprintf(to, "usage: %s\n", usage);
    for (const struct opt *o = opts; o && o->name; o++) {
        char left[64];
        const char *arg = o->type == OPT_FLAG ? "" : o->type == OPT_INT ? " N" : o->type == OPT_FORMAT ? " table|csv|json"
                        : o->type == OPT_SIZE   ? " SIZE"
                                                : " VALUE";
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s", o->short_name, o->name, arg);
        else
            snprintf(left, sizeof left, "    --%s%s", o->name, arg);
        fprintf(to, "    %-30s %s\n", left, o->help);
    }
}

static int opt_set(const struct opt *o, const char *value, struct cli *cli)
{
    switch (o->type) {
    case OPT_FLAG:
        *(int *)o->target = 1;
        return 0;
    case OPT_STRING:
        *(const char **)o->target = value;
        return 0;
    case OPT_INT: {
        char *end;
        errno = 0;
        long long v = strtoll(value, &end, 10);
        if (*value == 0 || *end != 0 || errno != 0 || v < 0) {
            fprintf(cli->io.err, "%s: --%s wants a non-negative integer, not '%s'\n", cli->io.prog, o->name, value);
            return -1;
        }
        *(int64_t *)o->target = v;
        return 0;
    }
    case OPT_SIZE: {
        char *end;
        errno = 0;
        long long v = strtoll(value, &end, 10);
        int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 0;
        if (shift)
            end++;
        if (*value == 0 || *end != 0 || errno != 0 || v < 0 || v > (INT64_MAX >> shift)) {
            fprintf(cli->io.err, "%s: --%s wants a size in bytes (or with K, M, G), not '%s'\n", cli->io.prog, o->name, value);
            return -1;
        }
        *(int64_t *)o->target = (int64_t)v << shift;
        return 0;
    }
    case OPT_FORMAT:
        if (opt_format(value, o->target) != 0) {
            fprintf(cli->io.err, "%s: unknown --%s '%s' (table, csv or json)\n", cli->io.prog, o->name, value);
            return -1;
        }
        return 0;
    }
    return -1;
}

int cli_parse_options(int argc, char **argv, const struct opt *opts, const char *usage, struct cli *cli)
{
    int npos = 0, only_pos = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        /* "-" (stdin) is positional, and so is anything with a blank in it: SQL that starts with a
         * "--" comment is not an option */
        if (only_pos || a[0] != '-' || a[1] == 0 || strpbrk(a, " \t\n")) {
            argv[npos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            if (cli->in_process) { /* the host program goes on: no exit, no usage in its results */
                fprintf(cli->io.err, "%s: %s is the command line's: its options are listed by %s --help\n", cli->io.prog,
                        a, cli->io.prog);
                return -1;
            }
            cli_usage(opts, usage, cli->io.out);
            cli_columns_help(cli, cli->io.out);
            if (cli->example) {
                fprintf(cli->io.out, "\nexamples:\n");
                for (const char *e = cli->example; *e;) {
                    size_t n = strcspn(e, "\n");
                    fprintf(cli->io.out, "    %.*s\n", (int)n, e);
                    e += n + (e[n] == '\n');
                }
            }
            if (fflush(cli->io.out) != 0 || ferror(cli->io.out)) { /* (> /dev/full) */
                fprintf(cli->io.err, "tracedb: error writing output: %s\n", strerror(errno));
                exit(1);
            }
            exit(0);
        }
        const struct opt *o = NULL;
        const char *value = NULL;
        if (a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t n = eq ? (size_t)(eq - name) : strlen(name);
            for (const struct opt *p = opts; p->name; p++)
                if (strlen(p->name) == n && strncmp(p->name, name, n) == 0)
                    o = p;
            if (eq)
                value = eq + 1;
        } else if (a[2] == 0) {
            for (const struct opt *p = opts; p->name; p++)
                if (p->short_name == a[1])
                    o = p;
        }
        if (!o) {
            const char *near = NULL, *typed = a[1] == '-' ? a + 2 : NULL;
            size_t tn = typed ? strcspn(typed, "=") : 0;
            char name[40];
            int best = 3;
            if (typed && tn < sizeof name) {
                memcpy(name, typed, tn), name[tn] = 0;
                for (const struct opt *p = opts; p->name; p++) {
                    int d = cli_edit_distance(name, p->name);
                    if (d < best)
                        best = d, near = p->name;
                }
            }
            if (near) { /* as for commands: the one meant, not the whole list */
                fprintf(cli->io.err, "%s: unknown option '%s'; did you mean '--%s'?\n", cli->io.prog, a, near);
                return -1;
            }
            fprintf(cli->io.err, "%s: unknown option '%s'\n", cli->io.prog, a);
            cli_usage(opts, usage, cli->io.err);
            return -1;
        }
        if (o->type != OPT_FLAG && !value) {
            if (i + 1 >= argc) {
                fprintf(cli->io.err, "%s: option '%s' needs a value\n", cli->io.prog, a);
                return -1;
            }
            value = argv[++i];
        }
        if (opt_set(o, value, cli) != 0)
            return -1;
    }
    return npos;
}

int cli_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 32 || m > 32)
        return 3;
    int d[33][33];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m] < 3 ? d[n][m] : 3;
}
