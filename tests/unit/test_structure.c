/* test_structure.c: how the sources are built, read off the objects the test build compiled (nm, as the
 * linker sees them): no two files call each other, however far round (a file's functions may call those
 * of files below it only), and the renderer keeps nothing between calls (no data it writes). */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OBJECTS 400

struct symbol {
    char *name;
    int object; /* the object defining it */
};

struct objects {
    char *path[MAX_OBJECTS];
    int n;
    struct symbol *defined;
    size_t ndefined, cap;
    unsigned char *calls; /* calls[i * n + j]: object i refers to a symbol object j defines */
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct symbol *)a)->name, ((const struct symbol *)b)->name);
}

/* nm's POSIX lines of every object of the library and the programs (the tests' own left out): "name type
 * value size"; calls(i, name) is given each undefined name of object i, define(i, name) each global one. */
static void each_symbol(struct objects *o, void (*fn)(struct objects *o, int obj, const char *name, char type))
{
    for (int i = 0; i < o->n; i++) {
        int st;
        char *out = run_capture(&st, "nm -P '%s'", o->path[i]);
        cr_assert_eq(st, 0, "nm read %s", o->path[i]);
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
            char name[512], type;
            if (sscanf(line, "%511s %c", name, &type) == 2)
                fn(o, i, name, type);
        }
        free(out);
    }
}

static void define(struct objects *o, int obj, const char *name, char type)
{
    if (!strchr("TDBRCV", type)) /* global code and data */
        return;
    if (o->ndefined == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 4096;
        o->defined = realloc(o->defined, o->cap * sizeof *o->defined);
        cr_assert(o->defined);
    }
    o->defined[o->ndefined++] = (struct symbol){strdup(name), obj};
}

static void refer(struct objects *o, int obj, const char *name, char type)
{
    if (type != 'U')
        return;
    struct symbol key = {(char *)name, 0};
    const struct symbol *s = bsearch(&key, o->defined, o->ndefined, sizeof key, by_name);
    if (s && s->object != obj)
        o->calls[obj * o->n + s->object] = 1;
}

static void read_objects(struct objects *o)
{
    int st;
    char *list = run_capture(&st, "find '%s' -name '*.o' | sort", src_path("build/test/obj"));
    cr_assert_eq(st, 0);
    for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
        cr_assert_lt(o->n, MAX_OBJECTS);
        o->path[o->n++] = strdup(line);
    }
    free(list);
    cr_assert_gt(o->n, 100, "the test build's objects were found under build/test/obj (%d)", o->n);
    o->calls = calloc((size_t)o->n * (size_t)o->n, 1);
    cr_assert(o->calls);
    each_symbol(o, define);
    qsort(o->defined, o->ndefined, sizeof *o->defined, by_name);
    each_symbol(o, refer);
}

static const char *short_name(const char *path)
{
    const char *p = strstr(path, "build/test/obj/");
    return p ? p + strlen("build/test/obj/") : path;
}

Test(structure, no_two_files_call_each_other_however_far_round, .timeout = 120)
{
    struct objects o = {0};
    read_objects(&o);
    int n = o.n, edges = 0;
    unsigned char *reach = malloc((size_t)n * (size_t)n);
    cr_assert(reach);
    memcpy(reach, o.calls, (size_t)n * (size_t)n);
    for (int i = 0; i < n * n; i++)
        edges += o.calls[i];
    cr_assert_gt(edges, 200, "calls between files were seen (%d)", edges);
    for (int k = 0; k < n; k++) /* which file's functions reach which, through any chain of calls */
        for (int i = 0; i < n; i++)
            if (reach[i * n + k])
                for (int j = 0; j < n; j++)
                    reach[i * n + j] |= reach[k * n + j];
    int circles = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (reach[i * n + j] && reach[j * n + i]) {
                circles++;
                cr_expect(0, "%s and %s call each other (through calls between files)", short_name(o.path[i]),
                          short_name(o.path[j]));
            }
    cr_expect_eq(circles, 0);
    free(reach);
    free(o.calls);
    for (size_t i = 0; i < o.ndefined; i++)
        free(o.defined[i].name);
    free(o.defined);
    for (int i = 0; i < n; i++)
        free(o.path[i]);
}

/* The renderer's objects: no data written after the program starts (objdump's data objects in .data,
 * .bss, .tdata or .tbss; .rodata and .data.rel.ro are read-only), so two reports rendering at once (threads
 * of one host, a report run as an SQL table inside another) cannot see each other's options. */
Test(structure, the_renderer_keeps_nothing_between_calls)
{
    int st;
    char *out = run_capture(&st, "objdump -t %s/analyzer/report/render*.o", src_path("build/test/obj"));
    cr_assert_eq(st, 0);
    int objects = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        char section[128], name[512];
        const char *o = strstr(line, " O ");
        if (!o || sscanf(o + 3, "%127s %*s %511s", section, name) != 2)
            continue;
        objects++;
        int written = strcmp(section, ".bss") == 0 || strcmp(section, ".data") == 0 ||
                      strncmp(section, ".bss.", 5) == 0 || strncmp(section, ".tbss", 5) == 0 ||
                      strncmp(section, ".tdata", 6) == 0 ||
                      (strncmp(section, ".data.", 6) == 0 && strncmp(section, ".data.rel.ro", 12) != 0);
        cr_expect(!written, "the renderer keeps %s between calls (in %s)", name, section);
    }
    cr_assert_gt(objects, 3, "the renderer's data objects were read (%d)", objects);
    free(out);
}
