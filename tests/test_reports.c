/* The CSV and HTML renderings of a matrix: exact CSV of a small constructed
 * matrix (quoting, nulls, clauses, medians), the HTML page's anchors,
 * classes, escaping and self-containment; then both renderings of a real
 * committed matrix (argv[1], read only), whose HTML is written to argv[2]
 * when given (the page the headless-Chromium test opens). */
#define _GNU_SOURCE
#include "check.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

/* Five cases: a DEVIATES wait, a VARIES with no spec, a NOTSUPP whose
 * reason holds a comma, quotes and '<', a CONFORMS Q+b with a median to
 * take, and an INCONCLUSIVE whose reason spans two lines. */
static const char small_matrix[] =
    "{\"schema\":\"cuda-sync-cts/matrix\",\"schema_version\":1,"
    "\"environment\":{\"gpu\":{\"name\":\"Test <GPU> 'x' & \\\"y\\\"\",\"compute_capability\":\"9.0\","
    "\"uuid\":\"GPU-0\"},\"versions\":{\"driver\":\"580.159.04\",\"driver_api\":{\"text\":\"13.0\"},"
    "\"runtime\":{\"text\":\"13.0\"},\"toolkit\":{\"text\":\"13.0\"}},\"settings\":{\"default_stream\":"
    "\"legacy\",\"device_schedule\":\"auto\",\"environment_variables\":{\"CUDA_LAUNCH_BLOCKING\":null}},"
    "\"suite_revision\":\"abc123\"},"
    "\"run\":{\"date\":\"2026-11-21T00:00:00Z\",\"wall_s\":1.5,\"repeat\":3},"
    "\"cases\":{"
    "\"memcpy.h2d.pageable.1B.explicit.op_implied.busy_same\":{\"family\":\"memcpy\",\"group\":\"memcpy.h2d\","
    "\"api\":\"memcpy\",\"function\":\"cudaMemcpy\",\"variant\":null,\"direction\":\"h2d\",\"memory\":\"pageable\","
    "\"size\":1,\"size_label\":\"1B\",\"kind\":\"explicit\",\"op_stream\":\"implied\",\"busy\":\"same\","
    "\"status\":\"PASS\",\"reason\":null,\"symbol\":\"W\",\"verdict\":{\"host\":\"waits\",\"op_after\":null,"
    "\"third_blocking\":null,\"third_nonblocking\":null,\"src\":null,\"dst\":null},"
    "\"evidence\":{\"idle_call_us\":5.0,\"call_us\":[9.9,10.1,10.0]},"
    "\"spec\":{\"conformance\":\"DEVIATES\",\"clauses\":[{\"id\":\"RT-SYNC-A\",\"holds\":false},"
    "{\"id\":\"RT-SYNC-B\",\"holds\":true}]}},"
    "\"memcpy.h2d.pageable.1B.explicit.op_implied.busy_legacy\":{\"family\":\"memcpy\",\"group\":\"memcpy.h2d\","
    "\"api\":\"memcpy\",\"function\":\"cudaMemcpy\",\"variant\":null,\"direction\":\"h2d\",\"memory\":\"pageable\","
    "\"size\":1,\"size_label\":\"1B\",\"kind\":\"explicit\",\"op_stream\":\"implied\",\"busy\":\"legacy\","
    "\"status\":\"VARIES\",\"reason\":\"repetitions differ on host: returns waits\",\"symbol\":\"A/W\","
    "\"verdict\":{\"host\":null,\"op_after\":null,\"third_blocking\":null,\"third_nonblocking\":null,"
    "\"src\":null,\"dst\":null},\"evidence\":{\"idle_call_us\":5.0,\"call_us\":[4.0,12.0]}},"
    "\"memcpy.h2d.pinned.1B.explicit.op_implied.busy_same\":{\"family\":\"memcpy\",\"group\":\"memcpy.h2d\","
    "\"api\":\"memcpy\",\"function\":\"cudaMemcpy\",\"variant\":null,\"direction\":\"h2d\",\"memory\":\"pinned\","
    "\"size\":1,\"size_label\":\"1B\",\"kind\":\"explicit\",\"op_stream\":\"implied\",\"busy\":\"same\","
    "\"status\":\"NOTSUPP\",\"reason\":\"needs \\\"pinned\\\", or mapped <memory>\",\"symbol\":null,"
    "\"verdict\":{\"host\":null,\"op_after\":null,\"third_blocking\":null,\"third_nonblocking\":null,"
    "\"src\":null,\"dst\":null},\"evidence\":{\"idle_call_us\":null},"
    "\"spec\":{\"conformance\":null,\"clauses\":[]}},"
    "\"memcpy_async.h2d.pageable.4KiB.explicit.op_nonblocking.busy_legacy\":{\"family\":\"memcpy\","
    "\"group\":\"memcpy_async.h2d\",\"api\":\"memcpy_async\",\"function\":\"cudaMemcpyAsync\",\"variant\":null,"
    "\"direction\":\"h2d\",\"memory\":\"pageable\",\"size\":4096,\"size_label\":\"4KiB\",\"kind\":\"explicit\","
    "\"op_stream\":\"nonblocking\",\"busy\":\"legacy\",\"status\":\"PASS\",\"reason\":null,\"symbol\":\"Q+b\","
    "\"verdict\":{\"host\":\"returns\",\"op_after\":\"held\",\"third_blocking\":\"held\","
    "\"third_nonblocking\":\"runs\",\"src\":\"at_call\",\"dst\":null},"
    "\"evidence\":{\"idle_call_us\":3.3,\"call_us\":[6.0,null,4.0,5.0]},"
    "\"spec\":{\"conformance\":\"CONFORMS\",\"clauses\":[{\"id\":\"RT-ASYNC-C\",\"holds\":true}]}},"
    "\"memcpy.d2h.device.1MiB.explicit.op_implied.busy_same\":{\"family\":\"memcpy\",\"group\":\"memcpy.d2h\","
    "\"api\":\"memcpy\",\"function\":\"cudaMemcpy\",\"variant\":null,\"direction\":\"d2h\",\"memory\":\"device\","
    "\"size\":1048576,\"size_label\":\"1MiB\",\"kind\":\"explicit\",\"op_stream\":\"implied\",\"busy\":\"same\","
    "\"status\":\"INCONCLUSIVE\",\"reason\":\"waiting or slow?\\r\\nsecond line\",\"symbol\":null,"
    "\"verdict\":{\"host\":null,\"op_after\":null,\"third_blocking\":null,\"third_nonblocking\":null,"
    "\"src\":null,\"dst\":null},\"evidence\":{\"idle_call_us\":350.6,\"call_us\":[]}}"
    "}}";

static const char expected_csv[] =
    "id,family,group,function,variant,direction,memory,size,kind,op_stream,busy,status,symbol,host,op_after,"
    "third_blocking,third_nonblocking,src,dst,idle_call_us,call_us_median,conformance,clauses,reason,capture,"
    "capture_by,capture_outcome,depth,queued,other_thread,pool,queues,at_once,elapsed,green\r\n"
    "memcpy.d2h.device.1MiB.explicit.op_implied.busy_same,memcpy,memcpy.d2h,cudaMemcpy,,d2h,device,1048576,"
    "explicit,implied,same,INCONCLUSIVE,,,,,,,,350.6,,,,\"waiting or slow?\r\nsecond line\",,,,,,,,,,,\r\n"
    "memcpy.h2d.pageable.1B.explicit.op_implied.busy_legacy,memcpy,memcpy.h2d,cudaMemcpy,,h2d,pageable,1,"
    "explicit,implied,legacy,VARIES,A/W,,,,,,,5.0,8.0,,,repetitions differ on host: returns waits,,,,,,,,,,,\r\n"
    "memcpy.h2d.pageable.1B.explicit.op_implied.busy_same,memcpy,memcpy.h2d,cudaMemcpy,,h2d,pageable,1,"
    "explicit,implied,same,PASS,W,waits,,,,,,5.0,10.0,DEVIATES,RT-SYNC-A;RT-SYNC-B,,,,,,,,,,,,\r\n"
    "memcpy.h2d.pinned.1B.explicit.op_implied.busy_same,memcpy,memcpy.h2d,cudaMemcpy,,h2d,pinned,1,"
    "explicit,implied,same,NOTSUPP,,,,,,,,,,,,\"needs \"\"pinned\"\", or mapped <memory>\",,,,,,,,,,,\r\n"
    "memcpy_async.h2d.pageable.4KiB.explicit.op_nonblocking.busy_legacy,memcpy,memcpy_async.h2d,"
    "cudaMemcpyAsync,,h2d,pageable,4096,explicit,nonblocking,legacy,PASS,Q+b,returns,held,held,runs,"
    "at_call,,3.3,5.0,CONFORMS,RT-ASYNC-C,,,,,,,,,,,,\r\n";

static char *render(int (*fn)(const json_t *, FILE *), const json_t *m, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    int rc = fn(m, f);
    fclose(f);
    if (rc) {
        free(buf);
        return NULL;
    }
    if (len)
        *len = n;
    return buf;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* A page must fetch nothing. */
static void check_self_contained(const char *html)
{
    CHECK(!strstr(html, "http://"));
    CHECK(!strstr(html, "https://"));
    CHECK(!strstr(html, "<link"));
    CHECK(!strstr(html, "src=\"http"));
    CHECK(!strstr(html, " src="));
    CHECK(!strstr(html, "@import"));
    CHECK(!strstr(html, "url("));
}

/* The ids of every <td id="..."> in a page, as the keys of an object; the
 * number of them (duplicates counted) in *count.  Tag by tag (strchr, then
 * strncmp): under AddressSanitizer each strstr measures the whole rest of
 * the page first, and 34,141 of them over 10 MB took two minutes. */
static json_t *cell_ids(const char *html, size_t *count)
{
    json_t *set = json_object();
    *count = 0;
    for (const char *p = html; (p = strchr(p, '<')); p++) {
        if (strncmp(p, "<td id=\"", 8))
            continue;
        p += 8;
        const char *e = strchr(p, '"');
        if (!e)
            break;
        char *id = strndup(p, e - p);
        json_object_set_new(set, id, json_true());
        free(id);
        ++*count;
        p = e;
    }
    return set;
}

/* A cheap call's latency from 1, 4 and 16 threads: its table row (one for
 * the busy placements that share it) and its words in `cite`; a failure's reason. */
static void latency(const json_t *small_m)
{
    json_t *m = json_deep_copy(small_m), *cases = json_object_get(m, "cases");
    const char *a = "memcpy_async.h2d.pageable.4KiB.explicit.op_nonblocking.busy_legacy";
    json_t *ev = json_object_get(json_object_get(cases, a), "evidence");
    json_object_set_new(ev, "latency",
                        json_pack("[{s:i,s:i,s:f,s:f,s:f},{s:i,s:i,s:f,s:f,s:f},{s:i,s:i,s:f,s:f,s:f}]", "threads",
                                  1, "calls", 960, "median_us", 1.2, "p99_us", 2.5, "max_us", 9.0, "threads", 4,
                                  "calls", 960, "median_us", 3.4, "p99_us", 8.0, "max_us", 20.0, "threads", 16,
                                  "calls", 960, "median_us", 20.1, "p99_us", 44.0, "max_us", 90.0));
    json_t *twin = json_deep_copy(json_object_get(cases, a)); /* another busy placement, the same measurement */
    json_object_set_new(twin, "busy", json_string("same"));
    json_object_set_new(cases, "memcpy_async.h2d.pageable.4KiB.explicit.op_nonblocking.busy_same", twin);
    json_t *failed = json_object_get(json_object_get(cases, "memcpy.h2d.pageable.1B.explicit.op_implied.busy_same"),
                                     "evidence");
    json_object_set_new(failed, "latency_error", json_string("cudaMemcpy returned cudaErrorUnknown in one of 16 "
                                                             "threads at once"));
    char *md = render(cts_render_markdown, m, NULL);
    CHECK_CONTAINS(md, "## Latency from several threads\n\nThe cheap calls on an idle GPU, made from 1, 4 and 16 "
                       "threads at once, 960 calls each time");
    CHECK_CONTAINS(md, "| `memcpy_async.h2d.pageable.4KiB.explicit.op_nonblocking` | 1.2 / 2.5 | 3.4 / 8.0 | "
                       "20.1 / 44.0 |\n");
    CHECK_CONTAINS(md, "| `memcpy.h2d.pageable.1B.explicit.op_implied` | cudaMemcpy returned cudaErrorUnknown in "
                       "one of 16 threads at once | | |\n");
    const char *first = md ? strstr(md, "| `memcpy_async.h2d.pageable.4KiB.explicit.op_nonblocking` |") : NULL;
    CHECK(first && !strstr(first + 1, "| `memcpy_async.h2d.pageable.4KiB.explicit.op_nonblocking` |")); /* once */
    free(md);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && cts_cite(m, a, f) == 0);
    if (f)
        fclose(f);
    CHECK_CONTAINS(text, " On an idle GPU, from 1, 4 and 16 threads at once (960 calls each time), the call took "
                         "a median 1.2, 3.4 and 20.1 us, a 99th percentile 2.5, 8.0 and 44.0 us.");
    free(text);
    json_decref(m);
}

static void small(void)
{
    json_error_t je;
    json_t *m = json_loads(small_matrix, 0, &je);
    if (!m) {
        fprintf(stderr, "small matrix: %s (line %d col %d)\n", je.text, je.line, je.column);
        check_failures++;
        return;
    }

    char *csv = render(cts_render_csv, m, NULL);
    CHECK(csv != NULL);
    CHECK_STR(csv, expected_csv);
    free(csv);
    char *md = render(cts_render_markdown, m, NULL); /* the legend's rows */
    CHECK_CONTAINS(md, "| `A:R` `A:N` `A:D` `A:I` | (a tight pool: groups `malloc_from_pool_async.tight_*`, ");
    CHECK(md && !strstr(md, "## Latency from several threads")); /* no case has it */
    free(md);
    latency(m);

    char *html = render(cts_render_html, m, NULL);
    CHECK(html != NULL);
    if (!html) {
        json_decref(m);
        return;
    }
    CHECK(!strncmp(html, "<!DOCTYPE html>\n", 16));
    CHECK_CONTAINS(html, "</html>\n");
    check_self_contained(html);
    /* The busy-placement heading spans every busy column the table has. */
    char span[64];
    snprintf(span, sizeof span, "<th colspan=\"%d\">busy placement</th>", CTS_BUSY_COLUMNS);
    CHECK_CONTAINS(html, span);
    /* Every case is a cell whose element id is its case id. */
    const char *id;
    json_t *c;
    json_object_foreach(json_object_get(m, "cases"), id, c)
    {
        char want[300];
        snprintf(want, sizeof want, "<td id=\"%s\" class=\"", id);
        CHECK_CONTAINS(html, want);
    }
    size_t ncells;
    json_t *ids = cell_ids(html, &ncells);
    CHECK_INT(ncells, 5);
    CHECK_INT(json_object_size(ids), 5);
    json_decref(ids);
    /* Outcome classes, third-stream mark, DEVIATES border. */
    CHECK_CONTAINS(html, "<td id=\"memcpy.h2d.pageable.1B.explicit.op_implied.busy_same\" class=\"w dev\" "
                         "title=\"memcpy.h2d.pageable.1B.explicit.op_implied.busy_same&#10;PASS W&#10;"
                         "conformance: DEVIATES (RT-SYNC-A, RT-SYNC-B)\">W</td>");
    CHECK_CONTAINS(html, "<td id=\"memcpy.h2d.pageable.1B.explicit.op_implied.busy_legacy\" class=\"v\" "
                         "title=\"memcpy.h2d.pageable.1B.explicit.op_implied.busy_legacy&#10;VARIES A/W&#10;"
                         "repetitions differ on host: returns waits\">A/W</td>");
    CHECK_CONTAINS(html, "class=\"q t\"");
    CHECK_CONTAINS(html, ">Q+b</td>");
    CHECK_CONTAINS(html, "class=\"bad\" title=\"memcpy.d2h.device.1MiB.explicit.op_implied.busy_same&#10;"
                         "INCONCLUSIVE&#10;waiting or slow?\r&#10;second line\">INC</td>");
    /* Escaping: the reason's quotes and '<' never reach the markup raw. */
    CHECK_CONTAINS(html, "class=\"ns\" title=\"memcpy.h2d.pinned.1B.explicit.op_implied.busy_same&#10;NOTSUPP&#10;"
                         "needs &quot;pinned&quot;, or mapped &lt;memory&gt;\">n/s</td>");
    CHECK(!strstr(html, "<memory>"));
    CHECK(!strstr(html, "<GPU>"));
    CHECK_CONTAINS(html, "Test &lt;GPU&gt; &#39;x&#39; &amp; &quot;y&quot;");
    /* The row model: the pageable 1B row has same and legacy, nothing else. */
    CHECK_CONTAINS(html, "<tr><td>pageable</td><td>1B</td><td>explicit</td><td>implied</td><td>5.0</td>"
                         "<td id=\"memcpy.h2d.pageable.1B.explicit.op_implied.busy_same\"");
    CHECK_CONTAINS(html, "<section class=\"g\" id=\"group-memcpy.h2d\">");
    CHECK_CONTAINS(html, "<h2>memcpy.h2d \xe2\x80\x94 cudaMemcpy, host to device</h2>");
    /* Groups in API order (memcpy before memcpy_async), h2d before d2h. */
    const char *g1 = strstr(html, "id=\"group-memcpy.h2d\""), *g2 = strstr(html, "id=\"group-memcpy.d2h\""),
               *g3 = strstr(html, "id=\"group-memcpy_async.h2d\"");
    CHECK(g1 && g2 && g3 && g1 < g2 && g2 < g3);
    /* Counts, environment, legend, filter. */
    CHECK_CONTAINS(html, "<b>5 cases:</b> <span class=\"u\">2 PASS</span> <span class=\"v\">1 VARIES</span>");
    CHECK_CONTAINS(html, "<span class=\"bad\">1 INCONCLUSIVE</span>");
    CHECK_CONTAINS(html, "<span class=\"u dev\">1 DEVIATES</span> <span class=\"u\">1 CONFORMS</span>");
    CHECK_CONTAINS(html, "<tr><th>Revision</th><td>suite abc123</td></tr>");
    CHECK_CONTAINS(html, "<tr><th>Date</th><td>2026-11-21T00:00:00Z; 1.5 s wall; 3 repetitions a case</td></tr>");
    CHECK_CONTAINS(html, "no CUDA_* variable set");
    CHECK_CONTAINS(html, "How to read a cell");
    /* The legend is the Markdown's (harness/report/legend.c), a sample cell a row, `code` as <code>. */
    CHECK_CONTAINS(html, "<div><span class=\"k a\">A:D</span><span>(a tight pool: groups "
                         "<code>malloc_from_pool_async.tight_*</code>, ");
    CHECK_CONTAINS(html, "<span>(data order: groups <code>&lt;api&gt;.written.&lt;dir&gt;</code>, where");
    CHECK_CONTAINS(html, "<div><span class=\"k bad\">FAIL</span>");
    CHECK_CONTAINS(html, "<input id=\"filter\" type=\"search\"");
    CHECK_CONTAINS(html, "<input id=\"devonly\" type=\"checkbox\">");
    CHECK_CONTAINS(html, "<style>");
    CHECK_CONTAINS(html, "<script>(function(){");
    CHECK(!strstr(html, "style=\"")); /* classes only */
    free(html);

    /* Without any spec.conformance there is no "deviations only" box. */
    json_object_foreach(json_object_get(m, "cases"), id, c) json_object_del(c, "spec");
    html = render(cts_render_html, m, NULL);
    CHECK(html && !strstr(html, "<input id=\"devonly\"") && !strstr(html, "conformance:") &&
          !strstr(html, " dev\" title="));
    free(html);
    csv = render(cts_render_csv, m, NULL);
    CHECK_CONTAINS(csv, ",PASS,W,waits,,,,,,5.0,10.0,,,,,,,,,,,,,,\r\n");
    free(csv);
    /* A stall case's verdict of the second thread: the column before the last. */
    json_object_set_new(json_object_get(json_object_get(json_object_get(m, "cases"),
                                                        "memcpy.h2d.pageable.1B.explicit.op_implied.busy_same"),
                                        "verdict"),
                        "other_thread", json_string("stalls"));
    csv = render(cts_render_csv, m, NULL);
    CHECK_CONTAINS(csv, ",PASS,W,waits,,,,,,5.0,10.0,,,,,,,,,stalls,,,,,\r\n");
    free(csv);
    /* A pool case's verdict of what the allocation got: the column after it. */
    json_t *pv = json_object_get(json_object_get(json_object_get(m, "cases"),
                                                 "memcpy.h2d.pageable.1B.explicit.op_implied.busy_same"),
                                 "verdict");
    json_object_del(pv, "other_thread");
    json_object_set_new(pv, "pool", json_string("reused_now"));
    csv = render(cts_render_csv, m, NULL);
    CHECK_CONTAINS(csv, ",PASS,W,waits,,,,,,5.0,10.0,,,,,,,,,,reused_now,,,,\r\n");
    free(csv);
    /* A queues case's (a kind in the verdict's kind slot): its value and its count, before elapsed and green. */
    json_object_del(pv, "pool");
    json_object_set_new(pv, "queues", json_string("some"));
    json_object_set_new(pv, "at_once", json_integer(8));
    csv = render(cts_render_csv, m, NULL);
    CHECK_CONTAINS(csv, ",PASS,W,waits,,,,,,5.0,10.0,,,,,,,,,,,some,8,,\r\n");
    free(csv);

    /* Not a matrix: an error, not a page. */
    json_t *bad = json_pack("{s:i}", "cases", 3);
    CHECK(render(cts_render_csv, bad, NULL) == NULL);
    CHECK(render(cts_render_html, bad, NULL) == NULL);
    json_decref(bad);
    json_decref(m);
}

/* Records in a CSV text (a CRLF outside quotes ends one); *sorted says
 * whether the first fields after the header (the ids, which need no quoting)
 * rise strictly. */
static size_t csv_records(const char *s, int *sorted)
{
    size_t n = 0;
    int q = 0;
    const char *start = s;
    char *prev = NULL;
    *sorted = 1;
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            q = !q;
        else if (!q && p[0] == '\r' && p[1] == '\n') {
            if (n > 0) { /* not the header */
                char *id = strndup(start, strcspn(start, ","));
                if (prev && strcmp(prev, id) >= 0)
                    *sorted = 0;
                free(prev);
                prev = id;
            }
            n++;
            start = p + 2;
        }
    }
    free(prev);
    return n;
}

static void real(const char *path, const char *html_out)
{
    char err[512];
    json_t *m = cts_matrix_load(path, err, sizeof err);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        check_failures++;
        return;
    }
    const json_t *cases = json_object_get(m, "cases");
    size_t n = json_object_size(cases), csv_len, html_len;

    /* What cts_matrix_load builds (two threads, an arena) is what jansson
     * alone makes of the file, in the same order. */
    {
        gzFile gz = gzopen(path, "rb");
        char *text = NULL;
        size_t len = 0, cap = 0;
        int got = 1;
        while (gz && got > 0) {
            if (len + 65536 > cap) {
                char *bigger = realloc(text, cap = cap ? 2 * cap : 1 << 24);
                if (!bigger)
                    break;
                text = bigger;
            }
            got = gzread(gz, text + len, 65536);
            len += got > 0 ? (size_t)got : 0;
        }
        if (gz)
            gzclose(gz);
        json_error_t je;
        json_t *plain = text ? json_loadb(text, len, 0, &je) : NULL;
        CHECK(plain && json_equal(plain, m));
        void *x = json_object_iter((json_t *)cases), *y = json_object_iter(json_object_get(plain, "cases"));
        size_t same = 0;
        for (; x && y && !strcmp(json_object_iter_key(x), json_object_iter_key(y)); same++) {
            x = json_object_iter_next((json_t *)cases, x);
            y = json_object_iter_next(json_object_get(plain, "cases"), y);
        }
        CHECK_INT(same, n);
        json_decref(plain);
        free(text);
    }

    double t0 = now_s();
    char *csv = render(cts_render_csv, m, &csv_len);
    double t1 = now_s();
    char *html = render(cts_render_html, m, &html_len);
    double t2 = now_s();
    CHECK(csv && html);
    if (!csv || !html) {
        free(csv);
        free(html);
        json_decref(m);
        return;
    }
    printf("%s: %zu cases; CSV %zu bytes in %.3f s; HTML %zu bytes in %.3f s\n", path, n, csv_len, t1 - t0,
           html_len, t2 - t1);

    size_t table;
    (void)cts_all_cases(&table);
    CHECK_INT(n, table); /* the committed matrix has every case of the table */
    int sorted;
    size_t records = csv_records(csv, &sorted);
    CHECK_INT(records, n + 1); /* the header and one row a case */
    CHECK(sorted);
    CHECK(!strncmp(csv, "id,family,group,function,", 25));
    /* A capture case's row ends with its modes and outcome, then eight empty fields; a depth
     * case's with its depth and count, then an empty other_thread, pool, queues, at_once, elapsed
     * and green (the last columns); a queues case's with its value and count, then an empty elapsed and green. */
    CHECK_CONTAINS(csv, "\r\nmemcpy_async.capture_global.by_global.op_blocking.busy_same,capture,capture_global,");
    CHECK_CONTAINS(csv, ",global,global,graph,,,,,,,,\r\n");
    CHECK_CONTAINS(csv, ",thread_local,thread_local,ended,,,,,,,,\r\n");
    CHECK_CONTAINS(csv, "\r\nlaunch.queue_depth.op_legacy.busy_same,depth,launch.queue_depth,cudaLaunchKernel,queue_depth,");
    CHECK_CONTAINS(csv, ",,,,found,1021,,,,,,\r\n");
    CHECK_CONTAINS(csv, ",,,,none,65536,,,,,,\r\n");
    CHECK_CONTAINS(csv, "\r\nkernels_at_once.two_kernels.with_09_streams.op_nonblocking.busy_nonblocking,queues,"
                        "kernels_at_once.two_kernels,cudaLaunchKernel,two_kernels,");
    CHECK_CONTAINS(csv, ",,,,,,some,8,,\r\n");

    check_self_contained(html);
    CHECK_CONTAINS(html, "<input id=\"filter\"");
    size_t ncells;
    json_t *ids = cell_ids(html, &ncells);
    CHECK_INT(ncells, n); /* one cell a case, none twice */
    const char *id;
    json_t *c;
    size_t missing = 0;
    json_object_foreach((json_t *)cases, id, c) if (!json_object_get(ids, id))
    {
        if (!missing++)
            fprintf(stderr, "no cell with the element id %s\n", id);
    }
    CHECK_INT(missing, 0);
    json_decref(ids);

    if (html_out) {
        struct cts_outfile o;
        CHECK_INT(cts_outfile_open(&o, html_out, err, sizeof err), 0);
        if (fwrite(html, 1, html_len, o.f) != html_len) {
            cts_outfile_abort(&o);
            CHECK(!"write the page");
        } else if (cts_outfile_commit(&o, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            check_failures++;
        } else {
            printf("wrote %s\n", html_out);
        }
    }
    free(csv);
    free(html);
    json_decref(m);
}

/* A matrix whose strings try to break out: every one of them reaches the
 * Markdown and the HTML escaped. */
static void hostile(void)
{
    json_error_t je;
    json_t *m = json_loads(small_matrix, 0, &je);
    CHECK(m != NULL);
    if (!m)
        return;
    json_t *env = json_object_get(m, "environment"), *cases = json_object_get(m, "cases");
    json_object_set_new(json_object_get(env, "gpu"), "name", json_string("<script>alert(1)</script>"));
    json_object_set_new(json_object_get(json_object_get(env, "settings"), "environment_variables"), "CUDA_X",
                        json_string("a|b\nc&d"));
    json_object_set_new(json_object_get(env, "versions"), "driver", json_string("580 <img src=x onerror=alert(1)>"));
    json_t *inc = json_object_get(cases, "memcpy.d2h.device.1MiB.explicit.op_implied.busy_same");
    json_object_set_new(inc, "reason", json_string("x`y|z<b>bold</b>\n| forged | row |"));
    json_t *dev = json_deep_copy(json_object_get(cases, "memcpy.h2d.pageable.1B.explicit.op_implied.busy_same"));
    json_object_set_new(dev, "symbol", json_string("W|<i>"));
    json_object_set_new(dev, "busy", json_string("perthread"));
    json_object_set_new(cases, "evil`id|x\"y", dev);
    json_object_set_new(m, "spec", json_pack("{s:s,s:{s:{s:s,s:s,s:s},s:{s:s,s:s,s:s},s:{s:s,s:s,s:s}}}",
                                             "documentation", "docs <b>", "clauses", "RT-SYNC-A", "where", "w|x",
                                             "quote", "q <i>it</i> | [a](b)", "url", "javascript:alert(1)",
                                             "RT-SYNC-B", "where", "w", "quote", "q", "url", "https://example.com/a b",
                                             "RT-[X]](y)", "where", "w", "quote", "q", "url", "https://example.com/"));

    char *md = render(cts_render_markdown, m, NULL);
    CHECK(md != NULL);
    CHECK(md && !strstr(md, "<script>"));
    CHECK(md && !strstr(md, "<b>") && !strstr(md, "<i>") && !strstr(md, "<img"));
    CHECK(md && !strstr(md, "](javascript:"));
    CHECK(md && !strstr(md, "\n| forged"));
    CHECK_CONTAINS(md, "# cuda-sync-cts matrix: &lt;script&gt;alert(1)&lt;/script&gt;, driver 580 &lt;img src=x "
                       "onerror=alert(1)&gt; (CUDA 13.0), runtime 13.0\n");
    CHECK_CONTAINS(md, "| Environment | CUDA_X=a\\|b c&amp;d |\n");
    CHECK_CONTAINS(md, "| x\\`y\\|z&lt;b&gt;bold&lt;/b&gt; \\| forged \\| row \\| |\n");
    CHECK_CONTAINS(md, "| <a id=\"evil`id&#124;x&quot;y\"></a>``evil`id\\|x\"y`` | W\\|&lt;i&gt; | RT-SYNC-A");
    CHECK_CONTAINS(md, "| RT-SYNC-A (javascript:alert(1)) | 2 | q &lt;i&gt;it&lt;/i&gt; \\| [a\\](b) |\n");
    CHECK_CONTAINS(md, "| RT-SYNC-B (https://example.com/a b) | w |");
    CHECK_CONTAINS(md, " W\\|&lt;i&gt; ✗ |");
    CHECK_CONTAINS(md, "| [RT-\\[X\\]\\](y)](https://example.com/) | w | 0 | 0 | 0 (no case) |\n");
    /* Every table row has as many cells as its header: no '|' got through unescaped. */
    for (const char *line = md; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len && line[0] == '|') {
            size_t bars = 0;
            for (size_t i = 0; i < len; i++)
                bars += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
            static size_t want;
            if (len > 4 && !strncmp(line, "|---", 4))
                ; /* a delimiter row: its header set want */
            else if (line != md && line[-2] != '|') /* the first row of a table */
                want = bars;
            else if (bars != want) {
                fprintf(stderr, "a table row with %zu cells, not %zu: %.*s\n", bars, want, (int)len, line);
                check_failures++;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    free(md);

    char *html = render(cts_render_html, m, NULL);
    CHECK(html && !strstr(html, "<script>alert"));
    CHECK(html && !strstr(html, "<b>bold") && !strstr(html, "<i>it") && !strstr(html, "<img"));
    CHECK_CONTAINS(html, "&lt;script&gt;alert(1)&lt;/script&gt;");
    CHECK_CONTAINS(html, "<td id=\"evil`id|x&quot;y\" class=\"w dev\" title=\"evil`id|x&quot;y&#10;PASS W|&lt;i&gt;");
    free(html);
    json_decref(m);
}

/* f of the JSON text should be want. */
static void median_is(double (*f)(const json_t *), const char *what, const char *text, double want)
{
    json_t *j = json_loads(text, 0, NULL);
    CHECK(j != NULL);
    double got = f(j);
    if (got != want) {
        fprintf(stderr, "%s of %s: %g, want %g\n", what, text, got, want);
        check_failures++;
    }
    json_decref(j);
}

/* One median for every report: the middle one, or the mean of the two middle
 * ones (cite once took the upper one, csv and diff the mean: 12.0 against 8.0).
 * A call's time: over the repetitions decided at the case's own timeout. */
static void medians(void)
{
    median_is(cts_json_median, "median", "[3.0, 1.0, 2.0]", 2.0);
    median_is(cts_json_median, "median", "[4.0, 12.0]", 8.0);
    median_is(cts_json_median, "median", "[12.0, null, 4.0]", 8.0);
    median_is(cts_json_median, "median", "[5]", 5.0);
    median_is(cts_json_median, "median", "[7.5, 1.5, 3.0, 9.0]", 5.25);
    median_is(cts_call_median, "call median",
              "{\"call_us\": [290.0, 924.0], \"timeout_us\": 200.0, \"rep_timeout_us\": [200.0, 781.0]}", 290.0);
    median_is(cts_call_median, "call median", "{\"call_us\": [4.0, 12.0], \"timeout_us\": 200.0}", 8.0);
    median_is(cts_call_median, "call median",
              "{\"call_us\": [900.0, 800.0], \"timeout_us\": 200.0, \"rep_timeout_us\": [700.0, 781.0]}", 850.0);
    median_is(cts_call_median, "call median",
              "{\"call_us\": [1.0, 9.0, 3.0], \"timeout_us\": 5.0, \"rep_timeout_us\": [5.0, 50.0, 5.0]}", 2.0);
    json_t *none = json_loads("[null, \"x\"]", 0, NULL), *empty = json_array();
    CHECK(isnan(cts_json_median(none)));
    CHECK(isnan(cts_json_median(empty)));
    CHECK(isnan(cts_json_median(NULL)));
    json_decref(none);
    json_decref(empty);
}

/* The case view: one case read once, each figure by its one definition.
 * A wait proven with a longer timeout: its repetitions at two timeouts, of
 * which the call time takes only those at the case's own (200 us). */
static void view(void)
{
    static const char waited[] =
        "{\"family\":\"memcpy\",\"group\":\"memcpy_async.h2d\",\"api\":\"memcpy_async\","
        "\"function\":\"cudaMemcpyAsync\",\"variant\":null,\"direction\":\"h2d\",\"memory\":\"pinned\","
        "\"size\":4096,\"size_label\":\"4KiB\",\"kind\":\"explicit\",\"op_stream\":\"nonblocking\","
        "\"busy\":\"hostfn\",\"status\":\"PASS\",\"reason\":null,\"symbol\":\"W\","
        "\"verdict\":{\"host\":\"waits\",\"op_after\":null,\"third_blocking\":\"held_anyway\","
        "\"third_nonblocking\":null,\"src\":null,\"dst\":\"complete\",\"rejected\":\"cudaErrorX\"},"
        "\"evidence\":{\"repetitions\":3,\"idle_call_us\":5.5,\"timeout_us\":200.0,"
        "\"call_us\":[290.0,924.0,310.0],\"rep_timeout_us\":[200.0,781.0,200.0],"
        "\"release_to_return_us\":[3.0,null,5.0]},"
        "\"spec\":{\"conformance\":\"DEVIATES\",\"clauses\":[{\"id\":\"RT-A\",\"prediction\":"
        "\"guaranteed_not\",\"about\":\"host\",\"holds\":false},{\"id\":\"RT-B\",\"holds\":null}]}}";
    json_t *c = json_loads(waited, 0, NULL);
    CHECK(c != NULL);
    struct cts_case_view v;
    cts_case_view(&v, "the.id", c);
    CHECK_STR(v.id, "the.id");
    CHECK_STR(v.variant, ""); /* null: "" */
    CHECK(v.sized && v.size == 4096 && v.has_symbol && !v.has_reason);
    CHECK(v.status == CTS_PASS && v.repetitions == 3);
    CHECK(v.verdict.host == CTS_HOST_WAITS && v.verdict.op_after == CTS_ORDER_NA);
    CHECK(v.verdict.third_blocking == CTS_ORDER_HELD_ANYWAY && v.verdict.dst == CTS_DST_COMPLETE);
    CHECK_STR(v.verdict.rejected, "cudaErrorX");
    CHECK(v.has_spec && v.conformance == CTS_DEVIATES && json_array_size(v.clauses) == 2);
    struct cts_case_clause a = cts_case_clause(&v, 0), b = cts_case_clause(&v, 1);
    CHECK(a.holds == CTS_HOLDS_NO && b.holds == CTS_HOLDS_OPEN);
    CHECK_STR(a.prediction, "guaranteed_not");
    CHECK_STR(b.about, "");
    CHECK(v.idle_us == 5.5);
    CHECK(v.call_us == 300.0); /* 290 and 310 at 200 us; not 924 (measured at 781 us) */
    CHECK(v.release_to_return_us == 4.0);
    /* The sort keys, named: cudaMemcpyAsync's h2d, pinned, explicit, a
     * non-blocking op stream, the host-function busy column. */
    CHECK_INT(v.rank.direction, 0);
    CHECK_INT(v.rank.memory, 1);
    CHECK_INT(v.rank.kind, 0);
    CHECK_INT(v.rank.op_stream, 5);
    CHECK_INT(v.rank.busy, CTS_BUSY_COLUMNS - 2); /* hostfn; same_hostfn is last */
    CHECK(v.rank.api < CTS_API_COUNT);
    /* Unknown values sort last; a null size is 0, and unsized; null times NAN. */
    json_object_set_new(c, "memory", json_string("elsewhere"));
    json_object_set_new(c, "busy", json_string("nowhere"));
    json_object_set_new(c, "size", json_null());
    json_object_set_new(json_object_get(c, "evidence"), "idle_call_us", json_null());
    json_object_set_new(json_object_get(c, "evidence"), "release_to_return_us", json_null());
    json_object_del(c, "spec");
    cts_case_view(&v, "the.id", c);
    CHECK(!v.sized && v.size == 0 && isnan(v.idle_us) && isnan(v.release_to_return_us));
    CHECK(v.rank.memory == 8 && v.rank.busy == CTS_BUSY_COLUMNS);
    CHECK(!v.has_spec && v.conformance == CTS_CONF_NONE && json_array_size(v.clauses) == 0);
    struct cts_verdict x = v.verdict;
    CHECK(cts_verdict_equal(&v.verdict, &x));
    x.rejected = NULL;
    CHECK(!cts_verdict_equal(&v.verdict, &x));
    /* An overlap case: its second operation and its verdict, read; a verdict that
     * differs only there is another verdict. */
    CHECK_STR(v.with, "");
    json_object_set_new(c, "with", json_string("d2d"));
    json_object_set_new(json_object_get(c, "verdict"), "overlap", json_string("shares"));
    cts_case_view(&v, "the.id", c);
    CHECK_STR(v.with, "d2d");
    CHECK_INT(v.verdict.overlap, CTS_OVERLAP_SHARES);
    x = v.verdict;
    x.overlap = CTS_OVERLAP_SERIALIZES;
    CHECK(!cts_verdict_equal(&v.verdict, &x));
    json_decref(c);
}

int main(int argc, char **argv)
{
    medians();
    view();
    small();
    hostile();
    if (argc > 1)
        real(argv[1], argc > 2 ? argv[2] : NULL);
    else
        printf("skipped the real matrix: no path given (usage: test_reports MATRIX[.json.gz] [PAGE.html])\n");
    CHECK_DONE();
}
