/* json_fast.cpp: the fast lane's tokenizer: simdjson's On-Demand API (Debian's libsimdjson) walks a
 * run of whole array elements and calls yajl-style callbacks (json_fast.h) token by token, in document
 * order, with what yajl would pass: keys and strings unescaped, numbers as their text.
 *
 * Where simdjson is more lenient than yajl, this file checks for itself, so that the fast lane never
 * takes what the yajl lane refuses: a number must match JSON's grammar, a literal must be exactly true,
 * false or null. Where the two might decode differently (a \u escape in a string: yajl and simdjson
 * treat lone surrogates their own ways; any escape in a key, which is rare), the element is not taken: the walk stops before it and the caller gives it
 * to yajl. simdjson's own checks (UTF-8, unclosed strings, structure) stop the walk the same way. Keys and
 * strings without a backslash (nearly all) are passed as they stand in the input, not copied. Built without exceptions: every call returns an error code. */
#include "json_fast.h"
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>
#include <simdjson.h>

using namespace simdjson;

struct json_fast {
    ondemand::parser parser;
};

extern "C" struct json_fast *json_fast_new(void)
{
    return new (std::nothrow) json_fast();
}

extern "C" void json_fast_free(struct json_fast *f)
{
    delete f;
}

namespace {

enum { GO = 1, REFUSE = 0, NOT_FAST = -1 };
enum { MAX_DEPTH = 64 }; /* deeper values are left to yajl (which keeps no stack of calls): the walk recurses */

/* A scalar's text without the whitespace simdjson leaves after it. */
std::string_view trimmed(std::string_view s)
{
    size_t n = s.size();
    while (n && static_cast<unsigned char>(s[n - 1]) <= ' ' &&
           (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    return s.substr(0, n);
}

bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
bool json_number(std::string_view s)
{
    size_t i = 0, n = s.size();
    if (i < n && s[i] == '-')
        i++;
    if (i == n || !is_digit(s[i]))
        return false;
    if (s[i] == '0')
        i++;
    else
        while (i < n && is_digit(s[i]))
            i++;
    if (i < n && s[i] == '.') {
        if (++i == n || !is_digit(s[i]))
            return false;
        while (i < n && is_digit(s[i]))
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        if (++i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i == n || !is_digit(s[i]))
            return false;
        while (i < n && is_digit(s[i]))
            i++;
    }
    return i == n;
}

/* A string token's raw text holds a \u escape (decoded differently by yajl and simdjson). */
bool has_unicode_escape(std::string_view raw)
{
    for (size_t i = raw.find('\\'); i != std::string_view::npos && i + 1 < raw.size(); i = raw.find('\\', i + 2))
        if (raw[i + 1] == 'u')
            return true;
    return false;
}

/* The first '"' or '\\' from p on, read 8 bytes at a time (one of them ends the string, and the input
 * has JSON_FAST_PADDING readable bytes past its end). The lowest flagged byte is exact: a false flag
 * can only stand above a true one. */
const char *quote_or_backslash(const char *p)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    while (*p != '"' && *p != '\\')
        p++;
    return p;
#endif
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    for (;; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t hit = (((q - ones) & ~q) | ((b - ones) & ~b)) & high;
        if (hit)
            return p + __builtin_ctzll(hit) / 8;
    }
}

int walk(ondemand::value &v, const json_sink *k, int depth, char closer);

int walk_object(ondemand::object o, const json_sink *k, int depth)
{
    int r = k->start_map(k->ctx);
    if (r != GO)
        return r;
    for (auto item : o) {
        /* the field in place (get() would move it into a copy: the pair's two halves stored apart and
         * read back as one 16-byte load stalled the walk, a quarter of its time) */
        if (item.error())
            return NOT_FAST;
        ondemand::field &f = item.value_unsafe();
        /* the key as written, up to its closing quote (stage 1 found it): no copy. A key with a backslash
         * (rare) is left to yajl. */
        const char *key = reinterpret_cast<const char *>(f.key().raw()), *end = quote_or_backslash(key);
        if (*end == '\\')
            return NOT_FAST;
        if ((r = k->map_key(k->ctx, reinterpret_cast<const unsigned char *>(key), static_cast<size_t>(end - key))) != GO)
            return r;
        if ((r = walk(f.value(), k, depth, '}')) != GO) /* the value in place too: a copy was reloaded at once */
            return r;
    }
    return k->end_map(k->ctx);
}

int walk_array(ondemand::array a, const json_sink *k, int depth)
{
    int r = k->start_array(k->ctx);
    if (r != GO)
        return r;
    for (auto item : a) {
        ondemand::value v;
        if (std::move(item).get(v))
            return NOT_FAST;
        if ((r = walk(v, k, depth, ']')) != GO)
            return r;
    }
    return k->end_array(k->ctx);
}

/* A scalar is read from its token (to the next structural character: no copy, no conversion) and not
 * consumed through simdjson, which then skips it without looking at what follows: so the next structural
 * character is checked here, as yajl would, to be a ',' or the closer of the value's object or array. */
int walk(ondemand::value &v, const json_sink *k, int depth, char closer)
{
    ondemand::json_type t;
    if (v.type().get(t))
        return NOT_FAST;
    if (t == ondemand::json_type::object) {
        ondemand::object o;
        return depth >= MAX_DEPTH || v.get_object().get(o) ? NOT_FAST : walk_object(o, k, depth + 1);
    }
    if (t == ondemand::json_type::array) {
        ondemand::array a;
        return depth >= MAX_DEPTH || v.get_array().get(a) ? NOT_FAST : walk_array(a, k, depth + 1);
    }
    std::string_view token = v.raw_json_token();
    char next = token.data()[token.size()];
    if (next != ',' && next != closer)
        return NOT_FAST;
    std::string_view s = trimmed(token);
    switch (t) {
    case ondemand::json_type::string: {
        if (s.size() < 2)
            return NOT_FAST; /* cannot be: a string token holds its two quotes */
        if (!memchr(s.data() + 1, '\\', s.size() - 2)) /* no escape: the text between the quotes, as written */
            return k->string(k->ctx, reinterpret_cast<const unsigned char *>(s.data() + 1), s.size() - 2);
        std::string_view text;
        if (has_unicode_escape(s) || v.get_string().get(text))
            return NOT_FAST;
        return k->string(k->ctx, reinterpret_cast<const unsigned char *>(text.data()), text.size());
    }
    case ondemand::json_type::number:
        return json_number(s) ? k->number(k->ctx, s.data(), s.size()) : NOT_FAST;
    case ondemand::json_type::boolean:
        if (s == "true")
            return k->boolean(k->ctx, 1);
        return s == "false" ? k->boolean(k->ctx, 0) : NOT_FAST;
    case ondemand::json_type::null:
        return s == "null" ? k->null(k->ctx) : NOT_FAST;
    default:
        return NOT_FAST;
    }
}

} // namespace

extern "C" enum json_walk json_fast_walk(struct json_fast *f, const char *buf, size_t len, const struct json_sink *k,
                                         size_t *after)
{
    *after = 1;
    ondemand::document doc;
    if (f->parser.iterate(buf, len, len + JSON_FAST_PADDING).get(doc))
        return JSON_WALK_STOPPED;
    ondemand::array arr;
    if (doc.get_array().get(arr))
        return JSON_WALK_STOPPED;
    for (auto item : arr) {
        ondemand::value v;
        if (std::move(item).get(v))
            return JSON_WALK_STOPPED;
        const char *start = v.raw_json_token().data();
        if (*start != '{')
            return JSON_WALK_STOPPED; /* not an object: yajl says so, at the offset it gives */
        k->element(k->ctx, static_cast<size_t>(start - buf));
        int r = walk(v, k, 0, ']');
        if (r == REFUSE)
            return JSON_WALK_REFUSED;
        if (r == NOT_FAST)
            return JSON_WALK_STOPPED;
        const char *at;
        if (doc.current_location().get(at))
            return JSON_WALK_LOST; /* the array's ']' is still ahead: cannot happen */
        *after = static_cast<size_t>(at - buf);
    }
    const char *rest;
    return doc.current_location().get(rest) == OUT_OF_BOUNDS ? JSON_WALK_ALL : JSON_WALK_STOPPED; /* else the array closed early */
}
