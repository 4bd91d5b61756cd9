// cuda_counts.cu: a CUDA program whose GPU work is known in advance, for checking `tracedb record`
// on a real GPU (tests/gpu/check.sh). It prints what it launched as one line of "name=count" pairs,
// each a counter the program kept as it made the calls (a launch, a copy, a memset, a graph launch and
// the kernels its graph holds, an NVTX push), printed only when every call succeeded; the check compares
// the recording with that line and with CUPTI's own count (tests/gpu/cupti_count.c).
//   cuda_counts            the mixed workload: kernels on three streams, a templated kernel, a CUDA
//                          graph replayed, copies of every direction, memsets, NVTX ranges
//   cuda_counts --burst N  N empty kernels launched back to back (the recorder's rate, with no drop)
//   cuda_counts --nosync   20 kernels of ~10 ms each, and exit without waiting for them
//   cuda_counts --threads T  T host threads, each in its own NVTX range launching 1000 fill kernels
//                          on its own stream (fill_thread_I=N: thread I's own count)
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <time.h>
#include <vector>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t err_ = (x);                                                                    \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "cuda_counts: %s: %s\n", #x, cudaGetErrorString(err_));                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* What the program did, counted as it did it (the main thread's; --threads counts per thread) */
static struct {
    long fill, axpy, scale, tmpl_kernel, graph_step, empty_kernel, spin; /* kernels run, by name */
    long kernels;                                                       /* all of them */
    long cudaLaunchKernel, cudaGraphLaunch;                             /* the calls made */
    long htod, dtoh, dtod, memset, nvtx;
} counted;

/* A kernel launch: its calls and, unless the stream is being captured into a graph, its kernel */
#define LAUNCH(counter, capturing, kernel, grid, block, stream, ...)                                  \
    do {                                                                                           \
        kernel<<<grid, block, 0, stream>>>(__VA_ARGS__);                                           \
        counted.cudaLaunchKernel++;                                                                \
        if (!(capturing))                                                                          \
            counted.counter++, counted.kernels++;                                                  \
    } while (0)

static void push(const char *name)
{
    nvtxRangePushA(name);
    counted.nvtx++;
}

static void copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s, bool async)
{
    if (async)
        CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
    else
        CHECK(cudaMemcpy(dst, src, bytes, kind));
    if (kind == cudaMemcpyHostToDevice)
        counted.htod++;
    else if (kind == cudaMemcpyDeviceToHost)
        counted.dtoh++;
    else if (kind == cudaMemcpyDeviceToDevice)
        counted.dtod++;
}

static void set(void *dst, size_t bytes, cudaStream_t s, bool async)
{
    if (async)
        CHECK(cudaMemsetAsync(dst, 0, bytes, s));
    else
        CHECK(cudaMemset(dst, 0, bytes));
    counted.memset++;
}

/* The kernel nodes a graph holds, as the graph itself lists them */
static long graph_kernels(cudaGraph_t graph)
{
    size_t n = 0;
    CHECK(cudaGraphGetNodes(graph, NULL, &n));
    std::vector<cudaGraphNode_t> nodes(n);
    CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
    long k = 0;
    for (size_t i = 0; i < n; i++) {
        cudaGraphNodeType type;
        CHECK(cudaGraphNodeGetType(nodes[i], &type));
        k += type == cudaGraphNodeTypeKernel;
    }
    return k;
}

__global__ void fill(float *a, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = v;
}

__global__ void axpy(float *y, const float *x, float alpha, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += alpha * x[i];
}

__global__ void scale(float *a, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] *= s;
}

template <int K> __global__ void tmpl_kernel(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] += K;
}

__global__ void graph_step(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] * 0.5f + 1.0f;
}

__global__ void empty_kernel(void) {}

__global__ void spin(long long cycles)
{
    long long t = clock64();
    while (clock64() - t < cycles) {
    }
}

static int burst(long n)
{
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaFree(0));
    double t0 = now();
    push("burst");
    for (long i = 0; i < n; i++)
        LAUNCH(empty_kernel, false, empty_kernel, 1, 1, s);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    nvtxRangePop();
    fprintf(stderr, "cuda_counts: %ld launches and their completion in %.3f s\n", counted.empty_kernel, now() - t0);
    CHECK(cudaStreamDestroy(s));
    printf("empty_kernel=%ld kernels=%ld cudaLaunchKernel=%ld nvtx=%ld\n", counted.empty_kernel, counted.kernels,
           counted.cudaLaunchKernel, counted.nvtx);
    return 0;
}

/* One host thread's launches, counted by the thread itself (counted is the main thread's) */
static void thread_work(int t, float *a, int n, long *launched)
{
    char name[32];
    snprintf(name, sizeof name, "thread %d", t);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    nvtxRangePushA(name);
    for (int i = 0; i < 1000; i++) {
        fill<<<(n + 255) / 256, 256, 0, s>>>(a, (float)t, n);
        (*launched)++;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    nvtxRangePop();
    CHECK(cudaStreamDestroy(s));
}

static int threads(int t)
{
    const int n = 1 << 16;
    float *a;
    CHECK(cudaMalloc(&a, (size_t)n * t * sizeof(float)));
    std::vector<long> launched(t, 0);
    std::vector<std::thread> pool;
    for (int i = 0; i < t; i++)
        pool.emplace_back(thread_work, i, a + (size_t)n * i, n, &launched[i]);
    for (auto &th : pool)
        th.join();
    CHECK(cudaFree(a));
    long fills = 0;
    for (int i = 0; i < t; i++)
        fills += launched[i];
    printf("fill=%ld threads=%zu", fills, pool.size());
    for (int i = 0; i < t; i++)
        printf(" fill_thread_%d=%ld", i, launched[i]);
    printf("\n");
    return 0;
}

static int nosync(void) /* main returns with the GPU still busy */
{
    for (int i = 0; i < 20; i++)
        LAUNCH(spin, false, spin, 1, 1, 0, 20000000);
    CHECK(cudaGetLastError());
    printf("spin=%ld\n", counted.spin);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--burst") == 0)
        return burst(atol(argv[2]));
    if (argc == 2 && strcmp(argv[1], "--nosync") == 0)
        return nosync();
    if (argc == 3 && strcmp(argv[1], "--threads") == 0)
        return threads(atoi(argv[2]));
    const int n = 1 << 20, threads = 256, blocks = (n + threads - 1) / threads;
    const size_t bytes = (size_t)n * sizeof(float);
    float *a, *b, *c, *host, *pinned;
    cudaStream_t s1, s2;

    push("setup");
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMalloc(&c, bytes));
    CHECK(cudaMallocHost(&pinned, bytes));
    host = (float *)malloc(bytes);
    for (int i = 0; i < n; i++)
        host[i] = pinned[i] = (float)i;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreate(&s2));
    nvtxRangePop();

    push("copy_in");
    for (int i = 0; i < 4; i++) /* pageable, synchronous */
        copy(i % 2 ? a : b, host, bytes, cudaMemcpyHostToDevice, 0, false);
    for (int i = 0; i < 2; i++) /* pinned, asynchronous */
        copy(c, pinned, bytes, cudaMemcpyHostToDevice, s1, true);
    set(a, bytes, 0, false);
    set(b, bytes, 0, false);
    set(c, bytes, 0, false);
    set(a, bytes, s2, true);
    set(b, bytes, s2, true);
    CHECK(cudaDeviceSynchronize());
    nvtxRangePop();

    push("compute");
    for (int i = 0; i < 100; i++)
        LAUNCH(fill, false, fill, blocks, threads, s1, a, 1.0f, n);
    for (int i = 0; i < 50; i++)
        LAUNCH(axpy, false, axpy, blocks, threads, s2, b, c, 2.0f, n);
    for (int i = 0; i < 25; i++)
        LAUNCH(scale, false, scale, blocks, threads, 0, c, 0.5f, n);
    for (int i = 0; i < 10; i++)
        LAUNCH(tmpl_kernel, false, tmpl_kernel<3>, blocks, threads, s1, a, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    nvtxRangePop();

    push("graph");
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 5; i++) /* launch calls made, no kernel run: captured */
        LAUNCH(graph_step, true, graph_step, blocks, threads, s1, a, n);
    CHECK(cudaStreamEndCapture(s1, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    long per_launch = graph_kernels(graph); /* all of them graph_step */
    for (int i = 0; i < 4; i++) {
        CHECK(cudaGraphLaunch(exec, s1));
        counted.cudaGraphLaunch++;
        counted.graph_step += per_launch, counted.kernels += per_launch;
    }
    CHECK(cudaStreamSynchronize(s1));
    nvtxRangePop();

    push("copy_out");
    for (int i = 0; i < 3; i++)
        copy(host, a, bytes, cudaMemcpyDeviceToHost, 0, false);
    for (int i = 0; i < 2; i++)
        copy(b, a, bytes, cudaMemcpyDeviceToDevice, 0, false);
    CHECK(cudaDeviceSynchronize());
    nvtxRangePop();

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    CHECK(cudaFreeHost(pinned));
    free(host);
    /* what the recording must hold: kernels by name, copies by direction, memsets, NVTX ranges, and the
     * launch calls (cudaLaunchKernel counts those made while the stream was captured into the graph) */
    printf("fill=%ld axpy=%ld scale=%ld tmpl_kernel=%ld graph_step=%ld kernels=%ld htod=%ld dtoh=%ld dtod=%ld "
           "memset=%ld nvtx=%ld cudaLaunchKernel=%ld cudaGraphLaunch=%ld graph_kernels=%ld\n",
           counted.fill, counted.axpy, counted.scale, counted.tmpl_kernel, counted.graph_step, counted.kernels,
           counted.htod, counted.dtoh, counted.dtod, counted.memset, counted.nvtx, counted.cudaLaunchKernel,
           counted.cudaGraphLaunch, per_launch);
    return 0;
}
