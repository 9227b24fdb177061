/* The matrix (JSON through jansson): made, written, read and validated
 * (matrix.c, matrix_load.c, matrix_walk.c, matrix_check.c), and files
 * written whole or not at all (outfile.c). */
#ifndef CTS_MATRIX_H
#define CTS_MATRIX_H

#include "cts.h"

#include <jansson.h>
#include <stdio.h>

#define CTS_MATRIX_SCHEMA "cuda-sync-cts/matrix"


/* matrix.c */
/* A case's "verdict": every field of cts_outcomes (outcome.h) that has a
 * value, and those in every verdict (null where NA); pass 0 (a case with no
 * verdict): those alone, null. */
json_t *cts_verdict_json(const struct cts_verdict *v, int pass);
json_t *cts_case_json(const struct cts_case *c, const struct cts_result *r);
json_t *cts_matrix_new(json_t *environment, json_t *run, json_t *cases);
/* Loads and validates a matrix, plain or gzip-compressed; on failure returns
 * NULL and a one-line reason naming the file (and the case and member that
 * are wrong).  Every member a command reads has been checked: types,
 * presence, names (status, verdict, conformance, ...), times finite and not
 * negative, per-repetition arrays as long as evidence.repetitions, clause
 * ids in the matrix's clause table.  The tree lives in an arena that is
 * released when the process ends; json_decref on it is allowed but frees
 * nothing.  A large matrix is decoded by two threads; load while no other
 * thread uses jansson (the arena's bookkeeping is not locked). */
json_t *cts_matrix_load(const char *path, char *err, size_t errlen);
/* The same, case by case: each case, validated, is passed to each(ctx, id,
 * c) and dropped after the call (copy what is kept; non-zero return: out of
 * memory).  Returns the matrix with an empty "cases", validated as above;
 * NULL and a reason on failure (cases already passed are then to be
 * discarded).  A whole matrix's tree is never held. */
typedef int (*cts_case_fn)(void *ctx, const char *id, const json_t *c);
json_t *cts_matrix_load_each(const char *path, cts_case_fn each, void *ctx, char *err, size_t errlen);
/* The same, the cases read by two threads (a large matrix, as cts_matrix_load
 * reads it): each may be called from both at once, never twice for one case,
 * in no set order; it locks what it shares. */
json_t *cts_matrix_load_each_in_two(const char *path, cts_case_fn each, void *ctx, char *err, size_t errlen);
/* The same for the cases whose id want(ctx, id) returns non-zero for; the
 * others are stepped over unread (their strings and nesting followed,
 * nothing decoded or validated): `cite` reads one case of a matrix so. */
typedef int (*cts_want_fn)(void *ctx, const char *id);
json_t *cts_matrix_load_some(const char *path, cts_want_fn want, cts_case_fn each, void *ctx, char *err,
                             size_t errlen);
/* 0 when id could be a case id, else -1 and a one-line reason (too long,
 * empty, a control character). */
int cts_case_id_check(const char *id, char *err, size_t errlen);
int cts_matrix_dump(const json_t *m, FILE *f);
/* The same, gzip-compressed (committed matrices are FILE.json.gz). */
int cts_matrix_dump_gz(const json_t *m, FILE *f);

/* A file that appears at its path only when committed (temp file + rename,
 * in the directory of the file a symbolic link names; a replaced file keeps
 * its mode).  A device or pipe (/dev/null) is written directly.  Until it
 * is committed or aborted, its temporary file is removed if SIGINT, SIGTERM
 * or SIGHUP ends the process. */
struct cts_outfile {
    char path[4096];
    char tmp[4200];
    FILE *f;
    int slot;   /* in the cleanup registry; -1 for none */
    int direct; /* a device or pipe, written in place */
    int std;    /* standard output (cts_output_open "-") */
};
int cts_outfile_open(struct cts_outfile *o, const char *path, char *err, size_t errlen);
int cts_outfile_commit(struct cts_outfile *o, char *err, size_t errlen);
void cts_outfile_abort(struct cts_outfile *o);
/* The registry behind it, for any other temporary file (run.c): add its
 * path (returns a slot, -1 if the registry is full or the path too long)
 * as soon as the file exists, and remove the slot once the file is renamed
 * or unlinked; the handler then unlinks every registered path on any signal
 * that ends the process but a crash's and lets the signal end it.  cts_cleanup_add
 * installs the handler (cts_cleanup_install does only that); signals
 * ignored at that time stay ignored. */
void cts_cleanup_install(void);
int cts_cleanup_add(const char *path);
void cts_cleanup_remove(int slot);

/* Two paths naming one file: by st_dev and st_ino where both exist, else by
 * their canonical names (links followed, directories resolved): 1, else 0. */
int cts_same_file(const char *a, const char *b);
/* Refuses an output (a path; "-" or NULL: standard output) that is one of
 * the input files, by identity: -1 and a one-line reason. */
int cts_output_check(const char *out, const char *const *inputs, size_t n, char *err, size_t errlen);
/* cts_output_check, then "-" (or NULL) as standard output, any other path
 * as cts_outfile_open; commit and abort as for an outfile. */
int cts_output_open(struct cts_outfile *o, const char *out, const char *const *inputs, size_t n, char *err,
                    size_t errlen);
/* The text, rendered whole beforehand, written to out as cts_output_open
 * takes it and committed: 0, or -1 and a one-line reason (nothing written). */
int cts_output_write(const char *out, const char *const *inputs, size_t n, const char *text, size_t len, char *err,
                     size_t errlen);

#endif
