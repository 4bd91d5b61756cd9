/* test_kernel_ops.c: each GPU row's operator (the kernels, memcpy and memset views' op_id: the nearest
 * operator above its launch call) and the docs' "operators that launched the most GPU time" query, against
 * the GPU time per operator worked out from the trace's JSON alone (tests/kernel_ops_check.py). */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* On four real traces, trace_diff_test's NCCL kernels among them: their launch calls sit under ranges
 * (nccl:all_to_all) inside record_param_comms; the launch call's parent alone missed 37% of the GPU time. */
Test(kernel_ops, gpu_time_per_operator_equals_the_jsons, .timeout = 300)
{
    static const char *const traces[] = {"trace_diff_test_test", "trace_diff_control_control", "nccl_parser_config_nccl_data",
                                         "critical_path_alexnet_trace"};
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        char rel[256], *dir;
        snprintf(rel, sizeof rel, "tests/data/kineto/%s.json.gz", traces[i]);
        char *db = imported(rel, &dir);
        int st;
        char *out = run_capture(&st, "/usr/bin/python3 '%s' '%s' '%s' '%s' 2>&1", src_path("tests/kernel_ops_check.py"), db,
                                src_path(rel), src_path("docs/database.md"));
        cr_assert_eq(st, 0, "%s: %s", traces[i], out);
        cr_assert(strstr(out, " 0 failures"), "%s: %s", traces[i], out);
        free(out);
        cleanup(dir, db);
    }
}
