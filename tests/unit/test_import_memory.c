/* test_import_memory.c: the import's memory does not grow with a trace's names nor its nesting
 * (recorder/store/spill_map.c, paged.c). A million events of a million distinct names took 329 MB under
 * the sanitizers (301 MB without): every name, its per-name sums and their keys were held in memory; a
 * million nested B events never ended, each its own name, 410 MB (372 MB), and a million B events then
 * their E, 224 MB without them: the nesting's stacks too. Now they must stay within a bound far below
 * that, sanitizers included, with the rows checked. Names, per-name sums and the stacks'
 * deep parts that went beyond memory (a 1 KiB budget: TRACEDB_SORT_KIB=1) give the same database, every
 * table row for row, as those held in memory: on a trace whose names come back after they left, and on
 * deep nests streamed in two runs (a launch at every depth) or left to the end's sweep. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define N_NAMES 1000000 /* X events, each its own name */
#define RSS_NAMES_KB (128 * 1024) /* the import's peak: 329 MB with the sanitizers before, 55 MB now */
#define RSS_DEEP_KB (128 * 1024)  /* 410 MB before (nested, distinct names), 67 MB now; B then E: 67 MB */

/* The peak RSS of the children waited for so far (KB). */
static long children_peak_kb(void)
{
    struct rusage ru;
    cr_assert_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
    return ru.ru_maxrss;
}

/* Imports json into db with the sanitizers' quarantine off (the peak is what the import holds). */
static void import_lean(const char *json, const char *db)
{
    cr_assert_eq(run("ASAN_OPTIONS=\"$ASAN_OPTIONS:quarantine_size_mb=0\" '%s' import -q '%s' -o '%s' 2>/dev/null",
                     tracedb(), json, db),
                 0);
}

/* X event i at i us for 1 us, named range_<i>: a million names, each met once. */
Test(import_memory, a_million_distinct_names_import_in_bounded_memory, .timeout = 300)
{
    char *dir = temp_dir(), json[600], db[600];
    snprintf(json, sizeof json, "%s/names.json", dir);
    snprintf(db, sizeof db, "%s/names.db", dir);
    FILE *out = fopen(json, "w");
    cr_assert(out);
    fputs("{\"traceEvents\":[\n", out);
    for (int i = 0; i < N_NAMES; i++)
        fprintf(out, "%s{\"ph\":\"X\",\"dur\":1,\"name\":\"range_%d\",\"pid\":1,\"tid\":1,\"ts\":%d}\n", i ? "," : "", i, i);
    fputs("]}\n", out);
    cr_assert_eq(fclose(out), 0);
    import_lean(json, db);
    long kb = children_peak_kb();
    cr_assert_lt(kb, RSS_NAMES_KB, "peak RSS of the import %ld KB: the names held in memory", kb);
    sqlite3 *d = db_open(db);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event"), N_NAMES);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM string"), N_NAMES, "a string per name, each once");
    /* ids in the order names came: event i + 1 is the first of name i + 1 */
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event e JOIN string s ON s.id = e.name_id "
                           "WHERE s.id <> e.id OR s.value <> 'range_' || (e.start_ns / 1000)"),
                 0);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event_stats"), N_NAMES, "sums per name");
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event_stats WHERE calls = 1 AND total_ns = 1000 AND self_ns = 1000 "
                           "AND min_ns = 1000 AND max_ns = 1000"),
                 N_NAMES);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event_stats x JOIN event_stats y ON y.rowid = x.rowid + 1 "
                           "WHERE y.name_id <> x.name_id + 1"),
                 0, "the sums in the order their names came");
    sqlite3_close(d);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Every row of every table of db (meta without its time of making), in rowid order, as one text; but the
 * event pack's (event_pack.h), which holds each row as it was first written, and names those rewritten
 * since: when that was depends on where the nesting's stacks were (tests/unit/test_event_pack_rows.c
 * holds the pack to the table). */
static char *all_rows(const char *db)
{
    sqlite3 *d = db_open(db);
    sqlite3_stmt *tables, *st;
    cr_assert_eq(sqlite3_prepare_v2(d, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('event_pack', 'event_pack_less', "
                                       "'event_pack_fix', 'event_pack_stale') ORDER BY name", -1, &tables, NULL),
                 SQLITE_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert(out);
    while (sqlite3_step(tables) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(tables, 0);
        char sql[300];
        snprintf(sql, sizeof sql, "SELECT rowid, * FROM \"%s\" %s ORDER BY rowid", t,
                 strcmp(t, "meta") == 0 ? "WHERE key <> 'created_at'" : "");
        cr_assert_eq(sqlite3_prepare_v2(d, sql, -1, &st, NULL), SQLITE_OK, "%s", sql);
        fprintf(out, "== %s\n", t);
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int k = 0; k < sqlite3_column_count(st); k++) {
                const unsigned char *v = sqlite3_column_text(st, k);
                fprintf(out, "%s%s", k ? "|" : "", v ? (const char *)v : "NULL");
            }
            fputc('\n', out);
        }
        sqlite3_finalize(st);
    }
    sqlite3_finalize(tables);
    sqlite3_close(d);
    fclose(out);
    return text;
}

#define ROUNDS 3
#define OPS 3000

/* ROUNDS rounds of OPS operators op_<k> (each name back in every round, long after it left a small
 * memory), each holding child_<k % 700>, which holds a [memory] event and a launch of kernel_<k % 900>
 * (3 us) on a GPU stream: names, and per-name sums of four kinds. */
static void write_names_back(const char *path)
{
    FILE *out = fopen(path, "w");
    cr_assert(out);
    fputs("{\"traceEvents\":[\n", out);
    int corr = 1;
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < OPS; k++) {
            long ts = ((long)r * OPS + k) * 10;
            fprintf(out,
                    "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op_%d\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":8},\n"
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"child_%d\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":6},\n"
                    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,"
                    "\"ts\":%ld.5,\"args\":{\"Bytes\":%d,\"Addr\":%d,\"Device Id\":0,\"Device Type\":%d}},\n"
                    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%ld,"
                    "\"dur\":2,\"args\":{\"correlation\":%d}},\n"
                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel_%d\",\"pid\":0,\"tid\":7,\"ts\":%ld,\"dur\":3,"
                    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}\n",
                    r || k ? "," : "", k, ts, k % 700, ts + 1, ts + 2, 64 + k, 4096 + k, k % 2, ts + 3, corr,
                    k % 900, ts + 5, corr);
            corr++;
        }
    fputs("]}\n", out);
    cr_assert_eq(fclose(out), 0);
}

/* The "beyond memory" line of TRACEDB_TIMING's output in file err: names whose keys went to temporary
 * tables, pages of per-name sums written to a temporary file. */
static void beyond_memory(const char *err, long long got[2])
{
    char *text = read_file(err, NULL), *line = strstr(text, "beyond memory: ");
    cr_assert(line, "no \"beyond memory\" line in:\n%s", text);
    long long names, sums;
    cr_assert_eq(sscanf(line, "beyond memory: %lld of %lld names; pages to a file: %lld of %lld per-name sums",
                        &got[0], &names, &got[1], &sums),
                 4, "%s", line);
    /* op_, child_, kernel_, [memory], cudaLaunchKernel and four categories */
    cr_assert_eq(names, OPS + 700 + 900 + 6, "every name (and category) once: %s", line);
    cr_assert_eq(sums, OPS + 700 + 900 + 2, "sums for each name of an event: %s", line);
    free(text);
}

Test(import_memory, names_and_sums_beyond_memory_give_the_database_held_in_memory, .timeout = 300)
{
    char *dir = temp_dir(), json[600], mem_db[600], disk_db[600], err[600];
    snprintf(json, sizeof json, "%s/back.json", dir);
    snprintf(mem_db, sizeof mem_db, "%s/mem.db", dir);
    snprintf(disk_db, sizeof disk_db, "%s/disk.db", dir);
    snprintf(err, sizeof err, "%s/timing.txt", dir);
    write_names_back(json);
    long long got[2];
    cr_assert_eq(run("TRACEDB_TIMING=1 '%s' import -q '%s' -o '%s' 2>'%s'", tracedb(), json, mem_db, err), 0);
    beyond_memory(err, got);
    cr_assert_eq(got[0] + got[1], 0, "a roomy budget holds all in memory");
    /* 4 names' keys in memory, the sums a record or two */
    cr_assert_eq(run("TRACEDB_TIMING=1 TRACEDB_SORT_KIB=1 '%s' import -q '%s' -o '%s' 2>'%s'", tracedb(), json, disk_db, err),
                 0);
    beyond_memory(err, got);
    cr_assert_gt(got[0], OPS, "names went beyond memory");
    cr_assert_gt(got[1], OPS, "per-name sums went to the file");
    sqlite3 *d = db_open(disk_db);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event"), ROUNDS * OPS * 5);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event_stats WHERE name_id IN (SELECT id FROM string WHERE value LIKE 'op\\_%' "
                           "ESCAPE '\\') AND calls = 3 AND total_ns = 24000 AND self_ns = 6000"),
                 OPS, "each operator's sums: 3 calls of 8 us, each holding a child of 6 us");
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event_stats WHERE self_device_ns <> 0 OR device_total_ns <> 0 "
                           "OR self_cpu_mem <> 0 OR cpu_mem <> 0 OR self_device_mem <> 0 OR device_mem <> 0"),
                 0, "time and memory per operator are the ops pass's: the sums hold none");
    sqlite3_close(d);
    char *mem = all_rows(mem_db), *disk = all_rows(disk_db);
    cr_assert(strlen(mem) > 100000);
    cr_assert(strcmp(mem, disk) == 0, "the tables differ with names, sums and paths beyond memory");
    free(mem), free(disk);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Writes n events of what(out, i, n) between the brackets of a trace into dir/name.json (path, cap). */
static void write_trace(char *path, size_t cap, const char *dir, const char *name, int n,
                        void (*what)(FILE *out, int i, int n))
{
    snprintf(path, cap, "%s/%s.json", dir, name);
    FILE *out = fopen(path, "w");
    cr_assert(out);
    fputs("{\"traceEvents\":[\n", out);
    for (int i = 0; i < n; i++)
        what(out, i, n);
    fputs("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}]}\n", out);
    cr_assert_eq(fclose(out), 0);
}

/* B event i at i us named range_<i>, never ended: each kept, ending at the trace's last time. */
static void nested_distinct(FILE *out, int i, int n)
{
    (void)n;
    fprintf(out, "{\"ph\":\"B\",\"name\":\"range_%d\",\"pid\":1,\"tid\":1,\"ts\":%d},\n", i, i);
}

/* A million nested ranges, each its own name: range i (row i + 1) inside range i - 1, 1 us of its own. */
Test(import_memory, a_million_nested_ranges_of_distinct_names_import_in_bounded_memory, .timeout = 300)
{
    char *dir = temp_dir(), json[600], db[600];
    write_trace(json, sizeof json, dir, "nested", N_NAMES, nested_distinct);
    snprintf(db, sizeof db, "%s/nested.db", dir);
    import_lean(json, db);
    long kb = children_peak_kb();
    cr_assert_lt(kb, RSS_DEEP_KB, "peak RSS of the import %ld KB: the nesting held in memory", kb);
    sqlite3 *d = db_open(db);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event"), N_NAMES);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM events WHERE name <> 'range_' || (start_ns / 1000)"), 0);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE id BETWEEN 2 AND 999999 AND parent_id IS NOT id - 1"), 0,
                 "each range inside the one before");
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE id < 1000000 AND depth <> min(id - 1, 65535)"), 0);
    /* range i lasts 999,999 - i us, its child 1 us less; the last ends where it begins */
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE self_ns = 1000"), N_NAMES - 1);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event_stats WHERE calls = 1"), N_NAMES);
    sqlite3_close(d);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* B event i at i us named r<i % 100>; then, from 1,000,000 us on, an E a us, each ending the innermost. */
static void begun_then_ended(FILE *out, int i, int n)
{
    if (i < n / 2)
        fprintf(out, "{\"ph\":\"B\",\"name\":\"r%d\",\"pid\":1,\"tid\":1,\"ts\":%d},\n", i % 100, i);
    else
        fprintf(out, "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":%d},\n", i);
}

/* A million ranges begun, then ended innermost first: they come out in that order (row 1 the innermost),
 * each going back in time, so the end's sweep nests them: range i lasts 1,999,999 - 2i us, 2 us its own
 * (the innermost 1 us). */
Test(import_memory, a_million_ranges_begun_then_ended_import_in_bounded_memory, .timeout = 300)
{
    char *dir = temp_dir(), json[600], db[600];
    write_trace(json, sizeof json, dir, "ended", 2 * N_NAMES, begun_then_ended);
    snprintf(db, sizeof db, "%s/ended.db", dir);
    import_lean(json, db);
    long kb = children_peak_kb();
    cr_assert_lt(kb, RSS_DEEP_KB, "peak RSS of the import %ld KB: the sweep's stack held in memory", kb);
    sqlite3 *d = db_open(db);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event"), N_NAMES);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE id < 1000000 AND parent_id IS NOT id + 1"), 0,
                 "each range inside the one that ended after it");
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE depth <> min(1000000 - id, 65535)"), 0);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE dur_ns <> 1000 * (1999999 - 2 * (start_ns / 1000))"), 0);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE self_ns = 2000"), N_NAMES - 1);
    cr_assert_eq(db_int(d, "SELECT sum(self_ns) FROM event_stats"), 2000LL * N_NAMES - 1000);
    sqlite3_close(d);
    run("rm -rf '%s'", dir);
    free(dir);
}

#define DEEP 3000

/* Thread 1: DEEP operators nested (operator i at i us for 2 DEEP - 2i us, named op_<i % 7>), then, in
 * time order, a launch in each where it is alone (DEEP - i deep: the first reaches down the whole
 * stack) of a kernel of 1 + i us; thread 2: as many nested, written innermost first, each going back in
 * time (the end's sweep nests them). */
static void deep_two_ways(FILE *out, int i, int n)
{
    (void)n;
    if (i < DEEP)
        fprintf(out, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op_%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},\n",
                i % 7, i, 2 * DEEP - 2 * i);
    else if (i < 2 * DEEP) {
        int k = 2 * DEEP - 1 - i; /* operator k's, in time order */
        fprintf(out,
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d.5,"
                "\"dur\":0.2,\"args\":{\"correlation\":%d}},\n"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":%d,"
                "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}},\n",
                2 * DEEP - k - 1, i + 1, 2 * DEEP + 4000 * (i - DEEP), 1 + k, i + 1);
    } else {
        int k = 3 * DEEP - 1 - i; /* innermost first */
        fprintf(out, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op_%d\",\"pid\":1,\"tid\":2,\"ts\":%d,\"dur\":%d},\n",
                k % 7, k, 2 * DEEP - 2 * k);
    }
}

Test(import_memory, deep_stacks_beyond_memory_give_the_database_held_in_memory, .timeout = 300)
{
    char *dir = temp_dir(), json[600], mem_db[600], disk_db[600], err[600];
    write_trace(json, sizeof json, dir, "deep", 3 * DEEP, deep_two_ways);
    snprintf(mem_db, sizeof mem_db, "%s/mem.db", dir);
    snprintf(disk_db, sizeof disk_db, "%s/disk.db", dir);
    snprintf(err, sizeof err, "%s/timing.txt", dir);
    cr_assert_eq(import_to(json, mem_db), 0);
    /* two frames of each stack in memory, the rest on disk */
    cr_assert_eq(run("TRACEDB_TIMING=1 TRACEDB_SORT_KIB=1 '%s' import -q '%s' -o '%s' 2>'%s'", tracedb(), json, disk_db, err),
                 0);
    char *text = read_file(err, NULL), *line = strstr(text, "beyond memory: ");
    cr_assert(line, "no \"beyond memory\" line in:\n%s", text);
    long long stacks = -1;
    const char *at = strstr(line, "per-name sums, ");
    cr_assert(at && sscanf(at, "per-name sums, %lld of the nesting's stacks", &stacks) == 1, "%s", line);
    cr_assert_gt(stacks, 2 * DEEP, "the stacks' deep parts went to the file: %s", line);
    free(text);
    sqlite3 *d = db_open(disk_db);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event e JOIN thread t ON t.id = e.thread_id WHERE t.tid = 2 "
                           "AND e.depth = e.start_ns / 1000 AND e.self_ns = 2000 AND (e.depth = 0) = (e.parent_id IS NULL)"),
                 DEEP, "thread 2 nested by the sweep");
    sqlite3_close(d);
    char *mem = all_rows(mem_db), *disk = all_rows(disk_db);
    cr_assert(strcmp(mem, disk) == 0, "the tables differ with the stacks' deep parts on disk");
    free(mem), free(disk);
    /* and `ops`, which reads the pack but the rows it names rewritten, the same from both */
    int st_mem, st_disk;
    disk = run_capture(&st_disk, "TRACEDB_TIMING=1 '%s' ops '%s' --format csv 2>&1 >/dev/null | grep -c 'ops: pack open'",
                       tracedb(), disk_db);
    cr_expect_str_eq(disk, "1\n", "the pack was not read");
    free(disk);
    mem = run_capture(&st_mem, "'%s' ops '%s' --format csv 2>/dev/null", tracedb(), mem_db);
    disk = run_capture(&st_disk, "'%s' ops '%s' --format csv 2>/dev/null", tracedb(), disk_db);
    cr_expect(st_mem == 0 && st_disk == 0);
    cr_expect_str_eq(mem, disk);
    cr_expect_gt(strlen(mem), 100);
    free(mem), free(disk);
    run("rm -rf '%s'", dir);
    free(dir);
}
