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

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
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
    json_t *env = json_pack("{s:{s:s},s:{s:s,s:{s:s},s:{s:s},s:{s:s}},s:{s:s,s:s,s:{}}}", "gpu", "name",
                            "Test GPU", "versions", "driver", "580.159.04", "driver_api", "text", "13.0",
                            "runtime", "text", "13.0", "toolkit", "text", "13.0", "settings",
                            "default_stream", "legacy", "device_schedule", "auto",
                            "environment_variables");
    json_t *run = json_pack("{s:s,s:f,s:i}", "date", "2026-11-21T00:00:00Z", "wall_s", 1.5, "repeat", 2);
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
    const json_t *cb = json_object_get(json_object_get(back, "cases"), b->id);
    CHECK_STR(json_string_value(json_object_get(cb, "status")), "INCONCLUSIVE");
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
    CHECK_CONTAINS(text, "# cuda-sync-cts matrix: Test GPU, driver 580.159.04, CUDA 13.0");
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
    CHECK_DONE();
}
