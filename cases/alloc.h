/* The allocation family's own, shared by its three files only: cases/alloc.c
 * (the family: its cases, how each call is prepared, made and undone),
 * cases/alloc_vmm.c (the virtual memory calls) and cases/alloc_register.c (the
 * host registrations).  What the family measures: cases/alloc.c. */
#ifndef CTS_CASES_ALLOC_H
#define CTS_CASES_ALLOC_H

#include "../harness/core/cts.h"

#include <stddef.h>

/* cases/alloc_vmm.c: the virtual memory calls' needs(), prepare(), issue() and cleanup() */
int alloc_need_vmm(const struct cts_case *c, char *why, size_t len);
int alloc_vmm_prepare(const struct cts_case *c, struct cts_scratch *s, const char **error);
int alloc_vmm_issue(const struct cts_case *c, struct cts_scratch *s, const char **error);
int alloc_vmm_cleanup(struct cts_scratch *s, const char **error);

/* cases/alloc_register.c: cudaHostRegister and cudaHostUnregister, of malloc'ed pages or a mapped
 * file, by the case's variant (none: malloc'ed pages, default flags). */
#define ALLOC_REGISTER_VARIANTS 5
#define ALLOC_REGISTER_256MIB 10 /* size indices (harness/core/ids.c) */
#define ALLOC_REGISTER_1GIB 11
extern const char *const alloc_register_variants[ALLOC_REGISTER_VARIANTS];
int alloc_register_needs(const struct cts_case *c, char *why, size_t len);
int alloc_register_prepare(const struct cts_case *c, struct cts_scratch *s, const char **error);
int alloc_register_issue(const struct cts_case *c, struct cts_scratch *s, const char **error);
int alloc_register_cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error);
void alloc_register_release(void); /* the pages kept between a case's calls (cts_family.release) */

#endif
