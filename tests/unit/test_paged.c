/* test_paged.c: arrays of records in bounded memory (recorder/store/paged.c): far more records than the
 * budget holds keep their values through the file, in any order of access, while the memory held never
 * passes the budget; two records may be held at once; forgotten pages come back zero and their slots
 * are used again; a directory that cannot take the file is an error, not a crash. */
#include "helpers.h"
#include "paged.h"
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct rec40 {
    int64_t a, b, c, d, e;
};

static uint64_t rng = 88172645463325252ULL;

static size_t rnd(size_t n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (size_t)(rng % n);
}

#define N 100000
#define BUDGET (64 * 1024)

Test(paged, many_records_keep_their_values_in_bounded_memory)
{
    char *dir = temp_dir();
    struct paged_file f;
    struct paged a;
    cr_assert_eq(paged_file_init(&f, dir, 4096), 0);
    paged_init(&a, &f, sizeof(struct rec40), BUDGET);
    for (size_t i = 0; i < N; i++) {
        struct rec40 *r = paged_at(&a, i);
        cr_assert_not_null(r, "record %zu", i);
        cr_assert_eq(r->a | r->e, 0, "a new record is zero");
        *r = (struct rec40){(int64_t)i, -(int64_t)i, 7, 8, (int64_t)i * 3};
        cr_assert_leq(paged_resident_bytes(&a), BUDGET);
    }
    cr_assert_gt(a.writes, 0, "the pages beyond the budget went to the file");
    for (int k = 0; k < 3 * N; k++) { /* at random: read, and change one field */
        size_t i = rnd(N);
        struct rec40 *r = paged_at(&a, i);
        cr_assert_not_null(r);
        cr_assert_eq(r->a, (int64_t)i, "record %zu", i);
        cr_assert_eq(r->b, -(int64_t)i);
        cr_assert_eq(r->e % 3, 0);
        r->e += 3;
        cr_assert_leq(paged_resident_bytes(&a), BUDGET);
    }
    int64_t sum = 0;
    for (size_t i = 0; i < N; i++) { /* every change kept */
        const struct rec40 *r = paged_at(&a, i);
        sum += r->e - 3 * (int64_t)i;
    }
    cr_assert_eq(sum, 3 * 3 * N);
    cr_assert_gt(a.reads, 0);
    paged_free(&a);
    paged_file_free(&f);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The page of the latest record asked for stays: a record and the next one asked for (on another page,
 * with room for two pages only) are both written through their pointers. */
Test(paged, the_record_asked_for_last_survives_the_next_one)
{
    char *dir = temp_dir();
    struct paged_file f;
    struct paged a;
    cr_assert_eq(paged_file_init(&f, dir, 64), 0);
    paged_init(&a, &f, 32, 1); /* two pages of two records in memory */
    for (size_t i = 0; i < 64; i++)
        *(int64_t *)paged_at(&a, i) = (int64_t)i;
    for (int k = 0; k < 2000; k++) {
        size_t i = rnd(64), j = rnd(64);
        int64_t *x = paged_at(&a, i), *y = paged_at(&a, j);
        cr_assert(x && y);
        cr_assert_eq(*x, (int64_t)i, "record %zu, held while %zu was asked for", i, j);
        cr_assert_eq(*y, (int64_t)j);
    }
    paged_free(&a);
    paged_file_free(&f);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A stack's way: up and down many times; the pages past the top are forgotten (zero when made again)
 * and the file's slots are used again, so it does not grow with the times the stack went up. */
Test(paged, forgotten_pages_come_back_zero_and_their_slots_are_used_again)
{
    char *dir = temp_dir();
    struct paged_file f;
    struct paged a;
    cr_assert_eq(paged_file_init(&f, dir, 1024), 0);
    paged_init(&a, &f, sizeof(int64_t), 4096);
    uint64_t slots = 0;
    for (int round = 0; round < 5; round++) {
        for (size_t i = 0; i < 20000; i++) {
            int64_t *v = paged_at(&a, i);
            cr_assert_not_null(v);
            cr_assert_eq(*v, 0, "round %d: record %zu was forgotten", round, i);
            *v = (int64_t)i + 1;
        }
        for (size_t i = 20000; i-- > 0;) {
            cr_assert_eq(*(int64_t *)paged_at(&a, i), (int64_t)i + 1);
            paged_truncate(&a, i);
        }
        if (round == 0)
            slots = f.slots;
        cr_assert_eq(f.slots, slots, "round %d: the file grew", round);
    }
    cr_assert_gt(slots, 0);
    paged_free(&a);
    paged_file_free(&f);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(paged, a_directory_that_cannot_take_the_file_is_an_error)
{
    struct paged_file f;
    struct paged a;
    cr_assert_eq(paged_file_init(&f, "/nonexistent-tracedb-dir", 64), 0);
    paged_init(&a, &f, 64, 128);
    cr_assert_not_null(paged_at(&a, 0));
    cr_assert_not_null(paged_at(&a, 1));
    void *r = NULL;
    for (size_t i = 2; i < 10 && (r = paged_at(&a, i)) != NULL; i++)
        ;
    cr_assert_null(r, "past the budget, a page must go to the file");
    cr_assert_eq(paged_file_error(&f), ENOENT);
    paged_free(&a);
    paged_file_free(&f);
}
