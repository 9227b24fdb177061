/* The copy family's private header: what cases/copy.c (the grid, the other copies) and
 * cases/copy_array.c (the copies to, from and between the family's own CUDA arrays) share. */
#ifndef CTS_CASES_COPY_H
#define CTS_CASES_COPY_H

#include "../harness/core/cts.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

/* The 2-D array: ARRAY_WIDTH x ARRAY_HEIGHT unsigned char. */
#define COPY_ARRAY_WIDTH 1024u
#define COPY_ARRAY_HEIGHT 1024u
/* Each 1-D array: COPY_ARRAY1D_BYTES of elements of four unsigned 32-bit channels (16 bytes, so
 * that 1 MiB is 65536 elements, within the 1-D width limit of the devices the suite runs on). */
#define COPY_ARRAY1D_ELEMENT 16u
#define COPY_ARRAY1D_BYTES (1u << 20)

/* copy.c: the runtime API's kind for c, cudaMemcpyDefault or the direction's explicit kind. */
enum cudaMemcpyKind copy_kind(const struct cts_case *c);

/* copy_array.c.  Which array a call copies: 2 the 2-D one (cudaMemcpy2DToArray ...), 1 the 1-D
 * ones (cuMemcpyHtoA ...), 0 none. */
int copy_array_of(enum cts_api a);
/* needs(), prepare(), poke(), peek(), issue(), own_copy() and resize() for the array copies. */
int copy_array_needs(const struct cts_case *c, char *why, size_t len);
int copy_array_prepare(const struct cts_case *c, const char **error);
int copy_array_poke(const struct cts_case *c, int side, size_t off, unsigned char v, const char **error);
int copy_array_peek(const struct cts_case *c, int side, size_t off, unsigned char *v, const char **error);
int copy_array_issue(const struct cts_case *c, const struct cts_call *call, const char **error);
int copy_array_own_copy(const struct cts_case *c, int side, int to_own, void *p, int p_device, size_t n,
                        int async, void *stream, const char **error);
/* 0 where an array copy of c->size bytes can be made, else -1. */
int copy_array_fits(const struct cts_case *c);

#endif
