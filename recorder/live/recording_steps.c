/* recording_steps.c: the steps of a recording's schedule (PyTorch's skip_first, wait, warmup, active,
 * repeat): which steps keep events, and where a step ends: at tdb_step(), or, for programs whose steps are
 * NVTX ranges (emit_nvtx, C++ trainers), where a range whose name matches the step glob (TRACEDB_STEP,
 * tracedb record --step; "ProfilerStep*" by default) ends: pushed and popped, or started and ended, on any
 * thread. A matching range pushed inside a thread's open step range is part of that step, not a step.
 * The end of the k-th step range begins step k + 1: what comes between two step ranges (loading the next
 * batch) goes with the step after it, as it does between two tdb_step() calls. */
#include "recording_internal.h"
#include <sqlite3.h>

int rec_schedule_at(struct tdb_recording *r, int64_t step)
{
    const struct tdb_options *o = &r->opt;
    int64_t cycle = o->wait + o->warmup + o->active;
    int64_t pos = step - 1 - o->skip_first; /* steps counted from 1, as PyTorch's ProfilerStep#N */
    int active = 1, due = 0;
    if (o->active > 0) {
        if (pos < 0 || (o->repeat > 0 && pos >= cycle * o->repeat))
            active = 0;
        else
            active = pos % cycle >= o->wait + o->warmup;
        due = pos > 0 && pos % cycle == 0 && (o->repeat == 0 || pos / cycle <= o->repeat);
    }
    atomic_store(&r->active, active);
    return due;
}

void rec_cycle_done(struct tdb_recording *r)
{
    if (!r->opt.on_cycle)
        return;
    rec_flush(r);
    r->opt.on_cycle(r, r->opt.on_cycle_arg);
}

/* A step range ended: the next step begins. */
static void rec_step_ended(struct tdb_recording *r)
{
    pthread_mutex_lock(&r->step_lock);
    int due = rec_schedule_at(r, ++r->steps_ended + 1);
    pthread_mutex_unlock(&r->step_lock);
    if (due)
        rec_cycle_done(r);
}

void rec_step_push(struct tdb_recording *r, struct rec_thread *t, const char *name, const char *cat)
{
    if (t->step_open) { /* inside a step: its domain's ranges are counted, so that its own pop is known */
        t->step_inner += cat == t->step_cat;
        return;
    }
    if (!atomic_load_explicit(&r->stepped, memory_order_relaxed) && sqlite3_strglob(r->step_glob, name) == 0)
        t->step_open = 1, t->step_cat = cat, t->step_inner = 0;
}

void rec_step_pop(struct tdb_recording *r, struct rec_thread *t, const char *cat)
{
    if (!t->step_open || cat != t->step_cat)
        return;
    if (t->step_inner) {
        t->step_inner--;
        return;
    }
    t->step_open = 0;
    rec_step_ended(r);
}

void rec_step_start(struct tdb_recording *r, int64_t id, const char *name)
{
    if (atomic_load_explicit(&r->stepped, memory_order_relaxed) || sqlite3_strglob(r->step_glob, name) != 0)
        return;
    for (int i = 0; i < REC_STEP_IDS; i++) { /* more open at once than there are slots: those end no step */
        int64_t free_slot = 0;
        if (atomic_compare_exchange_strong(&r->step_ids[i], &free_slot, id)) {
            atomic_fetch_add(&r->step_ids_open, 1);
            return;
        }
    }
}

void rec_step_end(struct tdb_recording *r, int64_t id)
{
    if (atomic_load_explicit(&r->step_ids_open, memory_order_acquire) == 0)
        return;
    for (int i = 0; i < REC_STEP_IDS; i++) {
        int64_t mine = id;
        if (atomic_compare_exchange_strong(&r->step_ids[i], &mine, 0)) {
            atomic_fetch_sub(&r->step_ids_open, 1);
            rec_step_ended(r);
            return;
        }
    }
}
