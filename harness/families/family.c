#include "family.h"
#include "cts.h"
#include "driver.h"

#include <stdio.h>
#include <string.h>

int cts_result(cudaError_t err, const char **error)
{
    *error = cudaGetErrorName(err);
    return err != cudaSuccess;
}

_Static_assert(sizeof ((struct cts_setup_once *)0)->why == CTS_REASON_MAX, "a set-up's why is a case's reason");

int cts_setup_once(struct cts_setup_once *o, const char *family, cudaError_t (*make)(void),
                   const char *const *failed_at)
{
    if (o->ready)
        return o->why[0] ? -1 : 0;
    o->ready = 1;
    cudaError_t err = make();
    if (err == cudaSuccess)
        return 0;
    (void)cudaGetLastError();
    snprintf(o->why, sizeof o->why, "harness: the %s family's set-up: %s returned %s", family, *failed_at,
             cudaGetErrorName(err));
    return -1;
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

int cts_need_runtime(const struct cts_case *c, char *why, size_t len)
{
    int since = cts_api_since(c->api);
    if (since <= CUDART_VERSION)
        return 0;
    snprintf(why, len, "not in runtime %d.%d: %s (the form called here) appeared in %d.%d",
             CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, cts_api_function(c->api),
             since / 1000, since % 1000 / 10);
    return -1;
}

int cts_needs_newer_driver(const struct cts_case *c, const char *ename, char *why, size_t len)
{
    if (!ename || (strcmp(ename, "cudaErrorCallRequiresNewerDriver") &&
                   strcmp(ename, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER")))
        return 0;
    int d = 0, r = 0;
    if (cudaDriverGetVersion(&d) != cudaSuccess || cudaRuntimeGetVersion(&r) != cudaSuccess)
        (void)cudaGetLastError();
    snprintf(why, len, "needs a newer driver: %s returned %s (driver API %d.%d, runtime %d.%d)",
             cts_api_function(c->api), ename, d / 1000, d % 1000 / 10, r / 1000, r % 1000 / 10);
    return 1;
}

int cts_driver_result(CUresult r, const char **error)
{
    *error = cts_driver_error_name(r);
    return r != CUDA_SUCCESS;
}

int cts_need_driver(const char *name, char *why, size_t len)
{
    if (!cts_driver_missing(name))
        return 0;
    snprintf(why, len, "%s was not found through " CTS_DRIVER_LOOKUP, name);
    return -1;
}

int cts_need_driver_version(int version, const char *what, char *why, size_t len)
{
    int v = 0;
    cudaError_t err = cudaDriverGetVersion(&v);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "cannot read the driver version: %s", cudaGetErrorName(err));
        return -1;
    }
    if (v >= version)
        return 0;
    snprintf(why, len, "%s needs a driver for CUDA %d.%d or newer; this one is for %d.%d", what,
             version / 1000, version % 1000 / 10, v / 1000, v % 1000 / 10);
    return -1;
}

/* How work is held (family.h): here, beside the families, since those that hold
 * their own work (cases/peer.c) follow the method the run chose too. */
const char *const cts_hold_names[CTS_HOLD_COUNT] = {"kernel", "wait-value"};
enum cts_hold cts_hold_selected = CTS_HOLD_KERNEL;
