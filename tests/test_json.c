/* The matrix on disk: a round trip through jansson, the validation of what
 * is read back, the Markdown rendering, and the crash-detecting log scan. */
#define _GNU_SOURCE
#include "check.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static const struct cts_case *find(const char *id)
{
    size_t n;
    const struct cts_case *all = cts_all_cases(&n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(all[i].id, id))
            return &all[i];
    return NULL;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = calloc(1, n + 1);
    if (fread(s, 1, n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

/* evidence.<member> of a case's JSON, compact and sorted ("" where absent). */
static void member_text(const json_t *c, const char *member, char *buf, size_t len)
{
    const json_t *o = json_object_get(json_object_get(c, "evidence"), member);
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(12)) : NULL;
    snprintf(buf, len, "%s", s ? s : "");
    free(s);
}

/* The per-repetition measurements a family that measures itself records:
 * a pair, a staged-copy pattern, a depth scan, a call beside a full queue,
 * a second thread's commands during a call (the stall family's) and what an
 * allocation got from a tight pool (the pool family's). */
static void check_measured_evidence(const struct cts_case *c)
{
    struct cts_result r;
    char got[1024];
    memset(&r, 0, sizeof r);
    r.nreps = 2;
    for (int i = 0; i < 2; i++) {
        struct cts_rep *p = &r.reps[i];
        p->status = CTS_PASS;
        p->call_us = 3.0;
        p->pair = (struct cts_pair_obs){.a_alone_us = 100.04 + i, .b_alone_us = 50, .a_start_us = 10,
                                        .a_end_us = 110, .b_start_us = 20, .b_end_us = 70, .makespan_us = 100,
                                        .fraction = 0.99951, .stretch = NAN, .overlap = CTS_OVERLAP_OVERLAPS};
        p->staged = (struct cts_staged_obs){.sequential_us = 2590, .version_us = 1690, .h2d_us = 620,
                                            .kernel_us = 1300, .d2h_us = 620.06, .fraction = 0.69767};
        p->depth = (struct cts_depth_obs){.limit = i ? CTS_DEPTH_BESIDE : CTS_DEPTH_FOUND, .queued = 1021,
                                          .max = 65536, .fill = 1021, .blocked_us = 10089.14, .tracked_us = 40166.96,
                                          .stall_us = 10000, .tracked_stall_us = 40000, .tracked_queued = 1022};
        p->stall = (struct cts_stall_obs){.verdict = i ? CTS_STALL_UNAFFECTED : CTS_STALL_STALLS, .commands = 200,
                                          .inside = 199 - i, .slowest_us = 10012.34, .control_us = 9.87,
                                          .control_median_us = 4.04, .stalled_us = i ? NAN : 10012.34,
                                          .tracked_us = i ? NAN : 40020.06, .stall_us = i ? NAN : 10000,
                                          .tracked_stall_us = i ? NAN : 40000, .kept_us = i ? NAN : 3.04};
        p->pool = i ? (struct cts_pool_obs){.outcome = CTS_POOL_REUSED_NOW, .same_block = 1, .later_held = 0}
                    : (struct cts_pool_obs){.outcome = CTS_POOL_REFUSED, .error = "cudaErrorMemoryAllocation",
                                            .later_held = -1};
        p->cap = i ? (struct cts_capture_obs){.rc = "cudaSuccess", .after = CTS_CAPST_ACTIVE, .end = "cudaSuccess",
                                              .nodes = 1u << 0 | 1u << 3, .eager = 0, .launched = 2}
                   : (struct cts_capture_obs){.rc = "cudaErrorStreamCaptureUnsupported",
                                              .after = CTS_CAPST_INVALIDATED,
                                              .end = "cudaErrorStreamCaptureInvalidated", .eager = -1,
                                              .launched = -1};
    }
    json_t *j = cts_case_json(c, &r);
    member_text(j, "pair", got, sizeof got);
    CHECK_STR(got, "{\"a_alone_us\":[100.0,101.0],\"a_end_us\":[100.0,100.0],\"b_alone_us\":[50.0,50.0],"
                   "\"b_end_us\":[60.0,60.0],\"b_start_us\":[10.0,10.0],\"fraction\":[1.0,1.0],"
                   "\"makespan_us\":[100.0,100.0],\"stretch\":[null,null]}");
    member_text(j, "staged", got, sizeof got);
    CHECK_STR(got, "{\"d2h_us\":[620.1,620.1],\"fraction\":[0.698,0.698],\"h2d_us\":[620.0,620.0],"
                   "\"kernel_us\":[1300.0,1300.0],\"sequential_us\":[2590.0,2590.0],\"version_us\":[1690.0,1690.0]}");
    member_text(j, "depth", got, sizeof got);
    CHECK_STR(got, "{\"blocked_us\":[10089.1,10089.1],\"fill\":[null,1021],\"max\":[65536,65536],"
                   "\"queued\":[1021,null],\"stall_us\":[10000.0,10000.0],\"tracked_queued\":[1022,null],"
                   "\"tracked_stall_us\":[40000.0,40000.0],\"tracked_us\":[40167.0,40167.0]}");
    member_text(j, "stall", got, sizeof got);
    CHECK_STR(got, "{\"commands\":[200,200],\"control_median_us\":[4.0,4.0],\"control_us\":[9.9,9.9],"
                   "\"inside\":[199,198],\"kept_us\":[3.0,null],\"slowest_us\":[10012.3,10012.3],\"stall_us\":[10000.0,null],"
                   "\"stalled_us\":[10012.3,null],\"tracked_stall_us\":[40000.0,null],\"tracked_us\":[40020.1,null]}");
    member_text(j, "pool", got, sizeof got);
    CHECK_STR(got, "{\"error\":[\"cudaErrorMemoryAllocation\",null],\"later_held\":[null,false],"
                   "\"same_block\":[false,true]}");
    member_text(j, "capture", got, sizeof got);
    CHECK_STR(got, "{\"after\":[\"invalidated\",\"active\"],\"eager\":[null,0],"
                   "\"end\":[\"cudaErrorStreamCaptureInvalidated\",\"cudaSuccess\"],\"launched\":[null,2],"
                   "\"nodes\":[[],[0,3]],\"rc\":[\"cudaErrorStreamCaptureUnsupported\",\"cudaSuccess\"]}");
    json_decref(j);
    /* A capture not measured in one repetition (rc NULL): nulls there, and no "capture" where none was. */
    r.reps[0].cap = (struct cts_capture_obs){.eager = -1, .launched = -1};
    j = cts_case_json(c, &r);
    member_text(j, "capture", got, sizeof got);
    CHECK_STR(got, "{\"after\":[null,\"active\"],\"eager\":[null,0],\"end\":[null,\"cudaSuccess\"],"
                   "\"launched\":[null,2],\"nodes\":[null,[0,3]],\"rc\":[null,\"cudaSuccess\"]}");
    json_decref(j);
    r.reps[1].cap = r.reps[0].cap;
    j = cts_case_json(c, &r);
    member_text(j, "capture", got, sizeof got);
    CHECK_STR(got, "");
    member_text(j, "capture_body", got, sizeof got); /* only a conditional body's repetition has it */
    CHECK_STR(got, "");
    json_decref(j);
    /* A call in a conditional node's body capture (cases/capture_body.c): the parent's state, both ends,
     * the body's nodes, the parent graph's instantiation and launch; the other repetition not measured. */
    r.reps[1].cap = (struct cts_capture_obs){.rc = "cudaErrorStreamCaptureUnsupported", .after = CTS_CAPST_INVALIDATED,
                                             .end = "cudaErrorStreamCaptureInvalidated", .eager = -1, .launched = -1,
                                             .body = 1, .parent_after = CTS_CAPST_ACTIVE,
                                             .body_end = "cudaErrorStreamCaptureInvalidated",
                                             .parent_end = "cudaSuccess", .body_nodes = 1u << 0,
                                             .instantiate = "cudaSuccess", .body_released = 1};
    j = cts_case_json(c, &r);
    member_text(j, "capture_body", got, sizeof got);
    CHECK_STR(got, "{\"body_end\":[null,\"cudaErrorStreamCaptureInvalidated\"],\"body_nodes\":[null,[0]],"
                   "\"body_released\":[null,true],"
                   "\"instantiate\":[null,\"cudaSuccess\"],\"launch\":[null,null],\"parent_after\":[null,\"active\"],"
                   "\"parent_end\":[null,\"cudaSuccess\"]}");
    member_text(j, "capture_to_graph", got, sizeof got); /* only a to-graph repetition has it */
    CHECK_STR(got, "");
    json_decref(j);
    /* A capture begun into an existing graph: the same graph back, its node kept and the only root; the
     * other repetition's capture ended with no graph returned (kept and depends not seen). */
    r.reps[0].cap = (struct cts_capture_obs){.rc = "cudaSuccess", .after = CTS_CAPST_ACTIVE, .end = "cudaSuccess",
                                             .nodes = 1u << 0, .node_count = 1, .eager = -1, .launched = -1,
                                             .to_graph = 1, .same_graph = 1, .kept_node = 1, .depends = 1,
                                             .released = 0};
    r.reps[1].cap = (struct cts_capture_obs){.rc = "cudaErrorStreamCaptureUnsupported", .after = CTS_CAPST_INVALIDATED,
                                             .end = "cudaErrorStreamCaptureInvalidated", .eager = -1, .launched = -1,
                                             .to_graph = 1, .same_graph = 0, .kept_node = -1, .depends = -1,
                                             .released = 1};
    j = cts_case_json(c, &r);
    member_text(j, "capture_to_graph", got, sizeof got);
    CHECK_STR(got, "{\"depends\":[true,null],\"kept_node\":[true,null],\"released\":[false,true],"
                   "\"same_graph\":[true,false]}");
    json_decref(j);
    r.reps[0].cap = r.reps[1].cap = (struct cts_capture_obs){.eager = -1, .launched = -1};
    /* A repetition with no outcome (its try unproven) has none of them; later work held is true. */
    r.reps[0].pool = (struct cts_pool_obs){.outcome = CTS_POOL_REUSED_AFTER, .same_block = 1, .later_held = 1};
    r.reps[1].pool = (struct cts_pool_obs){.outcome = CTS_POOL_NA, .same_block = 1, .later_held = 0};
    j = cts_case_json(c, &r);
    member_text(j, "pool", got, sizeof got);
    CHECK_STR(got, "{\"error\":[null,null],\"later_held\":[true,null],\"same_block\":[true,null]}");
    json_decref(j);
    /* The stall family's verdict member: the other thread's, where the case passed. */
    r.status = CTS_PASS;
    r.verdict = (struct cts_verdict){.host = CTS_HOST_WAITS, .stall = CTS_STALL_STALLS};
    j = cts_case_json(c, &r);
    CHECK_STR(json_string_value(json_object_get(json_object_get(j, "verdict"), "other_thread")), "stalls");
    CHECK_STR(json_string_value(json_object_get(json_object_get(j, "verdict"), "host")), "waits");
    json_decref(j);
    r.status = CTS_INCONCLUSIVE; /* no verdict: no member */
    j = cts_case_json(c, &r);
    CHECK(json_object_get(json_object_get(j, "verdict"), "other_thread") == NULL);
    json_decref(j);
    /* The pool family's verdict member: what the allocation got, where the case passed. */
    r.status = CTS_PASS;
    r.verdict = (struct cts_verdict){.host = CTS_HOST_RETURNS, .pool = CTS_POOL_REUSED_AFTER};
    j = cts_case_json(c, &r);
    CHECK_STR(json_string_value(json_object_get(json_object_get(j, "verdict"), "pool")), "reused_after");
    CHECK_STR(json_string_value(json_object_get(json_object_get(j, "verdict"), "host")), "returns");
    CHECK(json_object_get(json_object_get(j, "verdict"), "other_thread") == NULL);
    json_decref(j);
    r.status = CTS_BROKEN; /* no verdict: no member */
    j = cts_case_json(c, &r);
    CHECK(json_object_get(json_object_get(j, "verdict"), "pool") == NULL);
    json_decref(j);
    memset(&r, 0, sizeof r); /* none of them: no such member */
    r.nreps = 1;
    j = cts_case_json(c, &r);
    member_text(j, "pair", got, sizeof got);
    CHECK_STR(got, "");
    member_text(j, "depth", got, sizeof got);
    CHECK_STR(got, "");
    member_text(j, "stall", got, sizeof got);
    CHECK_STR(got, "");
    member_text(j, "pool", got, sizeof got);
    CHECK_STR(got, "");
    CHECK(json_object_get(json_object_get(j, "verdict"), "other_thread") == NULL);
    CHECK(json_object_get(json_object_get(j, "verdict"), "pool") == NULL);
    json_decref(j);
}

/* A case handed on and dropped (cts_matrix_load_each). */
static int drop_case(void *ctx, const char *id, const json_t *c)
{
    (void)ctx, (void)id, (void)c;
    return 0;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* btext with the ':' after the id at `at` made a ';', written to path: read whole (two threads)
 * and read case by case (one), it is refused naming the file's line of `at`, the text behind the
 * walkers given back a region at a time (matrix_walk.c) and its newlines still counted; then
 * btext is put back. */
static void not_json_at(const char *path, char *btext, char *at)
{
    int line = 1;
    for (const char *q = btext; q < at; q++)
        line += *q == '\n';
    char err[512], want[64];
    snprintf(want, sizeof want, "is not JSON (line %d: ", line);
    at[16] = ';';
    write_text(path, btext);
    CHECK(cts_matrix_load(path, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, want);
    CHECK(cts_matrix_load_each(path, drop_case, NULL, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, want);
    at[16] = ':';
}


/* A copy of m with one member of case `id` (a path "evidence.call_us") set
 * to v (NULL: removed), written to path: the load is refused, and the
 * reason names the file, the case and the member. */
static void refused(const json_t *m, const char *id, const char *member, json_t *v, const char *path,
                    const char *want)
{
    json_t *copy = json_deep_copy(m);
    json_t *o = id ? json_object_get(json_object_get(copy, "cases"), id) : copy;
    char buf[128], *save = NULL, *last = NULL;
    snprintf(buf, sizeof buf, "%s", member);
    for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
        if (last)
            o = json_object_get(o, last);
        last = k;
    }
    if (v)
        json_object_set_new(o, last, v);
    else
        json_object_del(o, last);
    FILE *f = fopen(path, "w");
    CHECK_INT(cts_matrix_dump(copy, f), 0);
    fclose(f);
    char err[512] = "", head[512];
    json_t *back = cts_matrix_load(path, err, sizeof err);
    CHECK(back == NULL);
    if (id)
        snprintf(head, sizeof head, "'%s': case '%s'", path, id);
    else
        snprintf(head, sizeof head, "'%s': ", path);
    CHECK_CONTAINS(err, head);
    CHECK_CONTAINS(err, want);
    CHECK(!strchr(err, '\n'));
    json_decref(back);
    json_decref(copy);
}

/* Matrix m, written to path and read again, is accepted (what: the test's words where it is not);
 * takes m. */
static void accepted(json_t *m, const char *path, const char *what)
{
    char err[512] = "";
    FILE *f = fopen(path, "w");
    CHECK_INT(cts_matrix_dump(m, f), 0);
    fclose(f);
    json_t *back = cts_matrix_load(path, err, sizeof err);
    CHECK(back != NULL);
    if (!back)
        fprintf(stderr, "%s was refused: %s\n", what, err);
    json_decref(back);
    json_decref(m);
}

int main(void)
{
    char dir[] = "/tmp/cts-json-XXXXXX", path[256], md[256], err[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/m.json", dir);
    snprintf(md, sizeof md, "%s/m.md", dir);

    const struct cts_case *a = find("memcpy_async.h2d.pageable.4KiB.explicit.op_nonblocking.busy_same");
    const struct cts_case *b = find("memcpy.d2h.pinned.1B.default.op_implied.busy_nonblocking");
    const struct cts_case *c = find("memcpy_async.d2h.managed.1MiB.explicit.op_nonblocking.busy_nonblocking");
    CHECK(a && b && c);

    struct cts_result ra = {0}, rb = {0}, rc = {0};
    ra.nreps = 2;
    ra.idle_call_us = 5.04;
    for (int k = 0; k < CTS_LATENCY_COUNTS; k++) /* a cheap call's latency from 1, 4 and 16 threads */
        ra.latency[k] = (struct cts_latency){cts_latency_threads[k], 960, 2.04 * (k + 1), 9.96 * (k + 1), 40.0};
    snprintf(rb.latency_error, sizeof rb.latency_error, "cudaMemGetInfo returned cudaErrorUnknown in one of 16 "
                                                         "threads at once");
    ra.timeout_us = 2000;
    ra.window_us = 1000;
    for (int i = 0; i < 2; i++) {
        ra.reps[i].status = CTS_PASS;
        ra.reps[i].host = CTS_HOST_RETURNS;
        ra.reps[i].call_us = 4.26 + i;
        ra.reps[i].release_to_return_us = NAN;
        ra.reps[i].op_after = CTS_ORDER_HELD;
        ra.reps[i].op_after_gpu_us = 3.0;
        ra.reps[i].third_blocking = ra.reps[i].third_nonblocking = CTS_ORDER_RUNS;
        ra.reps[i].third_blocking_gpu_us = ra.reps[i].third_nonblocking_gpu_us = -900.0;
        ra.reps[i].src = CTS_SRC_AT_CALL;
        ra.reps[i].dst = CTS_DST_NA;
    }
    cts_classify(&ra);
    CHECK_INT(ra.status, CTS_PASS);
    rb.nreps = 1;
    rb.reps[0].status = CTS_INCONCLUSIVE;
    snprintf(rb.reps[0].reason, sizeof rb.reps[0].reason, "the call returned 900.0 us after the gate opened");
    cts_classify(&rb);
    CHECK_INT(rb.status, CTS_INCONCLUSIVE);
    /* Intermittent: the second of two proven repetitions waited. */
    rc.nreps = 2;
    for (int i = 0; i < 2; i++) {
        rc.reps[i].status = CTS_PASS;
        rc.reps[i].host = i ? CTS_HOST_WAITS : CTS_HOST_RETURNS;
        rc.reps[i].op_after = rc.reps[i].third_blocking = rc.reps[i].third_nonblocking = CTS_ORDER_RUNS;
    }
    cts_classify(&rc);
    CHECK_INT(rc.status, CTS_VARIES);

    json_t *cases = json_object();
    json_object_set_new(cases, a->id, cts_case_json(a, &ra));
    json_object_set_new(cases, b->id, cts_case_json(b, &rb));
    json_object_set_new(cases, c->id, cts_case_json(c, &rc));
    json_t *env = json_pack("{s:{s:s,s:s,s:s},s:{s:s,s:{s:s},s:{s:s},s:{s:s}},s:{s:s,s:s,s:{}},"
                            "s:{s:i,s:i,s:i,s:i},s:s}",
                            "gpu", "name", "Test GPU", "compute_capability", "9.0", "uuid", "GPU-0", "versions",
                            "driver", "580.159.04", "driver_api", "text", "13.0", "runtime", "text", "13.0",
                            "toolkit", "text", "13.0", "settings", "default_stream", "legacy",
                            "device_schedule", "auto", "environment_variables", "attributes",
                            "asyncEngineCount", 3, "concurrentKernels", 1, "pageableMemoryAccess", 0,
                            "concurrentManagedAccess", 1, "suite_revision", "abc123");
    json_t *run = json_pack("{s:s,s:f,s:i,s:{s:i,s:i,s:i}}", "date", "2026-11-21T00:00:00Z", "wall_s", 1.5,
                            "repeat", 2, "counts", "PASS", 1, "VARIES", 1, "INCONCLUSIVE", 1);
    json_t *m = cts_matrix_new(env, run, cases);
    CHECK(m != NULL);

    /* Round trip: what is written is what is read. */
    struct cts_outfile o;
    CHECK_INT(cts_outfile_open(&o, path, err, sizeof err), 0);
    CHECK_INT(access(path, F_OK), -1); /* nothing at the path until committed */
    CHECK_INT(cts_matrix_dump(m, o.f), 0);
    CHECK_INT(cts_outfile_commit(&o, err, sizeof err), 0);
    json_t *back = cts_matrix_load(path, err, sizeof err);
    CHECK(back != NULL);
    CHECK(json_equal(m, back));
    const json_t *ca = json_object_get(json_object_get(back, "cases"), a->id);
    CHECK_STR(json_string_value(json_object_get(ca, "status")), "PASS");
    CHECK_STR(json_string_value(json_object_get(ca, "symbol")), "Qc");
    CHECK_STR(json_string_value(json_object_get(ca, "op_stream")), "nonblocking");
    CHECK_STR(json_string_value(json_object_get(ca, "copy_kind")), "cudaMemcpyHostToDevice");
    CHECK_INT(json_integer_value(json_object_get(ca, "size")), 4096);
    const json_t *ev = json_object_get(ca, "evidence");
    CHECK(json_is_real(json_array_get(json_object_get(ev, "call_us"), 0)));
    CHECK(fabs(json_real_value(json_array_get(json_object_get(ev, "call_us"), 0)) - 4.3) < 1e-9);
    CHECK(json_object_get(ev, "release_to_return_us") == NULL); /* nothing in it: left out */
    CHECK(fabs(json_real_value(json_object_get(ev, "idle_call_us")) - 5.0) < 1e-9);
    const json_t *lat = json_object_get(ev, "latency");
    CHECK_INT(json_array_size(lat), 3);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(lat, 2), "threads")), 16);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(lat, 0), "calls")), 960);
    CHECK(fabs(json_real_value(json_object_get(json_array_get(lat, 1), "p99_us")) - 19.9) < 1e-9);
    CHECK(json_object_get(ev, "latency_error") == NULL);
    const json_t *cb = json_object_get(json_object_get(back, "cases"), b->id);
    CHECK_STR(json_string_value(json_object_get(cb, "status")), "INCONCLUSIVE");
    CHECK(json_object_get(json_object_get(cb, "evidence"), "latency") == NULL); /* not measured: left out */
    CHECK_STR(json_string_value(json_object_get(json_object_get(cb, "evidence"), "latency_error")),
              "cudaMemGetInfo returned cudaErrorUnknown in one of 16 threads at once");
    CHECK(json_is_null(json_object_get(json_object_get(cb, "verdict"), "host")));
    CHECK(json_is_null(json_object_get(cb, "symbol")));
    const json_t *cc = json_object_get(json_object_get(back, "cases"), c->id);
    CHECK_STR(json_string_value(json_object_get(cc, "status")), "VARIES");
    CHECK_STR(json_string_value(json_object_get(cc, "symbol")), "A/W");
    CHECK_STR(json_string_value(json_object_get(cc, "reason")),
              "repetitions differ on host: returns waits; op_after: runs n/a; third_blocking: runs "
              "n/a; third_nonblocking: runs n/a");
    CHECK(json_is_null(json_object_get(json_object_get(cc, "verdict"), "host")));

    /* Sorted keys: the file is stable under git diff. */
    char *text = slurp(path);
    CHECK(text && strstr(text, "\"cases\"") < strstr(text, "\"environment\""));
    CHECK(text && strstr(text, "\"environment\"") < strstr(text, "\"run\""));
    /* One case a line: a diff of two matrices names exactly the cases that changed. */
    CHECK_CONTAINS(text, "\n\"memcpy.d2h.pinned.1B.default.op_implied.busy_nonblocking\": {\"allocator\":");
    {
        const char *line = text ? strstr(text, "\n\"memcpy_async.h2d.pageable.4KiB") : NULL;
        const char *eol = line ? strchr(line + 1, '\n') : NULL;
        CHECK(line && eol && eol[-1] == '}' && strstr(line, "\"evidence\"") < eol);
    }
    free(text);

    /* Markdown: summary, the case without a verdict, the cell symbol. */
    FILE *f = fopen(md, "w");
    CHECK_INT(cts_render_markdown(back, f), 0);
    fclose(f);
    text = slurp(md);
    CHECK_CONTAINS(text, "# cuda-sync-cts matrix: Test GPU, driver 580.159.04 (CUDA 13.0), runtime 13.0");
    CHECK_CONTAINS(text, "3 cases: 1 PASS, 1 VARIES, 0 FAIL, 0 NOTSUPP, 0 BROKEN, 1 INCONCLUSIVE");
    CHECK_CONTAINS(text, "| `memcpy.d2h.pinned.1B.default.op_implied.busy_nonblocking` | INCONCLUSIVE |");
    CHECK_CONTAINS(text, "## Cases whose repetitions differed (VARIES)");
    CHECK_CONTAINS(text, "| `memcpy_async.d2h.managed.1MiB.explicit.op_nonblocking.busy_nonblocking` | `A/W` |");
    CHECK_CONTAINS(text, "| managed | 1MiB | explicit | nonblocking | 0.0 | — | — | — | A/W | — |");
    CHECK_CONTAINS(text, "## memcpy_async.h2d — cudaMemcpyAsync, host to device");
    CHECK_CONTAINS(text, "| pageable | 4KiB | explicit | nonblocking | 5.0 | Qc | — | — | — | — |");
    CHECK_CONTAINS(text, "| pinned | 1B | default | implied | 0.0 | — | — | — | **INC** | — |");
    free(text);
    json_decref(back);

    /* gzip: the same matrix, the same bytes every time, read back whole;
     * a truncated file is refused, not half-read. */
    {
        char gz[256];
        snprintf(gz, sizeof gz, "%s/m.json.gz", dir);
        char *bytes[2] = {NULL, NULL};
        long len[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            f = fopen(gz, "wb");
            CHECK_INT(cts_matrix_dump_gz(m, f), 0);
            fclose(f);
            f = fopen(gz, "rb");
            fseek(f, 0, SEEK_END);
            len[k] = ftell(f);
            rewind(f);
            bytes[k] = malloc(len[k]);
            CHECK(fread(bytes[k], 1, len[k], f) == (size_t)len[k]);
            fclose(f);
        }
        CHECK(len[0] == len[1] && memcmp(bytes[0], bytes[1], len[0]) == 0);
        CHECK((unsigned char)bytes[0][0] == 0x1f && (unsigned char)bytes[0][1] == 0x8b);
        json_t *zback = cts_matrix_load(gz, err, sizeof err);
        CHECK(zback != NULL && json_equal(zback, m));
        json_decref(zback);
        f = fopen(gz, "wb");
        fwrite(bytes[0], 1, len[0] / 2, f);
        fclose(f);
        CHECK(cts_matrix_load(gz, err, sizeof err) == NULL);
        CHECK_CONTAINS(err, "is a truncated or damaged gzip file");
        free(bytes[0]);
        free(bytes[1]);
        unlink(gz);
    }

    /* What is not a matrix is refused with a reason naming the file. */
    CHECK(cts_matrix_load("/nonexistent/m.json", err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "cannot read '/nonexistent/m.json'");
    write_text(path, "{ not json");
    CHECK(cts_matrix_load(path, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "is not JSON");
    write_text(path, "{\"schema\": \"other\", \"schema_version\": 1, \"cases\": {}, \"environment\": {}}");
    CHECK(cts_matrix_load(path, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "is not a cuda-sync-cts matrix");
    write_text(path, "{\"schema\": \"cuda-sync-cts/matrix\", \"schema_version\": 99, \"cases\": {}, "
                     "\"environment\": {}}");
    CHECK(cts_matrix_load(path, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "schema version 99");
    write_text(path, "{\"schema\": \"cuda-sync-cts/matrix\", \"schema_version\": 1, \"cases\": "
                     "{\"x\": {\"status\": \"GREAT\"}}, \"environment\": {}}");
    CHECK(cts_matrix_load(path, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "case 'x' has no valid status");

    /* A parseable matrix that is wrong is refused, naming the case and the member. */
    {
        const char *pa = a->id, *pc = c->id;
        refused(m, pa, "verdict.host", json_string("sleeps"), path,
                ": verdict.host is \"sleeps\", not returns or waits (or null)");
        refused(m, pa, "verdict.bogus", json_null(), path, ": verdict.bogus is not a verdict field");
        refused(m, pa, "verdict.rejected", json_integer(3), path, ": verdict.rejected is an integer, not a string");
        refused(m, pa, "verdict.other_thread", json_string("froze"), path,
                ": verdict.other_thread is \"froze\", not unaffected, stalls or brief");
        refused(m, pa, "evidence.stall", json_pack("{s:[s,i]}", "stalled_us", "long", 1), path,
                ": evidence.stall.stalled_us[0] is a string, not a number");
        refused(m, pa, "verdict.pool", json_string("borrowed"), path,
                ": verdict.pool is \"borrowed\", not refused, other_block, reused_after or reused_now");
        refused(m, pa, "verdict.pool", json_integer(2), path, ": verdict.pool is an integer");
        refused(m, pa, "evidence.pool",
                json_pack("{s:[i,n],s:[b,b],s:[n,b]}", "error", 2, "same_block", 1, 0, "later_held", 1), path,
                ": evidence.pool.error[0] is an integer, not an error's name or null");
        refused(m, pa, "evidence.pool",
                json_pack("{s:[s,n],s:[b,b],s:[n,b]}", "error", "", "same_block", 1, 0, "later_held", 1), path,
                ": evidence.pool.error[0] is an empty string, not an error's name or null");
        refused(m, pa, "evidence.pool",
                json_pack("{s:[n,n],s:[b,i],s:[n,b]}", "error", "same_block", 1, 1, "later_held", 1), path,
                ": evidence.pool.same_block[1] is an integer, not true, false or null");
        refused(m, pa, "evidence.pool",
                json_pack("{s:[n,n],s:[b,b],s:[s,b]}", "error", "same_block", 1, 0, "later_held", "held", 1), path,
                ": evidence.pool.later_held[0] is a string, not true, false or null");
        refused(m, pa, "evidence.pool", json_pack("{s:[n,n],s:[b,b]}", "error", "same_block", 1, 0), path,
                ": evidence.pool.later_held is not an array of 2 entries");
        refused(m, pa, "evidence.capture",
                json_pack("{s:[s,n],s:[s,n],s:[s,n],s:[[],n],s:[i,n],s:[i,s]}", "rc", "cudaSuccess", "after",
                          "active", "end", "cudaSuccess", "nodes", "eager", 1, "launched", 2, "all"),
                path, ": evidence.capture.launched[1] is a string, not what a capture records");
        refused(m, pa, "evidence.capture",
                json_pack("{s:[s,n],s:[s,n],s:[s,n],s:[i,n],s:[i,n],s:[i,n]}", "rc", "cudaSuccess", "after",
                          "active", "end", "cudaSuccess", "nodes", 3, "eager", 1, "launched", 2),
                path, ": evidence.capture.nodes[0] is an integer, not what a capture records");
        refused(m, pa, "evidence.capture",
                json_pack("{s:[s,n],s:[s,n],s:[s,n],s:[[],n],s:[i,n]}", "rc", "cudaSuccess", "after", "active",
                          "end", "cudaSuccess", "nodes", "eager", 1),
                path, ": evidence.capture.launched is not an array of 2 entries");
        refused(m, pa, "evidence.capture",
                json_pack("{s:[s,n],s:[s,n],s:[s,n],s:[[],n],s:[i,n],s:[i,n]}", "rc", "cudaSuccess", "after",
                          "paused", "end", "cudaSuccess", "nodes", "eager", 1, "launched", 2),
                path, ": evidence.capture.after[0] is a string, not what a capture records");
        refused(m, pa, "evidence.capture_to_graph",
                json_pack("{s:[b,b],s:[b,n],s:[n,n]}", "same_graph", 1, 0, "kept_node", 1, "released"), path,
                ": evidence.capture_to_graph.depends is not an array of 2 entries");
        refused(m, pa, "evidence.capture_to_graph",
                json_pack("{s:[b,b],s:[b,n],s:[n,n],s:[i,n]}", "same_graph", 1, 0, "kept_node", 1, "depends",
                          "released", 1),
                path, ": evidence.capture_to_graph.released[0] is an integer, not true, false or null");
        {
            /* A to-graph case of a matrix older than `released` (d201e94's) is read: the member not seen. */
            json_t *ok = json_deep_copy(m), *oc = json_object_get(json_object_get(ok, "cases"), pa);
            json_object_set_new(json_object_get(oc, "evidence"), "capture_to_graph",
                                json_pack("{s:[b,b],s:[b,n],s:[n,n]}", "same_graph", 1, 0, "kept_node", 1, "depends"));
            accepted(ok, path, "a to-graph case without `released`");
        }
        {
            /* What the pool family writes is accepted: its verdict member and its evidence. */
            json_t *ok = json_deep_copy(m), *oc = json_object_get(json_object_get(ok, "cases"), pa);
            json_object_set_new(json_object_get(oc, "verdict"), "pool", json_string("refused"));
            json_object_set_new(json_object_get(oc, "evidence"), "pool",
                                json_pack("{s:[s,n],s:[b,n],s:[n,n]}", "error", "cudaErrorMemoryAllocation",
                                          "same_block", 0, "later_held"));
            accepted(ok, path, "the pool members");
        }
        refused(m, pa, "evidence.call_us", json_pack("[f]", 1.0), path,
                ": evidence.call_us has 1 values, but evidence.repetitions is 2");
        refused(m, pa, "evidence.call_us", json_pack("[f,f]", 1.0, -2.0), path,
                ": evidence.call_us[1] is -2: a time cannot be negative");
        refused(m, pa, "evidence.call_us", NULL, path, ": evidence.call_us has no time, but the case has a verdict");
        refused(m, pa, "evidence.idle_call_us", json_string("fast"), path,
                ": evidence.idle_call_us is a string, not a number");
        refused(m, pa, "evidence.repetitions", json_integer(99), path, ": evidence.repetitions is 99, not from 1 to 16");
        refused(m, pa, "evidence.latency", json_pack("[{}]"), path, ": evidence.latency is not an array of 3 entries");
        refused(m, pa, "evidence.latency",
                json_pack("[{s:i,s:i,s:f,s:f,s:f},{s:i,s:i,s:f,s:f,s:f},{s:i,s:i,s:f,s:f,s:f}]", "threads", 1,
                          "calls", 960, "median_us", 1.0, "p99_us", 2.0, "max_us", 3.0, "threads", 4, "calls", 960,
                          "median_us", 1.0, "p99_us", 2.0, "max_us", 3.0, "threads", 8, "calls", 960, "median_us",
                          1.0, "p99_us", 2.0, "max_us", 3.0),
                path, ": evidence.latency[2].threads is 8, not 16");
        refused(m, pa, "evidence.latency",
                json_pack("[{s:i,s:i,s:f,s:f,s:f},{},{}]", "threads", 1, "calls", 960, "median_us", 1.0, "p99_us",
                          -2.0, "max_us", 3.0),
                path, ": evidence.latency[0].p99_us is -2: a time cannot be negative");
        refused(m, pa, "evidence.latency_error", json_integer(3), path, ": evidence.latency_error is an integer");
        refused(m, pa, "evidence.host", json_pack("[s,s]", "waits", "maybe"), path, ": evidence.host[1] is \"maybe\"");
        refused(m, pa, "evidence.control.op_after", json_integer(1), path, ": evidence.control.op_after is an integer");
        refused(m, pa, "evidence", NULL, path, ": evidence is missing");
        /* Data order's members (written cases). */
        refused(m, pa, "verdict.data", json_string("fresh"), path,
                ": verdict.data is \"fresh\", not ordered, stale or partial");
        refused(m, pa, "verdict.reader", json_integer(1), path, ": verdict.reader is an integer");
        refused(m, pa, "evidence.data", json_pack("[s,s]", "stale", "late"), path, ": evidence.data[1] is \"late\"");
        refused(m, pa, "evidence.data_boundary", json_pack("[i,i]", 4096, -1), path,
                ": evidence.data_boundary[1] is not a byte count or offset");
        refused(m, pa, "evidence.data_new_bytes", json_pack("[s,n]", "all"), path,
                ": evidence.data_new_bytes[0] is not a byte count or offset");
        refused(m, pa, "writes", json_integer(1), path, ": writes is an integer, not true");
        refused(m, pa, "symbol", json_integer(3), path, ": symbol is an integer, not a string");
        refused(m, pa, "symbol", json_null(), path, ": symbol is null");
        refused(m, pa, "function", NULL, path, ": function is missing");
        refused(m, pa, "size", json_integer(-1), path, ": size is -1");
        refused(m, pa, "status", json_integer(1), path, " has no valid status (status is an integer)");
        refused(m, pc, "reason", json_null(), path, ": reason is null");
        refused(m, pa, "spec.conformance", json_string("GOOD"), path, ": spec.conformance is \"GOOD\"");
        refused(m, pa, "spec.conformance", json_string("DEVIATES"), path,
                ": spec.conformance is DEVIATES, but none of its clauses is contradicted");
        refused(m, pa, "spec.clauses", json_pack("[{s:s,s:s,s:s,s:b}]", "id", "NO-SUCH-CLAUSE", "about", "host",
                                                  "prediction", "may", "holds", 1),
                path, ": spec.clauses names 'NO-SUCH-CLAUSE', which is not in the matrix's clause table");
        refused(m, NULL, "environment.gpu.name", NULL, path, "environment.gpu.name is missing");
        refused(m, NULL, "environment.settings.environment_variables", json_pack("{s:i}", "CUDA_X", 1), path,
                "environment.settings.environment_variables.CUDA_X is an integer, not a string or null");
        refused(m, NULL, "run.wall_s", json_string("long"), path, "run.wall_s is a string, not a number");
        refused(m, NULL, "run", NULL, path, "run is missing");
        char longid[300];
        memset(longid, 'x', sizeof longid - 1);
        longid[sizeof longid - 1] = 0;
        json_t *copy = json_deep_copy(m);
        json_object_set(json_object_get(copy, "cases"), longid, json_object_get(json_object_get(copy, "cases"), pa));
        FILE *lf = fopen(path, "w");
        CHECK_INT(cts_matrix_dump(copy, lf), 0);
        fclose(lf);
        json_decref(copy);
        CHECK(cts_matrix_load(path, err, sizeof err) == NULL);
        CHECK_CONTAINS(err, "is longer than any case id");
        /* Two cases with one id: refused, not silently one of them. */
        write_text(path, "{\"schema\": \"cuda-sync-cts/matrix\", \"schema_version\": 1, \"cases\": "
                         "{\"x\": {}, \"x\": {}}, \"environment\": {}}");
        CHECK(cts_matrix_load(path, err, sizeof err) == NULL);
        CHECK_CONTAINS(err, "case 'x' appears twice");
        CHECK_INT(cts_case_id_check(longid, err, sizeof err), -1);
        CHECK_CONTAINS(err, "has 299 characters, and case ids have at most 127");
        CHECK_INT(cts_case_id_check(pa, err, sizeof err), 0);
    }

    /* A matrix large enough to be read by two threads: the same tree, in
     * the same order, and the same first error as one thread would give. */
    {
        json_t *big = json_deep_copy(m), *bc = json_object_get(big, "cases");
        const json_t *proto = json_object_get(bc, a->id);
        char bid[64];
        for (int i = 0; i < 6000; i++) {
            snprintf(bid, sizeof bid, "big.case.%05d", i);
            json_object_set_new(bc, bid, json_deep_copy(proto));
        }
        FILE *bf = fopen(path, "w");
        CHECK_INT(cts_matrix_dump(big, bf), 0);
        fclose(bf);
        char *btext = slurp(path);
        CHECK(btext && strlen(btext) > ((size_t)6 << 20)); /* past the two-thread threshold */
        json_t *bback = cts_matrix_load(path, err, sizeof err);
        CHECK(bback && json_equal(bback, big));
        const char *k, *prev = "";
        json_t *v;
        size_t nk = 0;
        int ordered = 1;
        json_object_foreach(json_object_get(bback, "cases"), k, v)
        {
            ordered &= strcmp(prev, k) < 0; /* the file's (sorted) order */
            prev = k;
            nk++;
        }
        CHECK(ordered);
        CHECK_INT(nk, 6003);
        json_decref(bback);
        /* A wrong case in the second half; then one in each half: the first is named. */
        refused(big, "big.case.05000", "verdict.host", json_string("x"), path,
                "case 'big.case.05000': verdict.host is \"x\"");
        json_object_set_new(json_object_get(json_object_get(bc, "big.case.05000"), "verdict"), "host",
                            json_string("x"));
        refused(big, "big.case.00010", "evidence.call_us", json_string("x"), path,
                "case 'big.case.00010': evidence.call_us is a string");
        /* Not JSON in the second half, then late in the first (its regions behind it given back). */
        char *at = btext ? strstr(btext, "\"big.case.05500\": ") : NULL;
        char *first = btext ? strstr(btext, "\"big.case.02900\": ") : NULL;
        CHECK(at != NULL && first != NULL);
        if (at && first) {
            not_json_at(path, btext, at);
            not_json_at(path, btext, first);
            /* An id of the first half again in the second. */
            memcpy(at + 10, "00005", 5);
            write_text(path, btext);
            CHECK(cts_matrix_load(path, err, sizeof err) == NULL);
            CHECK_CONTAINS(err, "case 'big.case.00005' appears twice");
        }
        free(btext);
        json_decref(big);
        unlink(path);
    }

    /* An aborted output leaves nothing behind. */
    unlink(path);
    CHECK_INT(cts_outfile_open(&o, path, err, sizeof err), 0);
    fputs("half", o.f);
    cts_outfile_abort(&o);
    CHECK_INT(access(path, F_OK), -1);
    CHECK(cts_outfile_open(&o, "/nonexistent/dir/m.json", err, sizeof err) != 0);
    CHECK_CONTAINS(err, "cannot write '/nonexistent/dir/m.json'");

    /* The log: a begin without an end is a crash. */
    snprintf(path, sizeof path, "%s/run.log", dir);
    struct cts_log log;
    CHECK_INT(cts_log_open(&log, path, err, sizeof err), 0);
    cts_log_event(&log, "begin", "case.one", NULL);
    cts_log_event(&log, "result", "case.one", json_pack("{s:s}", "status", "PASS"));
    cts_log_event(&log, "end", "case.one", NULL);
    cts_log_event(&log, "begin", "case.two", NULL);
    cts_log_close(&log);
    json_t *scan = cts_log_scan(path, NULL, err, sizeof err);
    CHECK(scan != NULL);
    CHECK_STR(json_string_value(json_object_get(scan, "case.one")), "PASS");
    CHECK_STR(json_string_value(json_object_get(scan, "case.two")), "CRASH");
    json_decref(scan);
    write_text(path, "not a log\n");
    CHECK(cts_log_scan(path, NULL, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "line 1 is not a sync-cts log event");

    json_decref(m);
    unlink(path);
    unlink(md);
    rmdir(dir);
    check_measured_evidence(a);
    CHECK_DONE();
}
