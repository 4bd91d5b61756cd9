/* test_kernel_ops.c: each GPU row's operator (the kernels, memcpy and memset views' op_id: the nearest
 * operator above its launch call) and the docs' "operators that launched the most GPU time" query, against
 * the GPU time per operator worked out from the trace's JSON alone (tests/kernel_ops_check.py); and
 * `tracedb ops`'s device rows (the GPU work's own, as PyTorch's key_averages() lists its device events)
 * against the JSON (tests/device_rows_check.py) and by hand. */
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

/* Every device row of `ops`, every way it groups (by name from the sums and from the events, shape,
 * stack, rank, step, one step's window), equals the count and summed duration of its name's kernel,
 * gpu_memcpy and gpu_memset events in the JSON, with CPU time and memory 0, and --no-device-rows leaves
 * the other rows as they are: alexnet (memcpy and memset, no steps), a sampled training step pair, and the
 * NCCL trace (fractional ns; its gpu_user_annotation events are no device rows here). */
Test(kernel_ops, device_rows_equal_the_jsons, .timeout = 300)
{
    static const char *const traces[] = {"critical_path_alexnet_trace", "timeline_analysis_sampled_rank-0",
                                         "nccl_parser_config_nccl_data"};
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        char rel[256], *dir;
        snprintf(rel, sizeof rel, "tests/data/kineto/%s.json.gz", traces[i]);
        char *db = imported(rel, &dir);
        int st;
        char *out = run_capture(&st, "/usr/bin/python3 '%s' '%s' '%s' '%s' 2>&1", src_path("tests/device_rows_check.py"),
                                tracedb(), db, src_path(rel));
        cr_assert_eq(st, 0, "%s: %s", traces[i], out);
        cr_assert(strstr(out, " 0 failures"), "%s: %s", traces[i], out);
        free(out);
        cleanup(dir, db);
    }
}

#define GPU_EV(name, cat, ts, dur, corr)                                                                             \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts ",\"dur\":" #dur      \
    ",\"args\":{\"correlation\":" #corr "}}"
#define CPU_EV(name, cat, ts, dur, corr)                                                                             \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur      \
    ",\"args\":{\"correlation\":" #corr "}}"

/* By hand: aten::mm [0,100] launches gemm (30 us), aten::copy_ [200,250] a memcpy (40 us); a second gemm
 * (10 us) and a kernel named aten::mm (6 us) have no launch call. PyTorch's rows for the device events:
 * gemm 2 calls 40 us, the memcpy 1 call 40 us, and aten::mm twice: the operator (1 call, 95 us self CPU,
 * 30 us self device) and the kernel (1 call, 6 us, no CPU time), its device type another key. Self CUDA %
 * is of every device event's time, 86 us (the operators' own device time, 70 us, is not the base): gemm
 * and the memcpy 40/86 = 46.51%, the kernel aten::mm 6/86 = 6.98%, the operator aten::mm 30/86 = 34.88%.
 * Sorted by self device time, ties by name: the memcpy, aten::copy_ (40 us launched) and gemm, then
 * aten::mm the operator (30 us), then the kernel (6 us). */
Test(kernel_ops, device_rows_by_hand)
{
    char *dir = temp_dir(), path[600], db[700];
    const char *trace =
        "{\"traceEvents\":[" CPU_EV("aten::mm", "cpu_op", 0, 100, 0) "," CPU_EV("cudaLaunchKernel", "cuda_runtime", 10, 5, 1) ","
        CPU_EV("aten::copy_", "cpu_op", 200, 50, 0) "," CPU_EV("cudaMemcpyAsync", "cuda_runtime", 210, 5, 2) ","
        GPU_EV("gemm", "kernel", 20, 30, 1) "," GPU_EV("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 220, 40, 2) ","
        GPU_EV("gemm", "kernel", 300, 10, 99) "," GPU_EV("aten::mm", "kernel", 400, 6, 98) "]}";
    snprintf(path, sizeof path, "%s/hand.json", dir), snprintf(db, sizeof db, "%s/hand.db", dir);
    write_file(path, trace, (long)strlen(trace));
    cr_assert_eq(import_to(path, db), 0);
    static const char *const ways[] = {"", "--from 0", "--group-by shape"};
    for (int w = 0; w < 3; w++) {
        int st;
        char *out = run_capture(&st, "'%s' ops '%s' %s --sort self_device_ns --format csv 2>/dev/null | cut -d, -f1-11",
                                tracedb(), db, ways[w]);
        cr_assert_eq(st, 0);
        cr_expect_str_eq(out,
                         "name,calls,self_cpu_ns,self_cpu_pct,cpu_total_ns,cpu_total_pct,cpu_avg_ns,self_device_ns,"
                         "self_device_pct,device_total_ns,device_avg_ns\n"
                         "Memcpy HtoD (Pageable -> Device),1,0,0,0,0,0,40000,46.51,40000,40000\n"
                         "aten::copy_,1,45000,30,50000,33.33,50000,40000,46.51,40000,40000\n"
                         "gemm,2,0,0,0,0,0,40000,46.51,40000,20000\n"
                         "aten::mm,1,95000,63.33,100000,66.67,100000,30000,34.88,30000,30000\n"
                         "aten::mm,1,0,0,0,0,0,6000,6.98,6000,6000\n"
                         "cudaLaunchKernel,1,5000,3.33,5000,3.33,5000,0,0,0,0\n"
                         "cudaMemcpyAsync,1,5000,3.33,5000,3.33,5000,0,0,0,0\n",
                         "ops %s", ways[w]);
        free(out);
        out = run_capture(&st, "'%s' ops '%s' %s --no-device-rows --format csv 2>/dev/null | cut -d, -f1,2,8,9", tracedb(), db,
                          ways[w]);
        cr_expect_str_eq(out,
                         "name,calls,self_device_ns,self_device_pct\naten::mm,1,30000,34.88\naten::copy_,1,40000,46.51\n"
                         "cudaLaunchKernel,1,0,0\ncudaMemcpyAsync,1,0,0\n",
                         "ops %s --no-device-rows", ways[w]);
        free(out);
        out = run_capture(&st, "'%s' ops '%s' %s --no-device-rows | tail -2", tracedb(), db, ways[w]);
        cr_expect_str_eq(out, "Self CPU time total: 150.000us\nSelf device time total: 86.000us\n", "%s", out);
        free(out);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* By step, GPU work goes to the step its launch call starts in (as `kernels --by-step`), else to the one
 * it starts in: k is launched in ProfilerStep#1 [0,100) by aten::mm and runs in #2 [100,200): #1's; k2,
 * no launch, runs in #2. Each step's device rows are 100% of its device time, and so is aten::mm's self
 * device time (k's 30 us) in #1. */
Test(kernel_ops, device_rows_by_step_follow_the_launch)
{
    char *dir = temp_dir(), path[600], db[700];
    const char *trace =
        "{\"traceEvents\":[" CPU_EV("ProfilerStep#1", "user_annotation", 0, 100, 0) ","
        CPU_EV("ProfilerStep#2", "user_annotation", 100, 100, 0) "," CPU_EV("aten::mm", "cpu_op", 10, 20, 0) ","
        CPU_EV("cudaLaunchKernel", "cuda_runtime", 15, 2, 1) "," GPU_EV("k", "kernel", 150, 30, 1) ","
        GPU_EV("k2", "kernel", 160, 10, 97) "]}";
    snprintf(path, sizeof path, "%s/steps.json", dir), snprintf(db, sizeof db, "%s/steps.db", dir);
    write_file(path, trace, (long)strlen(trace));
    cr_assert_eq(import_to(path, db), 0);
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' --by-step --sort self_device_ns --limit 2 --format csv | cut -d, -f1-3,9,10",
                            tracedb(), db);
    cr_assert_eq(st, 0);
    cr_expect_str_eq(out, "step,name,calls,self_device_ns,self_device_pct\nProfilerStep#1,aten::mm,1,30000,100\n"
                          "ProfilerStep#1,k,1,30000,100\nProfilerStep#2,k2,1,10000,100\nProfilerStep#2,ProfilerStep*,1,0,0\n");
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}
