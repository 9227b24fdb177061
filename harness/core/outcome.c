/* The verdict's fields, registered once (outcome.h), and the engine's fields'
 * values' names (the self-measured families' kinds: outcomes/, a file each).
 * The names are part of every committed matrix: changing one changes what
 * the matrices say, so don't. */
#include "outcome.h"
#include "outcomes/outcomes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const host_names[] = {NULL, "returns", "waits"};
static const char *const order_names[] = {NULL, "runs", "held", "held_anyway"};
static const char *const src_names[] = {NULL, "at_call", "after_return", "partial"};
static const char *const dst_names[] = {NULL, "complete", "pending"};
static const char *const data_names[] = {NULL, "ordered", "stale", "partial"};
static const char *const reader_names[] = {NULL, "saw", "missed"};

#define N(a) (int)(sizeof a / sizeof *a)
#define AT(member) offsetof(struct cts_verdict, member)
/* An engine's field: key, names, member, always in a verdict, CSV column. */
#define NAMED(key_, names_, member, always_, csv_)                                                        \
    static const struct cts_outcome member##_field = {                                                    \
        .key = key_, .names = names_, .count = N(names_), .at = AT(member), .always = always_, .csv = csv_};

/* Whether the call returned while the gate held its work (W or A). */
NAMED("host", host_names, host, 1, "host")
/* Work queued after the call, seen while the gate was closed: on the op stream, and on a third
 * blocking and non-blocking stream. */
NAMED("op_after", order_names, op_after, 1, "op_after")
NAMED("third_blocking", order_names, third_blocking, 1, "third_blocking")
NAMED("third_nonblocking", order_names, third_nonblocking, 1, "third_nonblocking")
/* When a copy read its host source, and whether a host destination was complete at the return. */
NAMED("src", src_names, src, 1, "src")
NAMED("dst", dst_names, dst, 1, "dst")
/* The documented rejection's error, where the call was rejected: a string. */
static const struct cts_outcome rejected_field = {.key = "rejected", .at = AT(rejected)};
/* Data order (written cases): the bytes the copy moved, and what work after it read. */
NAMED("data", data_names, data, 0, NULL)
NAMED("reader", reader_names, reader, 0, NULL)
/* A synchronous copy's or memset's destination right after the return. */
NAMED("landed", dst_names, landed, 0, NULL)

/* The engine's fields, then the self-measured families' kinds (apis.def's CTS_KIND lines). */
const struct cts_outcome *const cts_outcomes[CTS_OUTCOME_COUNT] = {
    &host_field, &op_after_field, &third_blocking_field, &third_nonblocking_field, &src_field, &dst_field,
    &rejected_field, &data_field, &reader_field, &landed_field,
#define CTS_KIND(name) &cts_##name##_outcome,
#include "apis.def"
};

const struct cts_outcome *cts_outcome_find(const char *key)
{
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++)
        if (!strcmp(cts_outcomes[k]->key, key))
            return cts_outcomes[k];
    return NULL;
}

int cts_outcome_index(const struct cts_outcome *o)
{
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++)
        if (cts_outcomes[k] == o)
            return k;
    return -1;
}

int cts_outcome_get(const struct cts_verdict *v, const struct cts_outcome *o)
{
    if (o->at == CTS_AT_KIND)
        return v->kind == o ? v->kind_value : 0;
    const char *p = (const char *)v + o->at;
    if (!o->names)
        return *(const char *const *)p != NULL;
    return *(const int *)p;
}

const char *cts_outcome_name(const struct cts_verdict *v, const struct cts_outcome *o)
{
    if (!o->names)
        return *(const char *const *)((const char *)v + o->at);
    int x = cts_outcome_get(v, o);
    return (unsigned)x < (unsigned)o->count ? o->names[x] : "?";
}

int cts_outcome_parse(const struct cts_outcome *o, const char *name)
{
    for (int i = 1; name && o->names && i < o->count; i++)
        if (!strcmp(o->names[i], name))
            return i;
    return 0;
}

void cts_outcome_set(struct cts_verdict *v, const struct cts_outcome *o, int value)
{
    if (o->at == CTS_AT_KIND) { /* the slot is this kind's once it has a value, and no kind's when cleared */
        if (value || v->kind == o) {
            v->kind = value ? o : NULL;
            v->kind_value = value;
            v->kind_count = 0;
        }
        return;
    }
    if (o->names)
        *(int *)((char *)v + o->at) = value;
    if (o->count_key)
        *cts_outcome_count_of(v, o) = 0;
}

void cts_outcome_clear(struct cts_verdict *v, const struct cts_outcome *o)
{
    if (!o->names)
        *(const char **)((char *)v + o->at) = NULL;
    cts_outcome_set(v, o, 0);
}

int cts_outcome_symbol(const struct cts_verdict *v, const char *host, char *buf, size_t len)
{
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++) {
        const struct cts_outcome *o = cts_outcomes[k];
        int x = o->letters ? cts_outcome_get(v, o) : 0;
        if (!x)
            continue;
        const char *letter = (unsigned)x < (unsigned)o->count ? o->letters[x] : o->letters[0];
        if (cts_outcome_counted(v, o)) /* the depth found, or none up to it */
            snprintf(buf, len, "%s%lld", letter, cts_outcome_count_in(v, o));
        else if (!*letter) /* beside a full queue: the call's own */
            snprintf(buf, len, "%s", host);
        else
            snprintf(buf, len, "%s%s%s", o->after_host ? host : "", o->after_host ? ":" : "", letter);
        return 1;
    }
    return 0;
}

int cts_outcome_counted(const struct cts_verdict *v, const struct cts_outcome *o)
{
    int x = cts_outcome_get(v, o);
    return o->count_key && x > 0 && x < 32 && (o->count_with >> x & 1u);
}

long long *cts_outcome_count_of(struct cts_verdict *v, const struct cts_outcome *o)
{
    if (o->at == CTS_AT_KIND)
        return &v->kind_count; /* the slot's: set the kind's value first */
    return (long long *)((char *)v + o->count_at);
}

long long cts_outcome_count_in(const struct cts_verdict *v, const struct cts_outcome *o)
{
    if (o->at == CTS_AT_KIND)
        return v->kind == o ? v->kind_count : 0;
    return *(const long long *)((const char *)v + o->count_at);
}

/* The place of `name` among the kind's observations (its first evidence's names), -1 if none. */
static int obs_index(const struct cts_outcome *o, const char *name)
{
    const struct cts_evidence *e = o->at == CTS_AT_KIND ? o->evidence[0] : NULL;
    for (int k = 0; e && k < e->count && k < CTS_OBS_MAX; k++)
        if (!strcmp(e->names[k], name))
            return k;
    return -1;
}

int cts_obs_set(struct cts_rep *r, const struct cts_outcome *o, const char *name, double x)
{
    int k = obs_index(o, name);
    if (k < 0)
        return -1;
    if (r->obs.kind != o) {
        r->obs.kind = o;
        for (int i = 0; i < CTS_OBS_MAX; i++)
            r->obs.v[i] = NAN;
    }
    r->obs.v[k] = x;
    return 0;
}

double cts_obs_get(const struct cts_rep *r, const struct cts_outcome *o, const char *name)
{
    int k = obs_index(o, name);
    return k < 0 || r->obs.kind != o ? NAN : r->obs.v[k];
}

/* The names cts.h declares, from the same tables. */
#define NAME_OF(fn, type, names)                                          \
    const char *fn(type x) { return (unsigned)x < (unsigned)N(names) ? names[x] : "?"; }
NAME_OF(cts_host_name, enum cts_host, host_names)
NAME_OF(cts_order_name, enum cts_order, order_names)
NAME_OF(cts_src_name, enum cts_src, src_names)
NAME_OF(cts_dst_name, enum cts_dst, dst_names)
NAME_OF(cts_data_name, enum cts_data, data_names)
NAME_OF(cts_reader_name, enum cts_reader, reader_names)
