/* The streamed per-case log: one JSON object a line, flushed as written. */
#define _GNU_SOURCE
#include "latch.h"
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cts_log_open(struct cts_log *l, const char *path, char *err, size_t errlen)
{
    l->err = 0;
    l->f = fopen(path, "w");
    if (!l->f) {
        l->err = errno;
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
    errno = 0;
    if ((json_dumpf(j, l->f, JSON_COMPACT | JSON_SORT_KEYS) || fputc('\n', l->f) == EOF || fflush(l->f)) &&
        !l->err)
        l->err = errno ? errno : EIO;
    json_decref(j);
}

int cts_log_close(struct cts_log *l)
{
    if (l->f) {
        errno = 0;
        if ((ferror(l->f) | fclose(l->f)) && !l->err)
            l->err = errno ? errno : EIO;
    }
    l->f = NULL;
    return l->err ? -1 : 0;
}

/* A line of the log that is an event (ev): a case's begin, result or end,
 * or a line of no case (run, done).  1 if it does not fit: err says why. */
static int log_event(const char *path, int lineno, json_t *j, const char *ev, json_t *out,
                     json_t *open, json_t *why, char *err, size_t errlen)
{
    const char *id = NULL, *st = NULL;
    const json_t *rj = json_object_get(j, "reason"); /* a string, null or absent */
    const char *reason = json_string_value(rj);
    int bad = 0;
    if (json_unpack(j, "{s?s,s?s}", "id", &id, "status", &st) != 0 ||
        (rj && !reason && !json_is_null(rj))) {
        snprintf(err, errlen, "'%s' line %d: \"id\", \"status\" or \"reason\" is not a string",
                 path, lineno);
        bad = 1;
    } else if (!id) {
        /* run, done: no case */
    } else if (!strcmp(ev, "begin")) {
        if (json_object_get(out, id)) {
            snprintf(err, errlen, "'%s' line %d: case '%s' begins twice", path, lineno, id);
            bad = 1;
        }
        json_object_set_new(out, id, json_string("CRASH"));
        json_object_set_new(why, id, json_string("the log has its begin and no result: the "
                                                 "process writing it died in this case"));
        json_object_set_new(open, id, json_false());
    } else if (!strcmp(ev, "result")) {
        if (!json_object_get(open, id) || json_is_true(json_object_get(open, id))) {
            snprintf(err, errlen, "'%s' line %d: a result for case '%s' outside its begin and end",
                     path, lineno, id);
            bad = 1;
        } else if (!st || cts_status_parse(st) < 0) {
            snprintf(err, errlen, "'%s' line %d: case '%s' has an unknown status '%s'", path, lineno,
                     id, st ? st : "(none)");
            bad = 1;
        } else {
            json_object_set_new(out, id, json_string(st));
            json_object_set_new(open, id, json_true());
            if (strcmp(st, "CRASH"))
                json_object_del(why, id);
            else
                json_object_set_new(why, id, json_string(reason ? reason : "(no reason given)"));
        }
    } else if (!strcmp(ev, "end")) {
        if (!json_is_true(json_object_get(open, id))) {
            snprintf(err, errlen, "'%s' line %d: case '%s' ends without %s", path, lineno, id,
                     json_object_get(open, id) ? "a result" : "a begin");
            bad = 1;
        }
        json_object_del(open, id);
    } else {
        snprintf(err, errlen, "'%s' line %d: unknown event '%s'", path, lineno, ev);
        bad = 1;
    }
    return bad;
}

/* A log is JSON lines, each an object with an "event".  A case's lines
 * are begin, result (with its status), end, in that order; a case with a
 * begin and no end is the one the process died in (CRASH).  Its last line
 * may be torn (the process died while writing it: it lacks its newline and
 * does not parse): that line is ignored.  Anything else that does not
 * fit is not a log this program wrote: NULL, and the line says why.
 * *crashes (if not NULL) gets, for each CRASH case, why. */
json_t *cts_log_scan(const char *path, json_t **crashes, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    json_t *out = json_object(), *open = json_object(); /* open: begun, no end yet */
    json_t *why = json_object();
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, bad = 0;
    while (!bad && (len = getline(&line, &cap, f)) > 0) {
        lineno++;
        int last = line[len - 1] != '\n';
        json_t *j = json_loads(line, 0, NULL);
        const char *ev = NULL;
        if (!j || json_unpack(j, "{s:s}", "event", &ev) != 0) {
            if (last) { /* the last line, torn: the process died writing it */
                json_decref(j);
                break;
            }
            snprintf(err, errlen, "'%s' line %d is not a sync-cts log event", path, lineno);
            bad = 1;
        } else {
            bad = log_event(path, lineno, j, ev, out, open, why, err, errlen);
        }
        json_decref(j);
    }
    int rerr = !bad && ferror(f);
    if (rerr)
        snprintf(err, errlen, "cannot read '%s'", path);
    free(line);
    fclose(f);
    json_decref(open);
    if (bad || rerr) {
        json_decref(out);
        json_decref(why);
        return NULL;
    }
    if (crashes)
        *crashes = why;
    else
        json_decref(why);
    return out;
}
