/* jsonbuf.h: a growable byte buffer and a compact JSON writer on top of it (escaping, commas).
 * Used to keep event args as JSON text and to write JSON output. Reused buffers: no per-event malloc. */
#ifndef TDB_JSONBUF_H
#define TDB_JSONBUF_H
#include <stddef.h>
#include <stdint.h>

struct buf {
    char *p;
    size_t n, cap;
};

/* Room for extra more bytes past b->n; 0, or -1 when out of memory (the buffer is left as it was). */
int buf_reserve(struct buf *b, size_t extra);
/* Appends; returns 0, or -1 when out of memory (the buffer is left as it was). */
int buf_add(struct buf *b, const void *data, size_t n);
int buf_addc(struct buf *b, char c);
/* Appends v's decimal digits as printf's %lld writes them, or with decimals > 0 the value v / 10^decimals
 * with exactly that many decimals ("-0.005" for -5, 3). */
int buf_add_digits(struct buf *b, int64_t v, int decimals);
/* Appends the shortest of v's "%.15g" and "%.17g" texts that reads back as v (inf, nan as printf writes them). */
int buf_add_real(struct buf *b, double v);
/* A double as a JSON value: buf_add_real's text, or null when it is not finite (JSON has no inf or nan). */
int buf_add_json_real(struct buf *b, double v);
void buf_free(struct buf *b);

/* Appends s as a quoted JSON string with every needed escape; invalid UTF-8 becomes U+FFFD. */
int buf_add_json_string(struct buf *b, const char *s, size_t n);

/* UTF-8: the length of the valid sequence at s (1-4), or 0 when the bytes there are not one
 * (overlong forms, surrogates, past U+10FFFF, cut short). */
size_t utf8_seq_len(const unsigned char *s, size_t n);
/* Whether all of s is valid UTF-8. */
int utf8_valid(const char *s, size_t n);
/* Copies s to dst with each byte that starts no valid sequence replaced by U+FFFD (3 bytes): dst
 * needs room for 3 * n. Returns the length written. */
size_t utf8_repair(char *dst, const char *s, size_t n);
/* Appends s, repaired as utf8_repair does. */
int buf_add_utf8(struct buf *b, const char *s, size_t n);

/* A JSON writer that inserts commas: depth-limited to 63 nested containers. */
struct jw {
    struct buf *b;
    uint64_t has_item; /* bit d: the container at depth d already has an item */
    int depth;
    int after_key;     /* the next value follows a key: no comma */
};

void jw_init(struct jw *w, struct buf *b);
int jw_open(struct jw *w, char bracket);  /* '{' or '[' */
int jw_close(struct jw *w, char bracket); /* '}' or ']' */
int jw_key(struct jw *w, const char *s, size_t n);
int jw_raw(struct jw *w, const char *text, size_t n); /* a number, true, false, null as text */
int jw_int(struct jw *w, int64_t v);                  /* as printf's %lld writes it */
int jw_real(struct jw *w, double v);                  /* buf_add_json_real */
int jw_string(struct jw *w, const char *s, size_t n);

#endif
