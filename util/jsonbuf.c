/* jsonbuf.c: growable buffer and compact JSON writer (see jsonbuf.h). */
#include "jsonbuf.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int buf_reserve(struct buf *b, size_t extra)
{
    if (b->n + extra <= b->cap)
        return 0;
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < b->n + extra)
        ncap *= 2;
    char *np = realloc(b->p, ncap);
    if (!np)
        return -1;
    b->p = np, b->cap = ncap;
    return 0;
}

int buf_add(struct buf *b, const void *data, size_t n)
{
    if (buf_reserve(b, n) != 0)
        return -1;
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
    return 0;
}

int buf_add_digits(struct buf *b, int64_t v, int decimals)
{
    char t[48], *p = t + sizeof t;
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (decimals > 0) {
        for (int d = 0; d < decimals && d < 20; d++, a /= 10)
            *--p = (char)('0' + a % 10);
        *--p = '.';
    }
    do
        *--p = (char)('0' + a % 10);
    while (a /= 10);
    if (v < 0)
        *--p = '-';
    return buf_add(b, p, (size_t)(t + sizeof t - p));
}

int buf_add_real(struct buf *b, double v)
{
    char t[40];
    snprintf(t, sizeof t, "%.15g", v);
    if (strtod(t, NULL) != v)
        snprintf(t, sizeof t, "%.17g", v);
    return buf_add(b, t, strlen(t));
}

int buf_add_json_real(struct buf *b, double v)
{
    return isfinite(v) ? buf_add_real(b, v) : buf_add(b, "null", 4);
}

int buf_addc(struct buf *b, char c)
{
    if (b->n >= b->cap && buf_reserve(b, 1) != 0)
        return -1;
    b->p[b->n++] = c;
    return 0;
}

void buf_free(struct buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

int buf_add_json_string(struct buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (buf_reserve(b, n + 2) != 0)
        return -1;
    b->p[b->n++] = '"';
    /* printable ASCII (nearly every key and value) is copied as it is checked, 8 bytes at a time: a
     * word passes when none of its bytes is below 0x20, at or above 0x80, '"' or '\\' */
    char *out = b->p + b->n;
    size_t plain = 0;
    for (; plain + 8 <= n; plain += 8) {
        uint64_t w;
        memcpy(&w, s + plain, 8);
        const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
        uint64_t q = w ^ (ones * '"'), bs = w ^ (ones * '\\');
        uint64_t below_space = (w - ones * 0x20) & ~w, quote = (q - ones) & ~q, backslash = (bs - ones) & ~bs;
        if ((below_space | quote | backslash | w) & high)
            break;
        memcpy(out + plain, &w, 8);
    }
    for (; plain < n; plain++) {
        unsigned char c = (unsigned char)s[plain];
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
            break;
        out[plain] = (char)c;
    }
    if (plain == n) {
        out[n] = '"';
        b->n += n + 1;
        return 0;
    }
    b->n += plain;
    size_t run = plain; /* start of the pending unescaped run */
    for (size_t i = plain; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\')
            continue;
        if (c >= 0x80) {
            size_t k = utf8_seq_len((const unsigned char *)s + i, n - i);
            if (k) {
                i += k - 1;
                continue;
            }
            if (buf_add(b, s + run, i - run) != 0 || buf_add(b, "\xEF\xBF\xBD", 3) != 0)
                return -1;
            run = i + 1;
            continue;
        }
        if (buf_add(b, s + run, i - run) != 0)
            return -1;
        char esc[6] = {'\\', 0};
        size_t en = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = hex[c >> 4], esc[5] = hex[c & 15];
            en = 6;
        }
        if (buf_add(b, esc, en) != 0)
            return -1;
        run = i + 1;
    }
    if (n > run && buf_add(b, s + run, n - run) != 0) /* s may be NULL when n is 0 */
        return -1;
    return buf_addc(b, '"');
}

void jw_init(struct jw *w, struct buf *b)
{
    w->b = b;
    w->has_item = 0;
    w->depth = 0;
    w->after_key = 0;
}

/* The comma before an item, if it is not the first in its container. */
static int jw_item(struct jw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return 0;
    }
    uint64_t bit = 1ULL << (w->depth & 63);
    int rc = 0;
    if (w->has_item & bit)
        rc = buf_addc(w->b, ',');
    w->has_item |= bit;
    return rc;
}

int jw_open(struct jw *w, char bracket)
{
    if (jw_item(w) != 0 || buf_addc(w->b, bracket) != 0)
        return -1;
    w->depth++;
    w->has_item &= ~(1ULL << (w->depth & 63));
    return 0;
}

int jw_close(struct jw *w, char bracket)
{
    w->depth--;
    return buf_addc(w->b, bracket);
}

int jw_key(struct jw *w, const char *s, size_t n)
{
    if (jw_item(w) != 0 || buf_add_json_string(w->b, s, n) != 0 || buf_addc(w->b, ':') != 0)
        return -1;
    w->after_key = 1;
    return 0;
}

int jw_raw(struct jw *w, const char *text, size_t n)
{
    if (jw_item(w) != 0)
        return -1;
    return buf_add(w->b, text, n);
}

int jw_int(struct jw *w, int64_t v)
{
    if (jw_item(w) != 0)
        return -1;
    return buf_add_digits(w->b, v, 0);
}

int jw_real(struct jw *w, double v)
{
    if (jw_item(w) != 0)
        return -1;
    return buf_add_json_real(w->b, v);
}

int jw_string(struct jw *w, const char *s, size_t n)
{
    if (jw_item(w) != 0)
        return -1;
    return buf_add_json_string(w->b, s, n);
}

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    if (c < 0xC2 || c > 0xF4)
        return 0;
    size_t k = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0) || /* overlong; surrogates */
        (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))   /* overlong; past U+10FFFF */
        return 0;
    return k;
}

int utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = utf8_seq_len(p + i, n - i);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

size_t utf8_repair(char *dst, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = p[i] < 0x80 ? 1 : utf8_seq_len(p + i, n - i);
        if (k) {
            memcpy(dst + o, s + i, k);
            o += k, i += k;
        } else {
            memcpy(dst + o, "\xEF\xBF\xBD", 3);
            o += 3, i++;
        }
    }
    return o;
}

int buf_add_utf8(struct buf *b, const char *s, size_t n)
{
    if (utf8_valid(s, n))
        return buf_add(b, s, n);
    if (buf_reserve(b, 3 * n) != 0)
        return -1;
    b->n += utf8_repair(b->p + b->n, s, n);
    return 0;
}
