/* cmd_report.c: `tracedb report run.db -o report.html [--baseline base.db]`: one self-contained HTML page
 * of the reports (analyzer/export/html_report.c), written whole or not at all. */
#include "cli.h"
#include "diff_gate.h"
#include "html_report.h"
#include "output_claim.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char report_usage[] =
    "tracedb report run.db -o report.html [--baseline base.db [--fail-above PCT] [--metric M] [--alpha P]]\n"
    "                      [--chrome-trace trace.json.gz] [--force]";

int cmd_report(int argc, char **argv, struct cli *cli)
{
    const char *output = NULL, *baseline = NULL, *chrome = NULL, *metric = "step_median", *fail_text = "5", *alpha_text = "0.05";
    int force = 0;
    const struct opt opts[] = {
        {"output", 'o', OPT_STRING, &output, "the HTML file to write"},
        {"baseline", 'b', OPT_STRING, &baseline, "compare with this run (tracedb diff baseline run.db), verdict on top"},
        {"fail-above", 0, OPT_STRING, &fail_text, "with --baseline: the gate's limit, percent (default 5)"},
        {"metric", 0, OPT_STRING, &metric, "with --baseline: step_median (default), step_p99, kernel_total, device_busy, memory_peak"},
        {"alpha", 0, OPT_STRING, &alpha_text, "with --baseline, step metrics: the Mann-Whitney U level (0.05)"},
        {"chrome-trace", 0, OPT_STRING, &chrome, "link this Chrome trace (tracedb export chrome) for the full timeline"},
        {"force", 'f', OPT_FLAG, &force, "replace the output if it exists"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, report_usage, cli);
    if (n != 1 || !output) {
        if (n >= 0) {
            if (n == 1)
                fprintf(cli->io.err, "%s: report needs -o FILE.html\n", cli->io.prog);
            cli_usage(opts, report_usage, cli->io.err);
        }
        return 2;
    }
    struct html_report_options o = {argv[0], baseline, metric, 0, 0, chrome};
    if (diff_gate_options(fail_text, alpha_text, metric, &o.fail_above, &o.alpha, &cli->io) != 0)
        return 2;
    char tmp[4200];
    const char *why = tdb_out_unwritable(output, tmp, sizeof tmp);
    if (why) { /* said before the database is read */
        fprintf(cli->io.err, "%s: cannot write %s: %s\n", cli->io.prog, output, why);
        return 1;
    }
    if (tdb_out_same_file(output, argv[0]) || (baseline && tdb_out_same_file(output, baseline)) ||
        (chrome && tdb_out_same_file(output, chrome))) {
        fprintf(cli->io.err, "%s: %s is an input of this report; name another output\n", cli->io.prog, output);
        return 2;
    }
    FILE *probe = fopen(output, "r");
    if (probe && !force) {
        fclose(probe);
        fprintf(cli->io.err, "%s: %s already exists; use --force to replace it\n", cli->io.prog, output);
        return 2;
    }
    if (probe)
        fclose(probe);
    if (tdb_out_begin(output, tmp, sizeof tmp) != 0) {
        fprintf(cli->io.err, "%s: cannot name a temporary file beside %s\n", cli->io.prog, output);
        return 1;
    }
    FILE *f = tdb_out_fopen(tmp);
    int rc = f ? html_report(argv[0], &o, f, &cli->io) : 1;
    if (!f)
        fprintf(cli->io.err, "%s: cannot write %s: %s\n", cli->io.prog, output, tdb_out_reason(errno));
    if (f && fclose(f) != 0) {
        fprintf(cli->io.err, "%s: error writing %s: %s\n", cli->io.prog, output, tdb_out_reason(errno));
        rc = 1;
    }
    if (rc == 0)
        rc = tdb_out_commit(tmp, output, 1, cli->io.err) != 0;
    else
        tdb_out_discard(tmp);
    if (rc == 0)
        fprintf(cli->io.err, "%s: wrote %s (open it in any browser; it fetches nothing)\n", cli->io.prog, output);
    return rc;
}
