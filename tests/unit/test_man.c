/* test_man.c: the man pages: tracedb(1)'s sections beyond the commands (tools/manpage.sh, from
 * docs/tracedb.1.md), tracedb-schema(7) describing every table, view and column a new database holds
 * (tools/schemapage.sh), and both pages rendering without a warning. */
#include "helpers.h"
#include "stage_format.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STAGE_SUFFIX_ROFF "\\" STAGE_SUFFIX /* "-stage", its dash escaped as roff writes it */

/* tracedb-schema(7) as tools/schemapage.sh makes it from schema_dir's files (malloc'd); *status its exit
 * status; its stderr into err_path when given. */
static char *schema_page(const char *schema_dir, const char *err_path, int *status)
{
    return run_capture(status, "sh '%s' '%s' '%s'/*.sql 2>'%s'", src_path("tools/schemapage.sh"), tracedb(), schema_dir,
                       err_path ? err_path : "/dev/null");
}

/* The text of section ".SS name" of page (up to the next .SS or .SH; malloc'd), or NULL. */
static char *page_section(const char *page, const char *name)
{
    char head[256];
    snprintf(head, sizeof head, "\n.SS %s\n", name);
    const char *at = strstr(page, head);
    if (!at)
        return NULL;
    at += strlen(head) - 1;
    const char *ss = strstr(at, "\n.SS "), *sh = strstr(at, "\n.SH ");
    const char *end = ss && (!sh || ss < sh) ? ss : sh ? sh : at + strlen(at);
    return strndup(at, (size_t)(end - at) + 1);
}

/* Every column of every table and view of the database at path appears in page's section of its table
 * or view with words after it; *checked counts them. */
static void expect_described(const char *page, const char *path, int *checked)
{
    sqlite3 *db = db_open(path);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "SELECT l.name, i.name FROM pragma_table_list l, pragma_table_info(l.name) i "
                                    "WHERE l.schema = 'main' AND l.type IN ('table', 'view') AND l.name NOT LIKE 'sqlite_%' "
                                    "ORDER BY 1, i.cid",
                                    -1, &st, NULL),
                 SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *object = (const char *)sqlite3_column_text(st, 0), *column = (const char *)sqlite3_column_text(st, 1);
        char *section = page_section(page, object);
        cr_assert(section, "%s: no section .SS %s in tracedb-schema(7)", path, object);
        char entry[256];
        snprintf(entry, sizeof entry, "\n.TP\n.B %s\n", column);
        const char *at = strstr(section, entry);
        cr_assert(at, "%s.%s is not in tracedb-schema(7)'s section of %s", object, column, object);
        at += strlen(entry);
        cr_assert(*at && *at != '.' && *at != '\n', "%s.%s has no description: %.80s", object, column, at);
        free(section);
        (*checked)++;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

Test(man, schema_page_describes_every_column)
{
    int st;
    char *page = schema_page(src_path("schema"), NULL, &st);
    cr_assert_eq(st, 0, "tools/schemapage.sh failed: %.300s", page);
    char *dir;
    char *db = imported("samples/resnet18_inference.json.gz", &dir);
    int checked = 0;
    expect_described(page, db, &checked);
    /* a merged database (no pack) and an appended one hold the same tables: nothing of theirs left out */
    char merged[4200];
    snprintf(merged, sizeof merged, "%s/merged.db", dir);
    cr_assert_eq(run("'%s' merge '%s' -o '%s' 2>/dev/null", tracedb(), db, merged), 0);
    expect_described(page, merged, &checked);
    cr_assert_geq(checked, 300, "tables and views, every column: %d", checked);
    /* units and keys: a time in ns, a primary key, a reference */
    char *event = page_section(page, "event"), *thread = page_section(page, "thread");
    cr_assert(event && strstr(event, "\n.B dur_ns\nINTEGER: duration, ns") && strstr(event, "\n.B id\nINTEGER, primary key: "),
              "%s", event);
    cr_assert(thread && strstr(thread, "\n.B process_id\nINTEGER, references process.id: "), "%s", thread);
    /* a view's column taken from a table means what the table says; one the view makes, its own words */
    char *kernels = page_section(page, "kernels");
    cr_assert(kernels && strstr(kernels, "\n.B grid_x\nINTEGER: the grid, in blocks") &&
                  strstr(kernels, "\n.B op_id\nINTEGER: the operator that launched"),
              "%s", kernels);
    free(event), free(thread), free(kernels);
    free(page);
    cleanup(dir, db);
}

/* A column whose line has no comment stops the page, naming it: the page never leaves one out. */
Test(man, schema_page_refuses_an_undescribed_column)
{
    char *dir = temp_dir();
    cr_assert_eq(run("cp '%s'/*.sql '%s'/ && sed -i 's/^\\(  occupancy_pct REAL\\) *--.*/\\1/' '%s/schema.sql' && "
                     "grep -q '^  occupancy_pct REAL$' '%s/schema.sql'",
                     src_path("schema"), dir, dir, dir),
                 0);
    char err[4200];
    snprintf(err, sizeof err, "%s/err", dir);
    int st;
    free(schema_page(dir, err, &st));
    cr_assert_neq(st, 0);
    char *why = read_file(err, NULL);
    cr_assert(strstr(why, "kernel_launch.occupancy_pct has no description"), "%s", why);
    free(why);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* docs/schema.md, the schema page for reading on the web, is what tools/schemapage.sh --markdown makes
 * from schema/ now: a column added or described anew without regenerating it fails here (the command to
 * run is in the message); each object of the man page has its section there. */
Test(man, docs_schema_md_is_current)
{
    int st;
    char *md = run_capture(&st, "sh '%s' --markdown '%s' '%s'/*.sql", src_path("tools/schemapage.sh"), tracedb(),
                           src_path("schema"));
    cr_assert_eq(st, 0, "%.300s", md);
    char *kept = read_file(src_path("docs/schema.md"), NULL);
    cr_assert(kept && strcmp(md, kept) == 0,
              "docs/schema.md is not current: sh tools/schemapage.sh --markdown build/tracedb schema/*.sql > docs/schema.md");
    char *page = schema_page(src_path("schema"), NULL, &st);
    int objects = 0;
    for (const char *at = page; (at = strstr(at, "\n.SS ")); at += 5, objects++) {
        char head[200];
        size_t n = strcspn(at + 5, "\n");
        snprintf(head, sizeof head, "\n### `%.*s`\n", (int)n, at + 5);
        cr_expect(strstr(md, head), "%s", head);
    }
    cr_assert_gt(objects, 10);
    free(page), free(kept), free(md);
}

/* Both pages as man(1) shows them: groff with every warning on says nothing. */
Test(man, pages_render_without_warnings)
{
    int st;
    char *groff = run_capture(&st, "command -v groff");
    free(groff);
    if (st != 0)
        skip_for_missing("groff is not installed (tools/deps.sh test installs groff-base)");
    char *dir = temp_dir();
    cr_assert_eq(run("sh '%s' '%s' '%s'/*.sql > '%s/tracedb-schema.7'", src_path("tools/schemapage.sh"), tracedb(),
                     src_path("schema"), dir),
                 0);
    cr_assert_eq(run("sh '%s' '%s' > '%s/tracedb.1'", src_path("tools/manpage.sh"), tracedb(), dir), 0);
    static const char *const pages[] = {"tracedb.1", "tracedb-schema.7"};
    for (size_t i = 0; i < 2; i++) {
        char *out = run_capture(&st, "groff -man -ww -z -Tutf8 '%s/%s' 2>&1", dir, pages[i]);
        cr_assert(st == 0 && !*out, "%s: %s", pages[i], out);
        free(out);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Section ".SH name" of page, up to the next .SH (malloc'd), or NULL. */
static char *page_part(const char *page, const char *name)
{
    char head[128];
    snprintf(head, sizeof head, "\n.SH %s\n", name);
    const char *at = strstr(page, head);
    if (!at)
        return NULL;
    at += strlen(head) - 1;
    const char *end = strstr(at, "\n.SH ");
    return strndup(at, end ? (size_t)(end - at) + 1 : strlen(at));
}

/* tracedb(1): its sections in man-pages(7)'s order after the commands; ENVIRONMENT names every variable
 * tracedb, its library and its Python package read; FILES and EXIT STATUS say what the program does. */
Test(man, tracedb_page_sections)
{
    int st;
    char *page = run_capture(&st, "sh '%s' '%s'", src_path("tools/manpage.sh"), tracedb());
    cr_assert_eq(st, 0);
    static const char *const order[] = {"NAME",     "SYNOPSIS",    "DESCRIPTION", "COMMANDS", "EXAMPLES",
                                        "ENVIRONMENT", "FILES", "EXIT STATUS", "SEE ALSO"};
    const char *at = page;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        char head[64];
        snprintf(head, sizeof head, "\n.SH %s\n", order[i]);
        const char *h = strstr(at, head);
        cr_assert(h, "no section %s after the ones before it", order[i]);
        at = h + 1;
    }
    /* every variable read in the sources (getenv, os.environ.get) is a tagged paragraph's term */
    char *env = page_part(page, "ENVIRONMENT");
    char *names = run_capture(&st, "cd '%s' && grep -rhoE '(getenv|environ\\.get)\\(\"[A-Z_]+\"' analyzer recorder util "
                                   "python/tracedb | grep -oE '[A-Z_]+\"' | tr -d '\"' | sort -u",
                              src_path("."));
    int vars = 0;
    for (char *name = strtok(names, "\n"); name; name = strtok(NULL, "\n"), vars++) {
        char term[128], assigned[128];
        snprintf(term, sizeof term, "\\fB%s\\fR", name);
        snprintf(assigned, sizeof assigned, "\\fB%s=", name);
        const char *t = strstr(env, term) ? strstr(env, term) : strstr(env, assigned);
        cr_assert(t, "ENVIRONMENT does not name %s", name);
        const char *tp = t;
        while (tp > env && tp[-1] != '\n')
            tp--;
        cr_assert(tp - env >= 4 && strncmp(tp - 4, ".TP\n", 4) == 0, "%s is not a term of its own: %.60s", name, tp);
    }
    cr_assert_geq(vars, 15, "variables read: %d", vars);
    cr_assert(strstr(env, "\\fBCOLUMNS\\fR"), "%s", env);
    free(names);
    /* FILES: the names an import without -o and a report given a trace write, as they are written */
    char *files = page_part(page, "FILES");
    cr_assert(strstr(files, "(run.json.gz: run.db;") && strstr(files, "(run.json.gz.tracedb,") &&
                  strstr(files, "\\fBrun.db" STAGE_SUFFIX_ROFF "\\fR") && strstr(files, "\\fBtracedb finish run.db\\fR"),
              "%s", files);
    char *dir = temp_dir();
    cr_assert_eq(run("cd '%s' && cp '%s' run.json.gz && '%s' import -q run.json.gz && '%s' summary run.json.gz "
                     ">/dev/null 2>&1 && test -f run.db && test -f run.json.gz.tracedb",
                     dir, src_path("samples/resnet18_inference.json.gz"), tracedb(), tracedb()),
                 0, "the names FILES gives are the ones written");
    run("rm -rf '%s'", dir);
    free(dir);
    /* EXIT STATUS: each status a term, and a usage error is 2 as it says */
    char *exits = page_part(page, "EXIT STATUS");
    for (int code = 0; code <= 3; code++) {
        char term[32];
        snprintf(term, sizeof term, ".TP\n\\fB%d\\fR\n", code);
        cr_assert(strstr(exits, term), "EXIT STATUS has no %d: %s", code, exits);
    }
    cr_assert(strstr(exits, "usage error") && strstr(exits, "\\fBtracedb record\\fR"), "%s", exits);
    cr_assert_eq(run("'%s' ops --no-such-option 2>/dev/null", tracedb()), 2);
    char *see = page_part(page, "SEE ALSO");
    cr_assert(strstr(see, "\\fBtracedb\\-schema\\fR(7)"), "%s", see);
    free(env), free(files), free(exits), free(see);
    free(page);
}
