/* Helpers every family (cases/) shares. */
#ifndef CTS_FAMILY_H
#define CTS_FAMILY_H

#include <cuda_runtime_api.h>
#include <stddef.h>

/* For issue/prepare/cleanup: 0 on cudaSuccess, else 1, with the error's name in *error. */
int cts_result(cudaError_t err, const char **error);
/* For needs(): 0 if the current device's attribute `a` (called `name`) is
 * non-zero; else -1 with why ("<name> is 0 on this device", or why it could not be read). */
int cts_need_attribute(enum cudaDeviceAttr a, const char *name, char *why, size_t len);

#endif
