/* Known variability (known.c): the outcomes each case has taken over runs of
 * one configuration, made from their matrices by `sync-cts variability`, and
 * read by `diff --known` and `check --known`, which count a case whose
 * outcome moved inside that set as "within known variability", apart from
 * changes (docs/matrix.md, "Known variability"). */
#ifndef CTS_KNOWN_H
#define CTS_KNOWN_H

#include "cts.h"

#include <jansson.h>
#include <stddef.h>

#define CTS_KNOWN_SCHEMA "cuda-sync-cts/variability"

struct cts_known {
    json_t *top;      /* the file */
    const char **ids; /* sorted; the cases with more than one outcome */
    const char **set; /* [i]: "/A/W/" -- ids[i]'s outcomes, each between slashes */
    size_t n;
};

/* Reads and validates a known-variability file; -1 and a one-line reason
 * naming the file where it cannot be read or is not one. */
int cts_known_load(const char *path, struct cts_known *k, char *err, size_t errlen);
void cts_known_free(struct cts_known *k);
/* 0 where matrix m (at mpath) was measured in the configuration k was made
 * of; else -1 and a one-line reason naming what differs (known variability
 * is a configuration's: the baseline's, when two are compared). */
int cts_known_fits(const struct cts_known *k, const json_t *m, const char *kpath, const char *mpath, char *err,
                   size_t errlen);
/* Whether case `id` moving from (status_a, sym_a) to (status_b, sym_b) stays
 * within its known outcomes: both have a verdict (PASS or VARIES) and every
 * symbol of each (a VARIES symbol's parts, "A/W") is one the case has taken. */
int cts_known_within(const struct cts_known *k, const char *id, enum cts_status status_a, const char *sym_a,
                     enum cts_status status_b, const char *sym_b);
/* The configuration a matrix was measured in, as an object: what makes two
 * matrices comparable run to run (GPU model, driver, runtime, settings,
 * hold, visible device count, CUDA_* variables but CUDA_VISIBLE_DEVICES) and
 * not which GPU or host or revision.  NULL if out of memory. */
json_t *cts_configuration(const json_t *m);
/* The first member in which configurations a and b differ, or NULL. */
const char *cts_configuration_differs(const json_t *a, const json_t *b);

int cts_variability_main(int argc, char **argv);
/* fleet.c: sync-cts fleet. */
int cts_fleet_main(int argc, char **argv);
/* model.c: sync-cts model. */
int cts_model_main(int argc, char **argv);

#endif
