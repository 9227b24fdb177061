/* The spec table (spec.h): the clauses of the documentation that spec.c's
 * general rules cite (clauses.def), then each family's own, and their lookup
 * by id.  The judgement of a case against them is spec.c's. */
#include "spec.h"

#include <string.h>

#define RT_SYNC "https://docs.nvidia.com/cuda/cuda-runtime-api/api-sync-behavior.html"
#define DRV_SYNC "https://docs.nvidia.com/cuda/cuda-driver-api/api-sync-behavior.html"
#define RT_STREAM "https://docs.nvidia.com/cuda/cuda-runtime-api/stream-sync-behavior.html"
#define PG "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html"
#define RT_REF "https://docs.nvidia.com/cuda/cuda-runtime-api/"

const char cts_spec_documentation[] =
    "CUDA 13.0: Runtime API and Driver API (API synchronization behavior, Stream synchronization "
    "behavior, reference pages as in the CUDA 13.0 headers), CUDA C++ Programming Guide";

static const struct cts_clause clauses[] = {
#define CLAUSE(id, where, quote, url, no_case) {id, where, quote, url, no_case},
#include "clauses.def"
};
#define NCLAUSES (sizeof clauses / sizeof *clauses)

/* The families' own clauses follow spec.c's, family by family. */
size_t cts_clause_total(void)
{
    size_t n = NCLAUSES;
    for (size_t f = 0; f < cts_family_count; f++)
        for (const struct cts_clause *k = cts_families[f]->clauses; k && k->id; k++)
            n++;
    return n;
}

const struct cts_clause *cts_clause_at(size_t i)
{
    if (i < NCLAUSES)
        return &clauses[i];
    i -= NCLAUSES;
    for (size_t f = 0; f < cts_family_count; f++)
        for (const struct cts_clause *k = cts_families[f]->clauses; k && k->id; k++)
            if (i-- == 0)
                return k;
    return NULL;
}

size_t cts_clause_index(const char *id)
{
    const struct cts_clause *k;
    size_t i = 0;
    for (; (k = cts_clause_at(i)) != NULL; i++)
        if (strcmp(k->id, id) == 0)
            break;
    return i;
}

const struct cts_clause *cts_clause_find(const char *id)
{
    return cts_clause_at(cts_clause_index(id));
}
