/* trace_files.c: which files are traces, and the traces a directory holds (see trace_files.h). */
#include "trace_files.h"
#include "furiosa_records.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define SKIPPED_NAMED 5 /* the skipped names said; the rest counted */

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcasecmp(s + n - k, tail) == 0;
}

int tdb_trace_name(const char *name)
{
    return ends_with(name, ".json") || ends_with(name, ".json.gz");
}

/* A growing array of malloc'd strings. */
struct names {
    char **v;
    int n, cap;
};

static int names_add(struct names *a, char *s)
{
    if (!s)
        return -1;
    if (a->n == a->cap) {
        int cap = a->cap ? a->cap * 2 : 16;
        char **v = realloc(a->v, (size_t)cap * sizeof *v);
        if (!v) {
            free(s);
            return -1;
        }
        a->v = v, a->cap = cap;
    }
    a->v[a->n++] = s;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dir/name, without a doubled slash (malloc'd). */
static char *joined(const char *dir, const char *name)
{
    size_t dn = strlen(dir);
    while (dn > 1 && dir[dn - 1] == '/')
        dn--;
    size_t n = dn + 1 + strlen(name) + 1;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%.*s%s%s", (int)dn, dir, dn == 1 && dir[0] == '/' ? "" : "/", name);
    return p;
}

static void say_skipped_names(FILE *err, const char *dir, struct names *skipped)
{
    qsort(skipped->v, (size_t)skipped->n, sizeof *skipped->v, by_name);
    fprintf(err, "tracedb: %s: %d file%s skipped, not traces (.json, .json.gz, or Furiosa's records: .csv): ", dir, skipped->n,
            skipped->n == 1 ? "" : "s");
    for (int i = 0; i < skipped->n && i < SKIPPED_NAMED; i++)
        fprintf(err, "%s%s", i ? ", " : "", skipped->v[i]);
    if (skipped->n > SKIPPED_NAMED)
        fprintf(err, ", and %d more", skipped->n - SKIPPED_NAMED);
    fputc('\n', err);
}

/* Adds the traces in dir to out, sorted. 0, or -1 (said). */
static int list_dir(const char *dir, struct names *out, FILE *err, int say_skipped)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (err)
            fprintf(err, "tracedb: %s: cannot list the directory: %s\n", dir, strerror(errno));
        return -1;
    }
    struct names skipped = {0};
    int first = out->n, rc = 0;
    struct dirent *e;
    errno = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *path = joined(dir, e->d_name);
        struct stat sb;
        int found = path && stat(path, &sb) == 0, sub = found && S_ISDIR(sb.st_mode);
        if (!path)
            rc = -1;
        else if (found && S_ISREG(sb.st_mode) && e->d_name[0] != '.' &&
                 (tdb_trace_name(e->d_name) || furiosa_records_file(path)))
            rc = names_add(out, path);
        else {
            free(path);
            size_t len = strlen(e->d_name) + 2;
            char *name = malloc(len);
            if (name)
                snprintf(name, len, "%s%s", e->d_name, sub ? "/" : "");
            rc = names_add(&skipped, name);
        }
        errno = 0;
    }
    int read_errno = rc == 0 ? errno : 0;
    closedir(d);
    if (rc != 0 && err)
        fprintf(err, "tracedb: out of memory\n");
    else if (rc == 0 && read_errno) {
        if (err)
            fprintf(err, "tracedb: %s: cannot list the directory: %s\n", dir, strerror(read_errno));
        rc = -1;
    } else if (rc == 0 && out->n == first) {
        if (err)
            fprintf(err, "tracedb: %s: no trace in this directory (a trace is a .json or .json.gz file, or Furiosa's records: a "
                            ".csv or .csv.gz file with their header)\n", dir);
        rc = -1;
    } else if (rc == 0) {
        qsort(out->v + first, (size_t)(out->n - first), sizeof *out->v, by_name);
        if (say_skipped && skipped.n && err)
            say_skipped_names(err, dir, &skipped);
    }
    tdb_trace_files_free(skipped.v, skipped.n);
    return rc;
}

int tdb_trace_files(const char *const *paths, int n, char ***out, FILE *err, int say_skipped)
{
    struct names all = {0};
    *out = NULL;
    for (int i = 0; i < n; i++) {
        struct stat sb;
        int is_dir = strcmp(paths[i], "-") != 0 && stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode);
        if (is_dir ? list_dir(paths[i], &all, err, say_skipped) != 0 : names_add(&all, strdup(paths[i])) != 0) {
            if (!is_dir && err) /* list_dir says its own */
                fprintf(err, "tracedb: out of memory\n");
            tdb_trace_files_free(all.v, all.n);
            return -1;
        }
    }
    *out = all.v;
    return all.n;
}

void tdb_trace_files_free(char **files, int n)
{
    for (int i = 0; i < n; i++)
        free(files[i]);
    free(files);
}

const char *tdb_trace_db_name(const char *trace, char *buf, size_t n)
{
    char real[PATH_MAX];
    if (strcmp(trace, "-") == 0)
        return NULL;
    size_t len = strlen(trace);
    while (len > 1 && trace[len - 1] == '/')
        len--;
    const char *base = trace;
    for (size_t i = 0; i < len; i++)
        if (trace[i] == '/')
            base = trace + i + 1;
    size_t blen = len - (size_t)(base - trace);
    if ((blen == 1 && base[0] == '.') || (blen == 2 && base[0] == '.' && base[1] == '.')) { /* its own name */
        if (!realpath(trace, real))
            return NULL;
        trace = real, len = strlen(real);
    }
    if (len && trace[len - 1] == '/') /* "/" */
        return NULL;
    if (len > 3 && strncasecmp(trace + len - 3, ".gz", 3) == 0)
        len -= 3;
    if (len > 5 && strncasecmp(trace + len - 5, ".json", 5) == 0)
        len -= 5;
    else if (len > 4 && strncasecmp(trace + len - 4, ".csv", 4) == 0) /* Furiosa's records */
        len -= 4;
    if (len == 0 || trace[len - 1] == '/' || (size_t)snprintf(buf, n, "%.*s.db", (int)len, trace) >= n)
        return NULL;
    return buf;
}
