/* A value as the matrix writes it, for the matrix's writer (matrix.c) and the
 * self-measured kinds' evidence (outcomes/<kind>.c): times in microseconds
 * rounded to 0.1, fractions to 0.001, NAN (nothing measured) and NULL as
 * null. */
#ifndef CTS_CORE_OUTCOMES_EVIDENCE_H
#define CTS_CORE_OUTCOMES_EVIDENCE_H

#include <jansson.h>
#include <math.h>

static inline json_t *us(double x) { return isnan(x) ? json_null() : json_real(round(x * 10.0) / 10.0); }
static inline json_t *fraction(double x) { return isnan(x) ? json_null() : json_real(round(x * 1000.0) / 1000.0); }
static inline json_t *name_or_null(const char *s) { return s ? json_string(s) : json_null(); }

/* An observation of a kind in the kind slot (outcome.h, cts_obs_set) as the matrix writes it: null
 * where not seen, an integer where it is one, else rounded to 0.1. */
static inline json_t *obs_number(double x)
{
    return isnan(x) ? json_null() : x == floor(x) && fabs(x) < 1e15 ? json_integer((json_int_t)x) : us(x);
}

/* A kind in the kind slot, for its cite paragraph: the first repetition's observation `name` in case
 * c as a matrix holds it (evidence.<key>.<name>[0]), NAN where there is none. */
static inline double obs_first(const json_t *c, const char *key, const char *name)
{
    const json_t *x = json_array_get(json_object_get(json_object_get(json_object_get(c, "evidence"), key), name), 0);
    return json_is_number(x) ? json_number_value(x) : NAN;
}

/* A kind's struct cts_evidence from its <name>_names, _has and _value, and the validator's rule; every
 * member required, or (CTS_EVIDENCE_SINCE) those from names[since] on absent in older matrices. */
#define CTS_EVIDENCE_COUNT(name) ((int)(sizeof name##_names / sizeof *name##_names))
#define CTS_EVIDENCE_SINCE(key, name, element, since)                                                     \
    {key, name##_names, CTS_EVIDENCE_COUNT(name), name##_has, name##_value, element, since}
#define CTS_EVIDENCE(key, name, element) CTS_EVIDENCE_SINCE(key, name, element, CTS_EVIDENCE_COUNT(name))

#endif
