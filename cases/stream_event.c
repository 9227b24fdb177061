/* The stream family's event cases of issue 41 (cases/stream.c says what each
 * asks and why): cudaStreamWaitEvent of an event never recorded, or recorded
 * (again) by after() behind the held work once the call was made; and
 * cudaEventElapsedTime of two complete events, of an end event recorded
 * behind the held work, and of events made without timing.  Each case makes
 * its own events in prepare() and destroys them in cleanup(), whether or not
 * the call succeeded.  The family's clauses and its judge are here too: they
 * speak of these cases only. */
#include "stream_family.h"
#include "../harness/families/family.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define NEVER_RECORDED "never_recorded"
#define RECORDED_AFTER "recorded_after"
#define RERECORDED_AFTER "rerecorded_after"
#define PENDING "pending"
#define DISABLE_TIMING "disable_timing"

static int is(const struct cts_case *c, const char *variant)
{
    return c->variant && !strcmp(c->variant, variant);
}

int stream_event_case(const struct cts_case *c)
{
    if (c->api == CTS_API_EVENT_ELAPSED_TIME)
        return 1;
    return c->api == CTS_API_STREAM_WAIT_EVENT &&
           (is(c, NEVER_RECORDED) || is(c, RECORDED_AFTER) || is(c, RERECORDED_AFTER));
}

/* The end event of event_elapsed_time.pending is recorded on cudaStreamLegacy
 * (the hooks are given no other stream than the op one), which waits for
 * held work in every stream but a non-blocking one. */
int stream_event_needs(const struct cts_case *c, char *why, size_t len)
{
    if (c->api != CTS_API_EVENT_ELAPSED_TIME || !is(c, PENDING) || c->busy != CTS_BUSY_NONBLOCKING)
        return 0;
    snprintf(why, len, "the held work is on a non-blocking stream: the end event, recorded on "
                       "cudaStreamLegacy, would not be behind it, and the call would race its completion");
    return -1;
}

/* An event of these flags; NULL where none was made. */
static cudaError_t make(void **ev, unsigned flags)
{
    cudaError_t err = cudaEventCreateWithFlags((cudaEvent_t *)ev, flags);
    if (err != cudaSuccess)
        *ev = NULL;
    return err;
}

/* Recorded on stream 0, on the idle device, and complete. */
static cudaError_t complete(void *ev)
{
    cudaError_t err = cudaEventRecord((cudaEvent_t)ev, (cudaStream_t)0);
    return err == cudaSuccess ? cudaEventSynchronize((cudaEvent_t)ev) : err;
}

/* handle: the event waited for, or the start event; extra: the end event.
 * Only an end event that before() records (pending) is left unrecorded. */
int stream_event_prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err;
    s->handle = s->extra = NULL;
    if (c->api == CTS_API_STREAM_WAIT_EVENT) {
        err = make(&s->handle, cudaEventDisableTiming);
        if (err == cudaSuccess && is(c, RERECORDED_AFTER))
            err = complete(s->handle);
        return cts_result(err, error);
    }
    unsigned flags = is(c, DISABLE_TIMING) ? cudaEventDisableTiming : cudaEventDefault;
    err = make(&s->handle, flags);
    if (err == cudaSuccess)
        err = make(&s->extra, flags);
    if (err == cudaSuccess)
        err = complete(s->handle);
    if (err == cudaSuccess && !is(c, PENDING))
        err = complete(s->extra);
    return cts_result(err, error);
}

/* Right before the call, while the gate holds its work: the end event of
 * event_elapsed_time.pending recorded on cudaStreamLegacy, behind it. */
int stream_event_before(const struct cts_case *c, struct cts_scratch *s, void *stream, const char **error)
{
    (void)stream;
    if (c->api != CTS_API_EVENT_ELAPSED_TIME || !is(c, PENDING))
        return 0;
    return cts_result(cudaEventRecord((cudaEvent_t)s->extra, cudaStreamLegacy), error);
}

/* Right after the call, before the engine's markers: the event waited for
 * recorded (again) on cudaStreamLegacy, behind the held work. */
int stream_event_after(const struct cts_case *c, struct cts_scratch *s, void *stream, const char **error)
{
    (void)stream;
    if (c->api != CTS_API_STREAM_WAIT_EVENT || is(c, NEVER_RECORDED))
        return 0;
    return cts_result(cudaEventRecord((cudaEvent_t)s->handle, cudaStreamLegacy), error);
}

int stream_event_issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    struct cts_scratch *s = call->scratch;
    float ms = 0;
    if (c->api == CTS_API_STREAM_WAIT_EVENT)
        return cts_result(cudaStreamWaitEvent((cudaStream_t)call->stream, (cudaEvent_t)s->handle, 0), error);
    return cts_result(cudaEventElapsedTime(&ms, (cudaEvent_t)s->handle, (cudaEvent_t)s->extra), error);
}

/* With the device idle: the case's events destroyed, whatever the call did. */
int stream_event_cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    (void)c;
    cudaError_t err = cudaSuccess, d;
    if (s->handle)
        err = cudaEventDestroy((cudaEvent_t)s->handle);
    if (s->extra && (d = cudaEventDestroy((cudaEvent_t)s->extra)) != cudaSuccess && err == cudaSuccess)
        err = d;
    s->handle = s->extra = NULL;
    return cts_result(err, error);
}

/* cudaEventElapsedTime of an event not yet complete, or of events made
 * without timing: the errors its reference names. */
const char *stream_event_rejects(const struct cts_case *c, const char **clause)
{
    if (c->api != CTS_API_EVENT_ELAPSED_TIME)
        return NULL;
    if (is(c, PENDING)) {
        *clause = "RT-EVENT-ELAPSED-NOT-READY";
        return "cudaErrorNotReady";
    }
    if (is(c, DISABLE_TIMING)) {
        *clause = "RT-EVENT-ELAPSED-NO-TIMING";
        return "cudaErrorInvalidResourceHandle";
    }
    return NULL;
}

/* ---- what the documentation says ------------------------------------------- */

#define RT_STREAM "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html"
#define RT_EVENT "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__EVENT.html"
const struct cts_clause stream_clauses[] = {
    {"RT-STREAM-WAIT-EVENT", "Runtime API reference, cudaStreamWaitEvent",
     "Makes all future work submitted to stream wait for all work captured in event. See cudaEventRecord() for "
     "details on what is captured by an event.",
     RT_STREAM, NULL},
    {"RT-EVENT-RECORD-LATER", "Runtime API reference, cudaEventRecord",
     "cudaEventRecord() can be called multiple times on the same event and will overwrite the previously captured "
     "state. Other APIs such as cudaStreamWaitEvent() use the most recently captured state at the time of the API "
     "call, and are not affected by later calls to cudaEventRecord().",
     RT_EVENT, NULL},
    {"RT-EVENT-RECORD-EMPTY", "Runtime API reference, cudaEventRecord",
     "Before the first call to cudaEventRecord(), an event represents an empty set of work, so for example "
     "cudaEventQuery() would return cudaSuccess.",
     RT_EVENT, NULL},
    {"RT-EVENT-ELAPSED-NOT-READY", "Runtime API reference, cudaEventElapsedTime",
     "If cudaEventRecord() has been called on both events but one or both of them has not yet been completed "
     "(that is, cudaEventQuery() would return cudaErrorNotReady on at least one of the events), cudaErrorNotReady "
     "is returned.",
     RT_EVENT, NULL},
    {"RT-EVENT-ELAPSED-NO-TIMING", "Runtime API reference, cudaEventElapsedTime",
     "If either event was created with the cudaEventDisableTiming flag, then this function will return "
     "cudaErrorInvalidResourceHandle.",
     RT_EVENT, NULL},
    {NULL},
};

/* cudaStreamWaitEvent waits for the work the event captured when the call was
 * made: none for an event never recorded (RT-EVENT-RECORD-EMPTY), and a record
 * after the call does not change it (RT-EVENT-RECORD-LATER).  Work queued
 * after the call on its stream is then held by nothing the call added.  (The
 * rejections of cudaEventElapsedTime are judged by spec.c, from rejects().) */
void stream_judge(struct cts_judge *j)
{
    const struct cts_case *c = j->c;
    if (c->api != CTS_API_STREAM_WAIT_EVENT || !stream_event_case(c))
        return;
    cts_judge_add(j, "RT-STREAM-WAIT-EVENT", CTS_ABOUT_OP_AFTER, CTS_PRED_GUARANTEED_NOT);
    if (!is(c, RERECORDED_AFTER))
        cts_judge_add(j, "RT-EVENT-RECORD-EMPTY", CTS_ABOUT_OP_AFTER, CTS_PRED_GUARANTEED_NOT);
    if (!is(c, NEVER_RECORDED))
        cts_judge_add(j, "RT-EVENT-RECORD-LATER", CTS_ABOUT_OP_AFTER, CTS_PRED_GUARANTEED_NOT);
}
