/* flops.c: tdb_flops(name, args), the SQL function that gives an operator event's floating-point
 * operations from its recorded input shapes, with PyTorch's formulas (torch/csrc/profiler/util.cpp):
 *   aten::mm 2*M*K*N; aten::addmm the same on inputs 1 and 2; aten::bmm / baddbmm times the batch;
 *   aten::conv2d 2 * N * Cout * Hout * Wout * (Cin/groups) * kH * kW, with stride, padding, dilation
 *   and groups from "Concrete Inputs"; aten::mul, aten::add one per element of input 0 (PyTorch's own rule,
 *   broadcasting aside). Those seven names alone: PyTorch has no formula for any other (mul_, add_, ...).
 * NULL when the operator has no formula or its args lack what the formula needs (never a guess). */
#include "sqlfuncs.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* dims[i] as up to 8 integers; returns the count, or -1 when it is not a list of numbers. */
static int flops_dims(const cJSON *dims, int i, int64_t out[8])
{
    const cJSON *d = cJSON_GetArrayItem(dims, i);
    if (!cJSON_IsArray(d))
        return -1;
    int n = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, d)
    {
        if (!cJSON_IsNumber(x) || n == 8 || !(x->valuedouble >= 0 && x->valuedouble <= 9.2e18))
            return -1; /* no tensor has such a dimension: not converted (1e300 would be undefined) */
        out[n++] = (int64_t)x->valuedouble;
    }
    return n;
}

/* The k-th integer in a Concrete Inputs string such as "[2, 2]" or "1"; fallback when absent. */
static int64_t flops_concrete(const cJSON *concrete, int i, int k, int64_t fallback, int *ok)
{
    const cJSON *c = cJSON_GetArrayItem(concrete, i);
    if (!cJSON_IsString(c) || !c->valuestring[0]) {
        *ok = 0;
        return fallback;
    }
    const char *p = c->valuestring;
    int64_t v = fallback;
    for (int j = 0; j <= k; j++) {
        while (*p && (*p < '0' || *p > '9') && *p != '-')
            p++;
        if (!*p)
            return v; /* "[2]" for both dimensions */
        char *end;
        v = strtoll(p, &end, 10);
        p = end;
    }
    return v;
}

static double flops_of(const char *name, const cJSON *args)
{
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(args, "Input Dims");
    if (!cJSON_IsArray(dims))
        return -1;
    int64_t a[8], b[8];
    int na, nb;
    if (strcmp(name, "aten::mm") == 0 || strcmp(name, "aten::addmm") == 0) {
        int off = name[6] == 'a'; /* addmm: bias first */
        if ((na = flops_dims(dims, off, a)) != 2 || (nb = flops_dims(dims, off + 1, b)) != 2)
            return -1;
        return 2.0 * (double)a[0] * (double)a[1] * (double)b[1];
    }
    if (strcmp(name, "aten::bmm") == 0 || strcmp(name, "aten::baddbmm") == 0) {
        int off = name[6] == 'b' && name[7] == 'a';
        if ((na = flops_dims(dims, off, a)) != 3 || (nb = flops_dims(dims, off + 1, b)) != 3)
            return -1;
        return 2.0 * (double)a[0] * (double)a[1] * (double)a[2] * (double)b[2];
    }
    if (strcmp(name, "aten::conv2d") == 0) {
        const cJSON *concrete = cJSON_GetObjectItemCaseSensitive(args, "Concrete Inputs");
        if ((na = flops_dims(dims, 0, a)) != 4 || (nb = flops_dims(dims, 1, b)) != 4 || !cJSON_IsArray(concrete))
            return -1;
        int ok = 1, ok_groups = 1;
        int64_t sh = flops_concrete(concrete, 3, 0, 1, &ok), sw = flops_concrete(concrete, 3, 1, 1, &ok);
        int64_t ph = flops_concrete(concrete, 4, 0, 0, &ok), pw = flops_concrete(concrete, 4, 1, 0, &ok);
        int64_t dh = flops_concrete(concrete, 5, 0, 1, &ok), dw = flops_concrete(concrete, 5, 1, 1, &ok);
        flops_concrete(concrete, 6, 0, 1, &ok_groups);
        if (!ok || !ok_groups || sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0)
            return -1; /* without stride/padding/dilation/groups the output size is unknown */
        /* in double: hostile sizes and paddings must not overflow (exact, as C's division, for real sizes) */
        double hout = trunc(((double)a[2] + 2.0 * (double)ph - (double)dh * ((double)b[2] - 1) - 1) / (double)sh) + 1;
        double wout = trunc(((double)a[3] + 2.0 * (double)pw - (double)dw * ((double)b[3] - 1) - 1) / (double)sw) + 1;
        /* weight is [Cout, Cin/groups, kH, kW]: b[1] already is Cin/groups */
        return 2.0 * (double)a[0] * (double)b[0] * hout * wout * (double)b[1] * (double)b[2] *
               (double)b[3];
    }
    if (strcmp(name, "aten::mul") == 0 || strcmp(name, "aten::add") == 0) {
        /* PyTorch's rule: the elements of input 0 (not the broadcast output: [16, 1] * [16, 64] is 16), when
         * input 0 is a tensor (a 0-dim one counts 1; a Scalar has no formula). In-place mul_ and add_ have
         * none in PyTorch either. */
        const cJSON *types = cJSON_GetObjectItemCaseSensitive(args, "Input type");
        const cJSON *t0 = cJSON_GetArrayItem(types, 0);
        if (cJSON_IsString(t0) && (!t0->valuestring[0] || strcmp(t0->valuestring, "Scalar") == 0 ||
                                   strstr(t0->valuestring, "List")))
            return -1;
        if ((na = flops_dims(dims, 0, a)) < 0)
            return -1;
        double e = 1;
        for (int k = 0; k < na; k++)
            e *= (double)a[k];
        return e;
    }
    return -1;
}

static void flops_sql(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    const char *args = (const char *)sqlite3_value_text(argv[1]);
    if (!name || !args) {
        sqlite3_result_null(ctx);
        return;
    }
    cJSON *j = cJSON_Parse(args);
    double f = j ? flops_of(name, j) : -1;
    cJSON_Delete(j);
    if (!(f >= 0)) /* unknown (or NaN from absurd sizes) */
        sqlite3_result_null(ctx);
    else if (f < 9.2e18)
        sqlite3_result_int64(ctx, (sqlite3_int64)f);
    else /* past int64 (hostile sizes): the double, never an undefined conversion */
        sqlite3_result_double(ctx, f);
}

int tdb_register_flops(sqlite3 *db)
{
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS; /* pure: safe in any view */
    return sqlite3_create_function(db, "tdb_flops", 2, flags, NULL, flops_sql, NULL, NULL) == SQLITE_OK ? 0 : -1;
}
