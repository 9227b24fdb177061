/* The trigger family: calls that the documentation or users name as triggers
 * of implicit synchronization, each issued while other work is held, on the
 * engine's usual grid (cts_emit).  None touches the engine's buffers.
 *
 * - cudaDeviceSetCacheConfig switches the device's preference: prepare() sets
 *   cudaFuncCachePreferNone, the call sets cudaFuncCachePreferShared, cleanup()
 *   restores the value cudaDeviceGetCacheConfig gave at first use.
 * - cudaFuncSetCacheConfig switches the suite's sleep kernel likewise (None ->
 *   Shared); cleanup() sets None back, the documented default (there is no
 *   getter for a function's preference).
 * - launch.after_cache_config: the sleep kernel's launch right after its
 *   preference was switched: prepare() sets it to PreferShared or PreferL1,
 *   whichever its last launch here did not use (others launch it with None),
 *   so every launch asks for a configuration other than the last one; the call
 *   is cts_launch_sleep(op stream, 0); cleanup() sets None back.  The
 *   programming guide's list of implicit synchronizations (PG-IMPLICIT) names
 *   "a switch between the L1/shared memory configurations"; the reference of
 *   both calls above says a launch with another preference than the most
 *   recent one may insert a device-side synchronization point.
 * - cudaDeviceSetLimit (stack_size, printf_fifo_size, malloc_heap_size): the
 *   call raises the limit from a known base (the value found at first use,
 *   set again by prepare()) by a step (1 KiB, 1 MiB, 8 MiB); cleanup() checks
 *   that the limit did change and restores the base.  No kernel of the suite
 *   uses printf or malloc, so the last two may be changed at any time.
 * - cudaFuncGetAttributes on the sleep kernel (already loaded by the engine's
 *   warm-up).
 * - Modules, through the driver API, on a fatbin embedded in the program
 *   (kernels/module.cu): cuModuleLoadData (cleanup unloads), cuModuleUnload
 *   (prepare loads), cuModuleGetFunction of a freshly loaded module (cleanup
 *   unloads), and cu_launch_kernel.first: the first launch (1 block, 1 thread)
 *   of a function just got from a freshly loaded module, on the op stream,
 *   storing a number into a device word of the family's (cleanup checks it
 *   and unloads the module).
 *   Under lazy loading "the first launch of a runtime kernel never launched
 *   before" loads that kernel, but only once per process, so a repeatable
 *   case cannot be made of it; cuModuleGetFunction (where a lazily loaded
 *   module loads the function) and the first cuLaunchKernel of a freshly
 *   loaded module stand in for it.  Nothing here depends on the loading mode;
 *   the suite runs under both. */
#include "../harness/core/cts.h"
#include "../harness/families/driver.h"
#include "../harness/families/family.h"
#include "../harness/core/spec.h"
#include "../harness/families/kernels.h"

#include "cts_module_image.h"
/* Its size, for the capture family, which loads the same image (cases/capture.c). */
const size_t cts_module_image_size = sizeof cts_module_image;

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *variant;
    enum cudaLimit limit;
    const char *name;
    size_t step;
} limits[] = {
    {"stack_size", cudaLimitStackSize, "cudaLimitStackSize", 1024},
    {"printf_fifo_size", cudaLimitPrintfFifoSize, "cudaLimitPrintfFifoSize", 1u << 20},
    {"malloc_heap_size", cudaLimitMallocHeapSize, "cudaLimitMallocHeapSize", 8u << 20},
};
#define NLIMITS (sizeof limits / sizeof *limits)

static const struct {
    enum cts_api api;
    const char *variant;
} calls[] = {
    {CTS_API_DEVICE_SET_CACHE_CONFIG, NULL},
    {CTS_API_FUNC_SET_CACHE_CONFIG, NULL},
    {CTS_API_LAUNCH, "after_cache_config"},
    {CTS_API_DEVICE_SET_LIMIT, "stack_size"},
    {CTS_API_DEVICE_SET_LIMIT, "printf_fifo_size"},
    {CTS_API_DEVICE_SET_LIMIT, "malloc_heap_size"},
    {CTS_API_FUNC_GET_ATTRIBUTES, NULL},
    {CTS_API_CU_MODULE_LOAD_DATA, NULL},
    {CTS_API_CU_MODULE_UNLOAD, NULL},
    {CTS_API_CU_MODULE_GET_FUNCTION, NULL},
    {CTS_API_CU_LAUNCH_KERNEL, "first"},
};

static const char function_name[] = "cts_module_store";

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t k = 0; k < sizeof calls / sizeof *calls; k++) {
        struct cts_case c = {.family = &cts_family_trigger, .api = calls[k].api,
                             .variant = calls[k].variant, .dir = CTS_DIR_NONE, .mem = CTS_MEM_NONE,
                             .size_idx = -1, .kind = CTS_KIND_NONE};
        n = cts_emit(&c, out, cap, n);
        n = cts_emit_threads(&c, out, cap, n);
    }
    return out ? (n < cap ? n : cap) : n;
}

/* The limits[] entry of a cudaDeviceSetLimit case. */
static size_t limit_index(const struct cts_case *c)
{
    for (size_t i = 0; i < NLIMITS; i++)
        if (c->variant && strcmp(c->variant, limits[i].variant) == 0)
            return i;
    return 0;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    switch (c->api) {
    case CTS_API_DEVICE_SET_LIMIT: {
        size_t i = limit_index(c), v = 0;
        cudaError_t err = cudaDeviceGetLimit(&v, limits[i].limit);
        if (err != cudaSuccess) {
            (void)cudaGetLastError();
            snprintf(why, len, "cudaDeviceGetLimit(%s) returned %s", limits[i].name,
                     cudaGetErrorName(err));
            return -1;
        }
        return 0;
    }
    case CTS_API_CU_MODULE_LOAD_DATA: case CTS_API_CU_MODULE_UNLOAD:
    case CTS_API_CU_MODULE_GET_FUNCTION: case CTS_API_CU_LAUNCH_KERNEL: {
        /* every module case loads and unloads; the last two get the function */
        static const char *const fns[] = {"cuModuleLoadData", "cuModuleUnload", "cuModuleGetFunction",
                                          "cuLaunchKernel"};
        size_t nfns = c->api == CTS_API_CU_LAUNCH_KERNEL         ? 4
                      : c->api == CTS_API_CU_MODULE_GET_FUNCTION ? 3
                                                                 : 2;
        for (size_t i = 0; i < nfns; i++)
            if (cts_need_driver(fns[i], why, len))
                return -1;
        return 0;
    }
    default:
        return 0;
    }
}

/* What the family found at first use, restored after every call. */
static int device_config_known;
static enum cudaFuncCache device_config_found;
static int limit_known[NLIMITS];
static size_t limit_found[NLIMITS];
/* The preference of the sleep kernel's last launch by launch.after_cache_config. */
static enum cudaFuncCache sleep_last_launch = cudaFuncCachePreferNone;
/* The device word cu_launch_kernel.first stores into, and the last number stored. */
static unsigned int *word;
static unsigned int stores;

/* The embedded image, copied once into malloc'ed (so suitably aligned) memory:
 * a byte array's alignment is not something the image's header may rely on. */
static void *image;

static int load_module(struct cts_scratch *s, const char **error)
{
    CUmodule m = NULL;
    if (!image) {
        if (!(image = malloc(sizeof cts_module_image))) {
            *error = "malloc failed";
            return 1;
        }
        memcpy(image, cts_module_image, sizeof cts_module_image);
    }
    CUresult r = cts_drv.cuModuleLoadData(&m, image);
    if (r == CUDA_SUCCESS)
        s->handle = m;
    return cts_driver_result(r, error);
}

static int prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err;
    switch (c->api) {
    case CTS_API_DEVICE_SET_CACHE_CONFIG:
        if (!device_config_known) {
            if ((err = cudaDeviceGetCacheConfig(&device_config_found)) != cudaSuccess)
                return cts_result(err, error);
            device_config_known = 1;
        }
        return cts_result(cudaDeviceSetCacheConfig(cudaFuncCachePreferNone), error);
    case CTS_API_FUNC_SET_CACHE_CONFIG:
        return cts_result(cudaFuncSetCacheConfig(cts_sleep_kernel_fn(), cudaFuncCachePreferNone), error);
    case CTS_API_LAUNCH: {
        enum cudaFuncCache next =
            sleep_last_launch == cudaFuncCachePreferShared ? cudaFuncCachePreferL1 : cudaFuncCachePreferShared;
        s->value = (unsigned long long)next;
        return cts_result(cudaFuncSetCacheConfig(cts_sleep_kernel_fn(), next), error);
    }
    case CTS_API_DEVICE_SET_LIMIT: {
        size_t i = limit_index(c);
        if (!limit_known[i]) {
            if ((err = cudaDeviceGetLimit(&limit_found[i], limits[i].limit)) != cudaSuccess)
                return cts_result(err, error);
            limit_known[i] = 1;
        }
        return cts_result(cudaDeviceSetLimit(limits[i].limit, limit_found[i]), error);
    }
    case CTS_API_CU_MODULE_UNLOAD: case CTS_API_CU_MODULE_GET_FUNCTION:
        return load_module(s, error);
    case CTS_API_CU_LAUNCH_KERNEL: {
        CUfunction f = NULL;
        if (!word && (err = cudaMalloc((void **)&word, sizeof *word)) != cudaSuccess) {
            word = NULL;
            return cts_result(err, error);
        }
        if ((err = cudaMemset(word, 0, sizeof *word)) != cudaSuccess)
            return cts_result(err, error);
        if (load_module(s, error))
            return 1;
        CUresult r = cts_drv.cuModuleGetFunction(&f, (CUmodule)s->handle, function_name);
        if (r == CUDA_SUCCESS)
            s->extra = f;
        return cts_driver_result(r, error);
    }
    default:
        return 0;
    }
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    struct cts_scratch *s = call->scratch;
    cudaError_t err;
    CUresult r;
    switch (c->api) {
    case CTS_API_DEVICE_SET_CACHE_CONFIG:
        return cts_result(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared), error);
    case CTS_API_FUNC_SET_CACHE_CONFIG:
        return cts_result(cudaFuncSetCacheConfig(cts_sleep_kernel_fn(), cudaFuncCachePreferShared), error);
    case CTS_API_LAUNCH:
        err = cts_launch_sleep((cudaStream_t)call->stream, 0);
        if (err == cudaSuccess)
            sleep_last_launch = (enum cudaFuncCache)s->value;
        return cts_result(err, error);
    case CTS_API_DEVICE_SET_LIMIT: {
        size_t i = limit_index(c);
        err = cudaDeviceSetLimit(limits[i].limit, limit_found[i] + limits[i].step);
        s->value = err == cudaSuccess; /* set: cleanup checks that it changed */
        return cts_result(err, error);
    }
    case CTS_API_FUNC_GET_ATTRIBUTES: {
        struct cudaFuncAttributes attr;
        return cts_result(cudaFuncGetAttributes(&attr, cts_sleep_kernel_fn()), error);
    }
    case CTS_API_CU_MODULE_LOAD_DATA:
        return load_module(s, error);
    case CTS_API_CU_MODULE_UNLOAD:
        r = cts_drv.cuModuleUnload((CUmodule)s->handle);
        if (r == CUDA_SUCCESS)
            s->handle = NULL;
        return cts_driver_result(r, error);
    case CTS_API_CU_MODULE_GET_FUNCTION: {
        CUfunction f = NULL;
        r = cts_drv.cuModuleGetFunction(&f, (CUmodule)s->handle, function_name);
        if (r == CUDA_SUCCESS)
            s->extra = f;
        return cts_driver_result(r, error);
    }
    case CTS_API_CU_LAUNCH_KERNEL: {
        if (++stores == 0) /* never 0, which prepare wrote */
            stores = 1;
        unsigned int value = stores;
        unsigned int *where = word;
        void *args[] = {&where, &value};
        r = cts_drv.cuLaunchKernel((CUfunction)s->extra, 1, 1, 1, 1, 1, 1, 0, (CUstream)call->stream,
                                   args, NULL);
        s->value = r == CUDA_SUCCESS ? value : 0;
        return cts_driver_result(r, error);
    }
    default:
        *error = "(not a trigger API)";
        return 1;
    }
}

/* Unloads the module prepare() or the call loaded, if it is still loaded. */
static int unload(struct cts_scratch *s, const char **error)
{
    CUresult r = CUDA_SUCCESS;
    if (s->handle)
        r = cts_drv.cuModuleUnload((CUmodule)s->handle);
    s->handle = s->extra = NULL;
    return cts_driver_result(r, error);
}

/* Restores what the call changed, with the device idle; a setting that
 * cannot be restored is an error (its name is reported). */
static int cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaSuccess;
    switch (c->api) {
    case CTS_API_DEVICE_SET_CACHE_CONFIG:
        if (device_config_known)
            err = cudaDeviceSetCacheConfig(device_config_found);
        break;
    case CTS_API_FUNC_SET_CACHE_CONFIG: case CTS_API_LAUNCH:
        err = cudaFuncSetCacheConfig(cts_sleep_kernel_fn(), cudaFuncCachePreferNone);
        break;
    case CTS_API_DEVICE_SET_LIMIT: {
        size_t i = limit_index(c), now = 0;
        if (!limit_known[i])
            break;
        if (s->value) {
            if ((err = cudaDeviceGetLimit(&now, limits[i].limit)) != cudaSuccess)
                break;
            if (now == limit_found[i]) { /* nothing to restore; but the case proved nothing */
                *error = "cudaDeviceSetLimit left the limit as it was";
                return 1;
            }
        }
        err = cudaDeviceSetLimit(limits[i].limit, limit_found[i]);
        break;
    }
    case CTS_API_CU_LAUNCH_KERNEL:
        if (s->value) {
            unsigned int seen = 0;
            err = cudaMemcpy(&seen, word, sizeof seen, cudaMemcpyDeviceToHost);
            if (err == cudaSuccess && seen != (unsigned int)s->value) {
                if (unload(s, error))
                    return 1;
                *error = "cts_module_store did not store its value";
                return 1;
            }
        }
        if (unload(s, error))
            return 1;
        break;
    case CTS_API_CU_MODULE_LOAD_DATA: case CTS_API_CU_MODULE_UNLOAD:
    case CTS_API_CU_MODULE_GET_FUNCTION:
        return unload(s, error);
    default:
        break;
    }
    return cts_result(err, error);
}

/* cuLaunchKernel is a kernel launch: "Kernel launches are asynchronous with
 * respect to the host" (RT-SYNC-LAUNCH).  The family's other calls (module loading, cache configuration,
 * limits) are named by no clause but RT-SYNC-ANY (apis.def: documented 0). */
static void judge(struct cts_judge *j)
{
    if (j->c->api == CTS_API_CU_LAUNCH_KERNEL)
        cts_judge_add(j, "RT-SYNC-LAUNCH", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
}

/* The cache-preference calls are cheap ones users ask the cost of. */
static int cheap(const struct cts_case *c)
{
    return c->api == CTS_API_DEVICE_SET_CACHE_CONFIG || c->api == CTS_API_FUNC_SET_CACHE_CONFIG;
}

const struct cts_family cts_family_trigger = {
    .name = "trigger", .generate = generate, .needs = needs, .issue = issue,
    .prepare = prepare, .cleanup = cleanup, .judge = judge, .cheap = cheap,
};
