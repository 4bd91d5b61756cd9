/* timeparse.c: decimal text -> integer nanoseconds, exactly.
 * Absolute Kineto times in ns exceed 2^53, so a double would round them; we shift the decimal point
 * on the digits instead. The same routine scales by 10^0 to read plain integers written as decimals. */
#include "timeparse.h"

/* value = digits * 10^(exp10 + scale), rounded half away from zero to an integer. */
static int decimal_scaled(const char *s, size_t n, int scale, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    unsigned char digits[64];
    int nd = 0, seen = 0, frac = 0, point = 0;
    long exp10 = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            seen = 1;
            if (point)
                frac++;
            if (nd == 0 && c == '0')
                continue; /* leading zero */
            if (nd < (int)sizeof digits)
                digits[nd++] = (unsigned char)(c - '0');
            else /* beyond 64 significant digits: only the magnitude matters */
                exp10++;
        } else if (c == '.' && !point) {
            point = 1;
        } else {
            break;
        }
    }
    if (!seen)
        return -1;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            eneg = s[i++] == '-';
        if (i >= n || s[i] < '0' || s[i] > '9')
            return -1;
        long e = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        exp10 += eneg ? -e : e;
    }
    if (i != n)
        return -1;
    long shift = exp10 - frac + scale; /* value = digits * 10^shift */
    int keep = nd;
    int round_up = 0;
    if (shift < 0) {
        long drop = -shift;
        if (drop > nd) { /* the first dropped digit is an implied leading zero */
            keep = 0;
        } else {
            keep = nd - (int)drop;
            round_up = digits[keep] >= 5;
        }
        shift = 0;
    }
    uint64_t v = 0;
    const uint64_t limit = (uint64_t)INT64_MAX + (uint64_t)neg;
    for (int k = 0; k < keep; k++) {
        if (v > (limit - digits[k]) / 10)
            return -2;
        v = v * 10 + digits[k];
    }
    for (long k = 0; k < shift && v != 0; k++) {
        if (v > limit / 10)
            return -2;
        v *= 10;
    }
    if (round_up) {
        if (v >= limit)
            return -2;
        v++;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* The common shapes, "123" and "123.456" with at most 3 decimals and 16 integer digits, without the
 * general path; anything else falls through to decimal_scaled. */
static int fast_us(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    uint64_t v = 0; /* at most 16 + 3 digits: below 2^64 */
    while (i < n && s[i] >= '0' && s[i] <= '9' && i < 16)
        v = v * 10 + (s[i++] - '0');
    if (i == 0)
        return -1;
    int frac = 0;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9' && frac < 3)
            v = v * 10 + (s[i++] - '0'), frac++;
        if (frac == 0)
            return -1;
    }
    if (i != n)
        return -1;
    for (; frac < 3; frac++)
        v *= 10;
    if (v > (uint64_t)INT64_MAX)
        return -1;
    *out = (int64_t)v;
    return 0;
}

int tdb_us_to_ns(const char *s, size_t n, int64_t *out)
{
    if (fast_us(s, n, out) == 0)
        return 0;
    return decimal_scaled(s, n, 3, out);
}

int tdb_parse_int(const char *s, size_t n, int64_t *out)
{
    if (n > 0 && n <= 18) { /* plain digits, optionally negative: no overflow possible */
        size_t i = s[0] == '-';
        int64_t v = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            v = v * 10 + (s[i++] - '0');
        if (i == n && n > (size_t)(s[0] == '-')) {
            *out = s[0] == '-' ? -v : v;
            return 0;
        }
    }
    /* integral only: parse at scale 0 and at scale 3 and compare */
    int64_t a, b;
    if (decimal_scaled(s, n, 0, &a) != 0)
        return -1;
    if (decimal_scaled(s, n, 3, &b) == 0 && (b / 1000 != a || b % 1000 != 0))
        return -1;
    *out = a;
    return 0;
}
