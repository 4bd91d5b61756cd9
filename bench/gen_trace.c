/* gen_trace.c: writes a Kineto-shaped Chrome trace of a requested size for benchmarks, with the shape
 * of real PyTorch GPU traces: ProfilerStep#N ranges holding nested cpu_ops (3 deep), each leaf op
 * launching a kernel (cudaLaunchKernel with a correlation, the kernel on a GPU stream with launch
 * geometry, ac2g flows), memcpy with bytes, [memory] alloc/free instants, fractional-ns timestamps.
 * Events come in time order per track; with --kineto-order they come in the order PyTorch's profiler
 * writes them: every CPU op and range first, then the [memory] instants, then the GPU activity as
 * CUPTI hands it over (each kernel and its flow end before the launch and its flow start), so CPU
 * tracks arrive as sorted runs far apart and kernels before their launches. Two more layouts of the
 * real traces in tests/data/kineto, the same events again (only the order differs):
 *   --real-order: PyTorch's order with the GPU activity as CUPTI's buffers come out of Kineto, not in
 *     time order: from the kernel at a third of that section on to its end, then its first third (the
 *     GPU section goes back in time once on each track, as in negative_queue and df_index_resolver);
 *   --flows-apart: PyTorch's order with all the device's activity (each kernel with its flow end, the
 *     memcpys) before all the runtime calls (each launch with its flow start), as in the MTIA trace:
 *     the halves of every ac2g flow, and each kernel and its launch, a section apart.
 * With --nested N instead: N operators nested on one thread (operator i at i us for 2N - 2i us, names
 * aten::op_0 to _4 in turn), every tenth launching a kernel from the last us it holds alone: the shape
 * where walking up the parents from every event costs O(N^2).
 * The shapes whose memory the import must bound (docs/performance.md): --never-ended N, N nested B events
 * never ended, all named range (event i at i us); --never-ended-distinct N, the same named range_<i>;
 * --distinct-names N, N complete events of 1 us named range_<i>, one after another.
 * Usage: gen_trace MEGABYTES [--kineto-order | --real-order | --flows-apart] > trace.json
 *        (deterministic for a given size and order)
 *        gen_trace --nested N > trace.json
 *        gen_trace --never-ended N | --never-ended-distinct N | --distinct-names N > trace.json */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static const char *ops[] = {"aten::linear", "aten::conv2d", "aten::add", "aten::mul", "aten::relu",
                            "aten::batch_norm", "aten::layer_norm", "aten::softmax", "aten::matmul", "aten::copy_"};
static const char *kernels[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
    "ampere_sgemm_128x64_tn", "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16",
    "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*)",
    "void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10, false>(float*, float const*, int, int, int)",
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"};

static int nested(long long n)
{
    printf("{\"traceEvents\": [\n");
    for (long long i = 0; i < n; i++) {
        printf("%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op_%lld\", \"pid\": 1, \"tid\": 1, \"ts\": %lld, "
               "\"dur\": %lld}", i ? ",\n" : "", i % 5, i, 2 * n - 2 * i);
        if (i % 10 == 0)
            printf(",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
                   "\"ts\": %lld.250, \"dur\": 0.500, \"args\": {\"correlation\": %lld}},\n"
                   "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %lld, \"dur\": 0.500, "
                   "\"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %lld}}",
                   2 * n - i - 1, i + 1, 2 * n + 10 + i, i + 1);
    }
    printf("\n]}\n");
    return 0;
}

/* One of the shapes whose memory the import must bound: N events, each on its own line. */
static int shape(const char *which, long long n)
{
    int distinct = strcmp(which, "--never-ended") != 0, complete = strcmp(which, "--distinct-names") == 0;
    printf("{\"traceEvents\":[\n");
    for (long long i = 0; i < n; i++) {
        printf("{\"ph\":\"%s\",%s\"name\":\"range", complete ? "X" : "B", complete ? "\"dur\":1," : "");
        if (distinct)
            printf("_%lld", i);
        printf("\",\"pid\":1,\"tid\":1,\"ts\":%lld}%s\n", i, i + 1 < n ? "," : "");
    }
    printf("]}\n");
    return 0;
}

/* Copies f's bytes [from, to) to stdout (to -1: to its end). */
static int copy(FILE *f, long from, long to)
{
    char b[1 << 16];
    if (fseek(f, from, SEEK_SET) != 0)
        return -1;
    for (long left = to < 0 ? -1 : to - from; left != 0;) {
        size_t want = left < 0 || left > (long)sizeof b ? sizeof b : (size_t)left;
        size_t got = fread(b, 1, want, f);
        if (got == 0)
            break;
        fwrite(b, 1, got, stdout);
        if (left > 0)
            left -= (long)got;
    }
    return ferror(f) ? -1 : 0;
}

/* The GPU section as Kineto writes CUPTI's buffers (--real-order): from the first kernel at a third of
 * it on to its end, then the part before that kernel. Every event is written whole, each on its line
 * with its separator ahead of it. */
static int rotated(FILE *gpu)
{
    static const char kernel[] = ",\n{\"ph\": \"X\", \"cat\": \"kernel\"";
    if (fseek(gpu, 0, SEEK_END) != 0)
        return -1;
    long size = ftell(gpu), cut = size / 3, matched = 0;
    if (size < 0 || fseek(gpu, cut, SEEK_SET) != 0)
        return -1;
    /* (a match can only begin at the pattern's one ",\n": on a mismatch, at the character read) */
    for (int c; kernel[matched] && (c = getc(gpu)) != EOF;) {
        matched = c == kernel[matched] ? matched + 1 : c == kernel[0];
        cut++;
    }
    cut = kernel[matched] ? size : cut - (long)(sizeof kernel - 1); /* no kernel after it: as it is */
    return copy(gpu, cut, -1) != 0 || copy(gpu, 0, cut) != 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--nested") == 0)
        return nested(atoll(argv[2]));
    if (argc > 2 && (strcmp(argv[1], "--never-ended") == 0 || strcmp(argv[1], "--never-ended-distinct") == 0 ||
                     strcmp(argv[1], "--distinct-names") == 0))
        return shape(argv[1], atoll(argv[2]));
    long long target = (argc > 1 ? atoll(argv[1]) : 300) * 1000000LL, written = 0;
    const char *orders[] = {"", "--kineto-order", "--real-order", "--flows-apart"};
    int order = 0; /* the index in orders */
    while (argc > 2 && order < 4 && strcmp(argv[2], orders[order]) != 0)
        order++;
    if (order == 4 || argc > 3) {
        fprintf(stderr, "gen_trace: unknown order %s (--kineto-order, --real-order or --flows-apart)\n", argv[2]);
        return 2;
    }
    int kineto = order != 0; /* the CPU's events first, then the [memory] instants, then the GPU's */
    FILE *cpu = stdout, *mem = kineto ? tmpfile() : stdout, *gpu = kineto ? tmpfile() : stdout;
    FILE *runtime = order == 3 ? tmpfile() : kineto ? gpu : cpu; /* the launches and their flow starts */
    if (!mem || !gpu || !runtime) {
        perror("gen_trace: tmpfile");
        return 1;
    }
    long long t = 1000000; /* ns since the trace base */
    long long corr = 1, ext = 1, step = 0;
    int n;
    written += printf("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100\", "
                      "\"totalGlobalMem\": 42297524224, \"numSms\": 108}],\n  \"distributedInfo\": {\"rank\": 0, "
                      "\"world_size\": 1},\n  \"traceEvents\": [\n");
    const char *sep = "";
#define EV(out, ...) (n = fprintf(out, __VA_ARGS__), written += n)
    while (written < target) {
        long long step_start = t;
        long long ops_in_step = 200;
        long long step_dur = ops_in_step * 40000 + 5000;
        EV(cpu, "%s{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%lld\", \"pid\": 1000, \"tid\": 1000, "
           "\"ts\": %lld.%03lld, \"dur\": %lld.%03lld, \"args\": {\"External id\": %lld}}",
           sep, step++, t / 1000, t % 1000, step_dur / 1000, step_dur % 1000, ext++);
        sep = ",\n";
        t += 1000;
        for (long long i = 0; i < ops_in_step; i++) {
            const char *op = ops[rnd(10)];
            long long o = t;
            EV(cpu, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1000, \"tid\": 1000, \"ts\": %lld.%03lld, "
               "\"dur\": 38.%03u, \"args\": {\"External id\": %lld, \"Sequence number\": %lld, \"Fwd thread id\": 0, "
               "\"Input Dims\": [[32, 128], [128]], \"Input type\": [\"float\", \"float\"], \"Ev Idx\": %lld}}",
               sep, op, o / 1000, o % 1000, rnd(1000), ext, i, ext + 1);
            ext++;
            EV(cpu, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty\", \"pid\": 1000, \"tid\": 1000, "
               "\"ts\": %lld.%03lld, \"dur\": 2.%03u, \"args\": {\"External id\": %lld, \"Ev Idx\": %lld}}",
               sep, (o + 1000) / 1000, (o + 1000) % 1000, rnd(1000), ext, ext + 1);
            ext++;
            long long launch = o + 5000;
            long long k = launch + 8000;
            /* drawn in one order whatever the order written: both orders hold the same events */
            unsigned launch_frac = rnd(1000), kernel = rnd(6), kernel_us = 5 + rnd(30), kernel_frac = rnd(1000);
            unsigned grid = 1 + rnd(512);
            for (int half = 0; half < 2; half++) { /* the launch first, or (Kineto's order) the kernel */
                if (half == kineto) {
                    EV(runtime, "%s{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                       "\"pid\": 1000, \"tid\": 1000, \"ts\": %lld.%03lld, \"dur\": 6.%03u, \"args\": {\"External id\": %lld, "
                       "\"cbid\": 211, \"correlation\": %lld}}", sep, launch / 1000, launch % 1000, launch_frac, ext, corr);
                    EV(runtime, "%s{\"ph\": \"s\", \"id\": %lld, \"pid\": 1000, \"tid\": 1000, \"ts\": %lld.%03lld, "
                       "\"cat\": \"ac2g\", \"name\": \"ac2g\"}", sep, corr, launch / 1000, launch % 1000);
                    continue;
                }
                EV(gpu, "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %lld.%03lld, "
                   "\"dur\": %u.%03u, \"args\": {\"External id\": %lld, \"queued\": 0, \"device\": 0, \"context\": 1, "
                   "\"stream\": 7, \"correlation\": %lld, \"registers per thread\": 32, \"shared memory\": 0, "
                   "\"blocks per SM\": 0.3, \"warps per SM\": 1.2, \"grid\": [%u, 1, 1], \"block\": [128, 1, 1], "
                   "\"est. achieved occupancy %%\": 2}}",
                   sep, kernels[kernel], k / 1000, k % 1000, kernel_us, kernel_frac, ext, corr, grid);
                EV(gpu, "%s{\"ph\": \"f\", \"id\": %lld, \"pid\": 0, \"tid\": 7, \"ts\": %lld.%03lld, \"cat\": \"ac2g\", "
                   "\"name\": \"ac2g\", \"bp\": \"e\"}", sep, corr, k / 1000, k % 1000);
            }
            corr++, ext++;
            if (i % 4 == 0) {
                long long m = o + 20000;
                EV(mem, "%s{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1000, "
                   "\"tid\": 1000, \"ts\": %lld.%03lld, \"args\": {\"Total Reserved\": 2097152000, \"Total Allocated\": %lld, "
                   "\"Bytes\": %d, \"Addr\": %lld, \"Device Id\": 0, \"Device Type\": 1, \"Ev Idx\": %lld}}",
                   sep, m / 1000, m % 1000, 1000000000LL + (i % 8) * 4096, (i % 8) < 4 ? 4096 : -4096,
                   140000000000LL + (i % 4) * 4096, ext);
            }
            if (i % 20 == 0) {
                long long c = o + 25000;
                EV(gpu, "%s{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", \"pid\": 0, "
                   "\"tid\": 7, \"ts\": %lld.%03lld, \"dur\": 3.%03u, \"args\": {\"External id\": %lld, \"device\": 0, "
                   "\"context\": 1, \"stream\": 7, \"correlation\": %lld, \"bytes\": 524288, "
                   "\"memory bandwidth (GB/s)\": 170.2}}", sep, c / 1000, c % 1000, rnd(1000), ext, corr + 1000000000LL);
            }
            t += 40000;
        }
        t = step_start + step_dur + 2000;
    }
    if (kineto && (copy(mem, 0, -1) != 0 || (order == 2 ? rotated(gpu) : copy(gpu, 0, -1)) != 0 ||
                   (order == 3 && copy(runtime, 0, -1) != 0))) { /* the later sections, after the CPU's */
        perror("gen_trace: a section");
        return 1;
    }
    printf("\n  ],\n  \"traceName\": \"bench\",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1700000000000000000\n}\n");
    return 0;
}
