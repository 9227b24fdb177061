/* What the validation's files share.  The validation (matrix_check.c says
 * what it is) is split by what it checks:
 *   matrix_check.c           case ids, a case (its names, verdict and spec)
 *   matrix_check_value.c     a member of each kind (a string, an object, a
 *                            whole number, a number, a name)
 *   matrix_check_evidence.c  a case's evidence: the counts and times every
 *                            case has, the per-repetition arrays, the
 *                            families' own observations
 *   matrix_check_top.c       the matrix outside its cases: the environment,
 *                            the run, the clause table, the thresholds section
 * A check returns 0, or -1 with why (len bytes) saying what is wrong (BAD). */
#ifndef CTS_MATRIX_CHECK_INT_H
#define CTS_MATRIX_CHECK_INT_H

#include "matrix_int.h"

#include <stddef.h>
#include <stdio.h>

#define BAD(...) (snprintf(why, len, __VA_ARGS__), -1)

enum { REQ = 0, OPT = 1, NUL = 2 }; /* a member may be absent (OPT) or null (NUL) */

/* An enum's names: by a function, or (a verdict field's, outcome.h) a list. */
struct names {
    const char *(*name)(int);
    int count;
    const char *const *list;
};

/* The functions the files share (each is described where it is defined). */
/* matrix_check_value.c: a member of each kind */
const char *cts_mx_type_name(const json_t *v);
int cts_mx_member(const json_t *o, const char *pre, const char *key, int flags, const json_t **v, char *why,
                  size_t len);
int cts_mx_v_str(const json_t *o, const char *pre, const char *key, int flags, const char **s, char *why,
                 size_t len);
int cts_mx_v_obj(const json_t *o, const char *pre, const char *key, int flags, const json_t **out, char *why,
                 size_t len);
int cts_mx_v_int(const json_t *o, const char *pre, const char *key, int flags, json_int_t lo, json_int_t hi,
                 json_int_t *out, char *why, size_t len);
int cts_mx_number_ok(const json_t *v, int time, const char *pre, const char *key, char *why, size_t len);
int cts_mx_v_num(const json_t *o, const char *pre, const char *key, int flags, int time, char *why, size_t len);
int cts_mx_name_ok(const json_t *v, struct names n, int flags, const char *pre, const char *key, char *why,
                   size_t len);
int cts_mx_v_name(const json_t *o, const char *pre, const char *key, int flags, struct names n, int *idx,
                  char *why, size_t len);
/* matrix_check_evidence.c */
int cts_mx_check_evidence(const json_t *ev, int status, char *why, size_t len);
/* matrix_check_top.c: cts_mx_check_top (matrix_int.h) */

#endif
