/* term_text.c: the display form of a character that reaches a terminal, and a stream that gives every
 * message that form (term_text.h). */
#define _GNU_SOURCE /* fopencookie */
#include "term_text.h"
#include "jsonbuf.h"
#include <string.h>
#include <sys/types.h>

size_t term_char(const unsigned char *p, size_t len, char piece[8], size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    size_t k = p[0] < 0x80 ? 1 : utf8_seq_len(p, len);
    *used = k ? k : 1;
    if (k == 1 && (p[0] < 0x20 || p[0] == 0x7f)) {
        piece[0] = '\\', piece[1] = 'x', piece[2] = hex[p[0] >> 4], piece[3] = hex[p[0] & 15];
        return 4;
    }
    if (k == 2 && p[0] == 0xC2 && p[1] < 0xA0) { /* U+0080..U+009F */
        memcpy(piece, "\\u00", 4);
        piece[4] = hex[p[1] >> 4], piece[5] = hex[p[1] & 15];
        return 6;
    }
    if (k == 0) {
        memcpy(piece, "\xEF\xBF\xBD", 3);
        return 3;
    }
    memcpy(piece, p, k);
    return k;
}

/* Writes what it is given to the stream behind it (cookie), in pieces of at most a buffer's size. */
static ssize_t safe_write(void *cookie, const char *data, size_t size)
{
    FILE *to = cookie;
    const unsigned char *p = (const unsigned char *)data;
    char out[4096], piece[8];
    size_t n = 0, used;
    for (size_t i = 0; i < size; i += used) {
        if (n + 8 > sizeof out) {
            if (fwrite(out, 1, n, to) != n)
                return -1;
            n = 0;
        }
        if (p[i] == '\n' || p[i] == '\t' || (p[i] == '\r' && i == 0) || (p[i] >= 0x20 && p[i] < 0x7f)) {
            out[n++] = (char)p[i], used = 1;
            continue;
        }
        size_t pn = term_char(p + i, size - i, piece, &used);
        memcpy(out + n, piece, pn), n += pn;
    }
    if (n && fwrite(out, 1, n, to) != n)
        return -1;
    return fflush(to) == 0 ? (ssize_t)size : -1;
}

FILE *term_safe_stream(FILE *to)
{
    cookie_io_functions_t io = {.write = safe_write};
    FILE *f = fopencookie(to, "w", io);
    if (f)
        setvbuf(f, NULL, _IONBF, 0);
    return f;
}
