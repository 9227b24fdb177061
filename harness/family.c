#include "family.h"

#include <stdio.h>

int cts_result(cudaError_t err, const char **error)
{
    *error = cudaGetErrorName(err);
    return err != cudaSuccess;
}

int cts_need_attribute(enum cudaDeviceAttr a, const char *name, char *why, size_t len)
{
    int dev = 0, v = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&v, a, dev);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "cannot read %s: %s", name, cudaGetErrorName(err));
        return -1;
    }
    if (!v) {
        snprintf(why, len, "%s is 0 on this device", name);
        return -1;
    }
    return 0;
}
