/* The stream family's own, shared by its two files only: cases/stream.c (the
 * family: its cases and their hooks) and cases/stream_event.c (the event
 * cases of issue 41: cudaStreamWaitEvent of an event not yet recorded, or
 * recorded again, when the call is made, and cudaEventElapsedTime; their
 * hooks, the family's clauses and its judge).  What the family measures and
 * why: cases/stream.c. */
#ifndef CTS_CASES_STREAM_FAMILY_H
#define CTS_CASES_STREAM_FAMILY_H

#include "../harness/core/cts.h"
#include "../harness/core/spec.h"

#include <stddef.h>

/* 1 for a case of cases/stream_event.c, whose hooks below stream.c's hand it to. */
int stream_event_case(const struct cts_case *c);
int stream_event_needs(const struct cts_case *c, char *why, size_t len);
int stream_event_prepare(const struct cts_case *c, struct cts_scratch *s, const char **error);
int stream_event_before(const struct cts_case *c, struct cts_scratch *s, void *stream, const char **error);
int stream_event_after(const struct cts_case *c, struct cts_scratch *s, void *stream, const char **error);
int stream_event_issue(const struct cts_case *c, const struct cts_call *call, const char **error);
int stream_event_cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error);
const char *stream_event_rejects(const struct cts_case *c, const char **clause);

/* The family's clauses and judge (all of them the event cases'). */
extern const struct cts_clause stream_clauses[];
void stream_judge(struct cts_judge *j);

#endif
