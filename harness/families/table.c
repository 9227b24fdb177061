/* The case table and case selection, built from the families (cases/,
 * harness/core/apis.def): the one part of ids and the CLI that needs the families,
 * and so links them and the CUDA calls they issue (CMakeLists.txt, cts_cases);
 * the names and ids are ids.c, the rest of the CLI cli.c. */
#define _GNU_SOURCE
#include "cli.h"

#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct cts_case *table;
static size_t table_len;

const struct cts_case *cts_all_cases(size_t *count)
{
    if (!table) {
        size_t total = 0;
        for (size_t f = 0; f < cts_family_count; f++)
            total += cts_families[f]->generate(NULL, 0);
        table = calloc(total ? total : 1, sizeof *table);
        if (!table) {
            fprintf(stderr, "sync-cts: out of memory building the case table\n");
            exit(2);
        }
        for (size_t f = 0; f < cts_family_count; f++)
            table_len += cts_families[f]->generate(table + table_len, total - table_len);
    }
    *count = table_len;
    return table;
}

size_t cts_select(const char *glob, const char *family, const char *group, int devices,
                  const struct cts_case ***out)
{
    size_t n;
    const struct cts_case *all = cts_all_cases(&n);
    const struct cts_case **sel = calloc(n ? n : 1, sizeof *sel);
    size_t k = 0;
    if (!sel) {
        fprintf(stderr, "sync-cts: out of memory selecting cases\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        char g[CTS_ID_MAX];
        if (group)
            cts_case_group(&all[i], g, sizeof g);
        if ((!glob || fnmatch(glob, all[i].id, 0) == 0) &&
            (!family || strcmp(family, all[i].family->name) == 0) &&
            (!group || strcmp(group, g) == 0) && (!devices || cts_case_devices(&all[i]) == devices))
            sel[k++] = &all[i];
    }
    *out = sel;
    return k;
}

static int cmp_case_id(const void *a, const void *b)
{
    return strcmp((*(const struct cts_case *const *)a)->id, (*(const struct cts_case *const *)b)->id);
}

const struct cts_case *cts_case_find(const char *id)
{
    static const struct cts_case **index;
    static size_t n;
    if (!index) {
        const struct cts_case *all = cts_all_cases(&n);
        index = malloc((n ? n : 1) * sizeof *index);
        if (!index) {
            fprintf(stderr, "sync-cts: out of memory indexing the case table\n");
            exit(2);
        }
        for (size_t i = 0; i < n; i++)
            index[i] = &all[i];
        qsort(index, n, sizeof *index, cmp_case_id);
    }
    struct cts_case key;
    snprintf(key.id, sizeof key.id, "%s", id);
    const struct cts_case *kp = &key, **hit = bsearch(&kp, index, n, sizeof *index, cmp_case_id);
    return hit ? *hit : NULL;
}

int cts_parse_devices(const char *s, int *devices)
{
    if (cts_parse_int(s, 1, 2, devices))
        return cts_die(EXIT_USAGE, "--devices wants 1 or 2 (the devices a case needs), not '%s'", s);
    return 0;
}

/* One positional GLOB at most.  Returns 0, or an exit code. */
static int take_glob(int argc, char **argv, const char **glob)
{
    *glob = NULL;
    if (optind < argc)
        *glob = argv[optind++];
    if (optind < argc)
        return cts_die(EXIT_USAGE, "unexpected argument '%s' (one GLOB at most)", argv[optind]);
    return 0;
}

/* The cases the optional GLOB selects; a GLOB that selects nothing is bad input. */
int cts_select_cases(int argc, char **argv, const char *family, const char *group, int devices,
                        const char **glob, const struct cts_case ***sel, size_t *n)
{
    int rc = take_glob(argc, argv, glob);
    if (rc)
        return rc;
    if (family) {
        size_t f = 0;
        while (f < cts_family_count && strcmp(cts_families[f]->name, family))
            f++;
        if (f == cts_family_count) {
            char names[256] = "";
            for (f = 0; f < cts_family_count; f++) /* a test-only family is named where enabled */
                if (cts_families[f]->generate(NULL, 0))
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                             names[0] ? ", " : "", cts_families[f]->name);
            return cts_die(EXIT_USAGE, "no family '%s' (families: %s)", family, names);
        }
    }
    *n = cts_select(*glob, family, group, devices, sel);
    if (*n == 0) {
        free(*sel);
        if (devices)
            return cts_die(EXIT_USAGE, "no case that needs %d device%s matches the selection", devices,
                           devices == 1 ? "" : "s");
        if (group)
            return cts_die(EXIT_USAGE, "no case of group '%s'%s%s matches '%s' (groups: sync-cts list --groups)",
                       group, family ? " in family " : "", family ? family : "", *glob ? *glob : "*");
        if (family)
            return cts_die(EXIT_USAGE, "no case of family '%s' matches '%s'", family, *glob ? *glob : "*");
        return cts_die(EXIT_USAGE, "no case matches '%s'", *glob);
    }
    return 0;
}
