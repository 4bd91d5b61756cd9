/* nvtx_sample.c: a program that uses NVTX (nvtx3, header-only) the ways real code does, recorded by
 * `tracedb record` through NVTX_INJECTION64_PATH with no tracedb code in it:
 *   train (push/pop) > step#1, step#2 (push/pop) > "aten::mm, seq = ..." (PyTorch emit_nvtx style)
 *   and a domain range, a mark, a start/end range that ends on another thread, and a default-domain
 *   range ("epoch") popped while a domain range ("lib call") begun inside it is still open: each
 *   domain has its own range stack, so that pop ends "epoch". */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <time.h>

static void spin_us(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static void *ender(void *arg)
{
    spin_us(200);
    nvtxRangeEnd(*(nvtxRangeId_t *)arg);
    return NULL;
}

int main(void)
{
    nvtxDomainHandle_t domain = nvtxDomainCreateA("sample.domain");
    nvtxRangePushA("train");
    for (int step = 1; step <= 2; step++) {
        nvtxRangePushA(step == 1 ? "step#1" : "step#2");
        nvtxRangePushA("aten::mm, seq = 3, op_id = 7, sizes = [[2, 3], [3, 4]]");
        spin_us(300);
        nvtxRangePop();
        nvtxEventAttributes_t a = {0};
        a.version = NVTX_VERSION;
        a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = "optimizer";
        nvtxDomainRangePushEx(domain, &a);
        spin_us(100);
        nvtxDomainRangePop(domain);
        nvtxRangePop();
    }
    nvtxMarkA("checkpoint");
    nvtxRangePushA("epoch");
    nvtxEventAttributes_t b = {0};
    b.version = NVTX_VERSION;
    b.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    b.messageType = NVTX_MESSAGE_TYPE_ASCII;
    b.message.ascii = "lib call";
    nvtxDomainRangePushEx(domain, &b);
    spin_us(50);
    nvtxRangePop(); /* epoch */
    spin_us(50);
    nvtxDomainRangePop(domain); /* lib call */
    nvtxRangeId_t id = nvtxRangeStartA("async load");
    pthread_t t;
    pthread_create(&t, NULL, ender, &id);
    pthread_join(t, NULL);
    nvtxRangePop(); /* train */
    return 0;
}
