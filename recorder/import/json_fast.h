/* json_fast.h: simdjson's On-Demand parser behind a small C interface (json_fast.cpp). It walks a run of
 * whole JSON array elements and hands each token to yajl-style callbacks, in yajl's order, so that the
 * Chrome importer's fast lane (chrome_import.c) builds exactly the rows its yajl lane builds. Internal to
 * recorder/import. */
#ifndef TDB_JSON_FAST_H
#define TDB_JSON_FAST_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* simdjson reads up to this many bytes past the end of what it parses (its SIMDJSON_PADDING). */
#define JSON_FAST_PADDING 64

/* yajl's callbacks, same meanings. Each returns 1 to go on, 0 to stop the walk (an error of the
 * receiver's own, e.g. a database error), -1 when the element is not for the fast lane (the walk stops
 * before it ends, and the caller hands the element to yajl). */
struct json_sink {
    void *ctx;
    int (*null)(void *ctx);
    int (*boolean)(void *ctx, int value);
    int (*number)(void *ctx, const char *text, size_t n);
    int (*string)(void *ctx, const unsigned char *s, size_t n);
    int (*start_map)(void *ctx);
    int (*map_key)(void *ctx, const unsigned char *key, size_t n);
    int (*end_map)(void *ctx);
    int (*start_array)(void *ctx);
    int (*end_array)(void *ctx);
    void (*element)(void *ctx, size_t offset); /* an element starts at buf[offset], before its callbacks */
};

enum json_walk {
    JSON_WALK_ALL,     /* every element walked; the array closes at the last byte of buf */
    JSON_WALK_STOPPED, /* stopped after *after's elements: damage, an element not for the fast lane, or the
                        * array closing before the end */
    JSON_WALK_REFUSED, /* a callback returned 0 */
    JSON_WALK_LOST,    /* simdjson could not say where an element it walked ends (never seen; not retried) */
};

struct json_fast;
struct json_fast *json_fast_new(void);
void json_fast_free(struct json_fast *f);

/* Walks buf[0..len), which should be one JSON array, element by element. Elements whose every callback
 * ran are done; *after gets the offset in buf just past the last of them (1, past the '[', when none is).
 * buf must have JSON_FAST_PADDING readable bytes past len. */
enum json_walk json_fast_walk(struct json_fast *f, const char *buf, size_t len, const struct json_sink *sink,
                              size_t *after);

#ifdef __cplusplus
}
#endif
#endif
