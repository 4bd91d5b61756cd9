/* seed_formats.c: RAF's and Furiosa's Chrome traces, read by their own writers' rules (seed_formats.h):
 * Furiosa's SDK export (furiosa-runtime's profiler: host spans of category Nux, labels of category
 * Runtime, NPU spans on track 10000000 + pe_index with pe_index, execution_index and, for instructions,
 * instruction_index in args) and RAF's profiler (B/E spans whose category and track are the VM's stream
 * name, args_string as its op_env cache key: input tensors, '|', outputs). */
#include "seed_formats.h"
#include "kinds.h"
#include <string.h>
#include <strings.h>

/* cat (n bytes) is lit (lower case) in any case */
static int ci_is(const char *a, size_t n, const char *lit)
{
    return n == strlen(lit) && strncasecmp(a, lit, n) == 0;
}

int64_t raf_stream(const char *cat, size_t n)
{
    if (n == 14 && memcmp(cat, "Default Stream", 14) == 0)
        return 0;
    if (n < 8 || n > 17 || memcmp(cat, "Stream ", 7) != 0)
        return -1;
    int64_t v = 0;
    for (size_t i = 7; i < n; i++) {
        if (cat[i] < '0' || cat[i] > '9')
            return -1;
        v = v * 10 + (cat[i] - '0');
    }
    return v;
}

int seed_kind(const char *cat, size_t n, const char *name, size_t name_n, int has_pe, int has_instruction)
{
    if (ci_is(cat, n, "npu") && has_pe) {
        if ((name_n == 4 && memcmp(name, "Load", 4) == 0) || (name_n == 5 && memcmp(name, "Store", 5) == 0))
            return TDB_KIND_MEMCPY;
        return has_instruction ? TDB_KIND_KERNEL : TDB_KIND_EXECUTION;
    }
    if (ci_is(cat, n, "nux"))
        return TDB_KIND_OP;
    if (n == 7 && memcmp(cat, "Runtime", 7) == 0)
        return TDB_KIND_RANGE;
    if (raf_stream(cat, n) >= 0)
        return TDB_KIND_KERNEL;
    return -1;
}

/* One "T<AxBx...xdtype>" at *p (before end), read past: into b its dims as a JSON list (mode 0), its
 * dtype as a JSON string (1) or nothing (2). 0, 1 (not that form), -1 (out of memory). */
static int raf_tensor(const char **p, const char *end, struct buf *b, int mode)
{
    const char *s = *p;
    if (end - s < 4 || s[0] != 'T' || s[1] != '<')
        return 1;
    s += 2;
    if (mode == 0 && buf_addc(b, '[') != 0)
        return -1;
    for (int first = 1;; first = 0) {
        const char *q = s;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
        if (q == s || q >= end || *q != 'x')
            break; /* not a dimension: the dtype */
        if (mode == 0 && ((!first && buf_addc(b, ',') != 0) || buf_add(b, s, (size_t)(q - s)) != 0))
            return -1;
        s = q + 1;
    }
    const char *q = s;
    while (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9')))
        q++;
    if (q == s || q >= end || *q != '>')
        return 1;
    if ((mode == 1 && buf_add_json_string(b, s, (size_t)(q - s)) != 0) || (mode == 0 && buf_addc(b, ']') != 0))
        return -1;
    *p = q + 1;
    return 0;
}

/* The inputs [s, bar) as one JSON list into b: their dims, or (types) their dtypes ("Tuple" for a tuple,
 * whose dims are a list of its tensors'). Every input ends with ','. 0, 1 (not that form), -1. */
static int raf_list(const char *s, const char *bar, struct buf *b, int types)
{
    if (buf_addc(b, '[') != 0)
        return -1;
    for (const char *p = s; p < bar; p++) { /* p++: past the input's ',' */
        int rc;
        if (p > s && buf_addc(b, ',') != 0)
            return -1;
        if (*p == '(') {
            p++;
            if (types ? buf_add(b, "\"Tuple\"", 7) != 0 : buf_addc(b, '[') != 0)
                return -1;
            for (int k = 0; p < bar && *p != ')'; k++, p++) { /* p++: past the tensor's ',' */
                if (!types && k && buf_addc(b, ',') != 0)
                    return -1;
                if ((rc = raf_tensor(&p, bar, b, types ? 2 : 0)) != 0)
                    return rc;
                if (p >= bar || *p != ',')
                    return 1;
            }
            if (p >= bar || (!types && buf_addc(b, ']') != 0))
                return p >= bar ? 1 : -1;
            p++;
        } else if ((rc = raf_tensor(&p, bar, b, types)) != 0) {
            return rc;
        }
        if (p >= bar || *p != ',')
            return 1;
    }
    return buf_addc(b, ']') != 0 ? -1 : 0;
}

int raf_input_args(const char *s, size_t n, struct buf *b)
{
    const char *bar = memchr(s, '|', n); /* "|outputs": an op of no inputs, [] as PyTorch's are */
    if (!bar)
        return 1;
    size_t mark = b->n;
    int rc = buf_add(b, ",\"Input Dims\":", 14) != 0 ? -1 : raf_list(s, bar, b, 0);
    if (rc == 0)
        rc = buf_add(b, ",\"Input type\":", 14) != 0 ? -1 : raf_list(s, bar, b, 1);
    if (rc != 0)
        b->n = mark;
    return rc;
}
