// cuda_counts.cu: a CUDA program whose GPU work is known in advance, for checking `tracedb record`
// on a real GPU (tests/gpu/check.sh). It prints what it launched as one line of "name=count" pairs;
// the check compares the recording with that line and with CUPTI's own count (tests/gpu/cupti_count.c).
//   cuda_counts            the mixed workload: kernels on three streams, a templated kernel, a CUDA
//                          graph replayed, copies of every direction, memsets, NVTX ranges
//   cuda_counts --burst N  N empty kernels launched back to back (the recorder's rate, with no drop)
//   cuda_counts --nosync   20 kernels of ~10 ms each, and exit without waiting for them
//   cuda_counts --threads T  T host threads, each in its own NVTX range launching 1000 fill kernels
//                          on its own stream
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
    nvtxRangePushA("burst");
    for (long i = 0; i < n; i++)
        empty_kernel<<<1, 1, 0, s>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    nvtxRangePop();
    fprintf(stderr, "cuda_counts: %ld launches and their completion in %.3f s\n", n, now() - t0);
    CHECK(cudaStreamDestroy(s));
    printf("empty_kernel=%ld nvtx=1\n", n);
    return 0;
}

static void thread_work(int t, float *a, int n)
{
    char name[32];
    snprintf(name, sizeof name, "thread %d", t);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    nvtxRangePushA(name);
    for (int i = 0; i < 1000; i++)
        fill<<<(n + 255) / 256, 256, 0, s>>>(a, (float)t, n);
    CHECK(cudaStreamSynchronize(s));
    nvtxRangePop();
    CHECK(cudaStreamDestroy(s));
}

static int threads(int t)
{
    const int n = 1 << 16;
    float *a;
    CHECK(cudaMalloc(&a, (size_t)n * t * sizeof(float)));
    std::vector<std::thread> pool;
    for (int i = 0; i < t; i++)
        pool.emplace_back(thread_work, i, a + (size_t)n * i, n);
    for (auto &th : pool)
        th.join();
    CHECK(cudaFree(a));
    printf("fill=%d threads=%d\n", 1000 * t, t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--burst") == 0)
        return burst(atol(argv[2]));
    if (argc == 2 && strcmp(argv[1], "--nosync") == 0) { /* main returns with the GPU still busy */
        for (int i = 0; i < 20; i++)
            spin<<<1, 1>>>(20000000);
        CHECK(cudaGetLastError());
        printf("spin=20\n");
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--threads") == 0)
        return threads(atoi(argv[2]));
    const int n = 1 << 20, threads = 256, blocks = (n + threads - 1) / threads;
    const size_t bytes = (size_t)n * sizeof(float);
    float *a, *b, *c, *host, *pinned;
    cudaStream_t s1, s2;

    nvtxRangePushA("setup");
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

    nvtxRangePushA("copy_in");
    for (int i = 0; i < 4; i++) /* pageable, synchronous */
        CHECK(cudaMemcpy(i % 2 ? a : b, host, bytes, cudaMemcpyHostToDevice));
    for (int i = 0; i < 2; i++) /* pinned, asynchronous */
        CHECK(cudaMemcpyAsync(c, pinned, bytes, cudaMemcpyHostToDevice, s1));
    CHECK(cudaMemset(a, 0, bytes));
    CHECK(cudaMemset(b, 0, bytes));
    CHECK(cudaMemset(c, 0, bytes));
    CHECK(cudaMemsetAsync(a, 0, bytes, s2));
    CHECK(cudaMemsetAsync(b, 0, bytes, s2));
    CHECK(cudaDeviceSynchronize());
    nvtxRangePop();

    nvtxRangePushA("compute");
    for (int i = 0; i < 100; i++)
        fill<<<blocks, threads, 0, s1>>>(a, 1.0f, n);
    for (int i = 0; i < 50; i++)
        axpy<<<blocks, threads, 0, s2>>>(b, c, 2.0f, n);
    for (int i = 0; i < 25; i++)
        scale<<<blocks, threads>>>(c, 0.5f, n);
    for (int i = 0; i < 10; i++)
        tmpl_kernel<3><<<blocks, threads, 0, s1>>>(a, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    nvtxRangePop();

    nvtxRangePushA("graph");
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 5; i++)
        graph_step<<<blocks, threads, 0, s1>>>(a, n);
    CHECK(cudaStreamEndCapture(s1, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 4; i++)
        CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    nvtxRangePop();

    nvtxRangePushA("copy_out");
    for (int i = 0; i < 3; i++)
        CHECK(cudaMemcpy(host, a, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 2; i++)
        CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
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
    /* what the recording must hold: kernels by name, copies by direction, memsets, NVTX ranges,
     * cudaLaunchKernel calls: 185 launches, and the 5 made while the stream was captured into the graph */
    printf("fill=100 axpy=50 scale=25 tmpl_kernel=10 graph_step=20 kernels=205 htod=6 dtoh=3 dtod=2 memset=5 "
           "nvtx=5 cudaLaunchKernel=190 cudaGraphLaunch=4\n");
    return 0;
}
