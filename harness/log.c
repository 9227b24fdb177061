/* The streamed per-case log: one JSON object a line, flushed as written. */
#define _GNU_SOURCE
#include "latch.h"
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cts_log_open(struct cts_log *l, const char *path, char *err, size_t errlen)
{
    l->f = fopen(path, "w");
    if (!l->f) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

void cts_log_event(struct cts_log *l, const char *event, const char *id, json_t *extra)
{
    if (!l->f) {
        json_decref(extra);
        return;
    }
    json_t *j = extra ? extra : json_object();
    json_object_set_new(j, "event", json_string(event));
    if (id)
        json_object_set_new(j, "id", json_string(id));
    json_object_set_new(j, "t_us", json_real(cts_now_us()));
    json_dumpf(j, l->f, JSON_COMPACT | JSON_SORT_KEYS);
    fputc('\n', l->f);
    fflush(l->f);
    json_decref(j);
}

void cts_log_close(struct cts_log *l)
{
    if (l->f)
        fclose(l->f);
    l->f = NULL;
}

json_t *cts_log_scan(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    json_t *out = json_object();
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        json_error_t je;
        json_t *j = json_loads(line, 0, &je);
        const char *ev = NULL, *id = NULL, *st = NULL;
        if (!j || json_unpack(j, "{s:s}", "event", &ev) != 0) {
            snprintf(err, errlen, "'%s' line %d is not a sync-cts log event", path, lineno);
            json_decref(j);
            json_decref(out);
            free(line);
            fclose(f);
            return NULL;
        }
        json_unpack(j, "{s?s,s?s}", "id", &id, "status", &st);
        if (id && strcmp(ev, "begin") == 0)
            json_object_set_new(out, id, json_string("CRASH"));
        else if (id && strcmp(ev, "result") == 0 && st)
            json_object_set_new(out, id, json_string(st));
        else if (id && strcmp(ev, "end") == 0 && !json_object_get(out, id))
            json_object_set_new(out, id, json_string("CRASH"));
        json_decref(j);
    }
    free(line);
    fclose(f);
    return out;
}
