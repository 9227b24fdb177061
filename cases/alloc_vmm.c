/* The allocation family's virtual memory calls (cuMemCreate, cuMemMap,
 * cuMemSetAccess, cuMemUnmap, cuMemRelease): what each needs, and how it is
 * prepared, made and undone.  cases/alloc.c says what the family measures. */
#include "alloc.h"
#include "../harness/families/driver.h"
#include "../harness/families/family.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The driver functions a virtual memory case calls (prepare, issue, cleanup), NULL-ended. */
static void vmm_functions(enum cts_api a, const char *fn[12])
{
    size_t n = 0;
    fn[n++] = "cuCtxGetDevice";
    fn[n++] = "cuDeviceGetAttribute";
    fn[n++] = "cuMemGetAllocationGranularity";
    fn[n++] = "cuMemCreate";
    fn[n++] = "cuMemRelease";
    if (a == CTS_API_CU_MEM_MAP || a == CTS_API_CU_MEM_SET_ACCESS || a == CTS_API_CU_MEM_UNMAP) {
        fn[n++] = "cuMemAddressReserve";
        fn[n++] = "cuMemAddressFree";
        fn[n++] = "cuMemMap";
        fn[n++] = "cuMemUnmap";
    }
    if (a == CTS_API_CU_MEM_SET_ACCESS || a == CTS_API_CU_MEM_UNMAP)
        fn[n++] = "cuMemSetAccess";
    fn[n] = NULL;
}

int alloc_need_vmm(const struct cts_case *c, char *why, size_t len)
{
    static const char attr[] = "CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED";
    const char *fn[12];
    vmm_functions(c->api, fn);
    for (size_t i = 0; fn[i]; i++)
        if (cts_need_driver(fn[i], why, len))
            return -1;
    CUdevice dev = 0;
    int v = 0;
    CUresult r = cts_drv.cuCtxGetDevice(&dev);
    if (r != CUDA_SUCCESS) {
        snprintf(why, len, "cannot read %s: cuCtxGetDevice returned %s", attr, cts_driver_error_name(r));
        return -1;
    }
    r = cts_drv.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
    if (r != CUDA_SUCCESS) {
        snprintf(why, len, "cannot read %s: %s", attr, cts_driver_error_name(r));
        return -1;
    }
    if (!v) {
        snprintf(why, len, "%s is 0 on this device", attr);
        return -1;
    }
    return 0;
}

/* ---- virtual memory management ----
 * scratch: value = the CUmemGenericAllocationHandle, ptr = the reserved
 * address (NULL: none), pitch = the size (the case's, rounded up to the
 * granularity), extra = which of VMM_CREATED / VMM_MAPPED holds now. */
enum { VMM_CREATED = 1, VMM_MAPPED = 2 };
static CUdevice vmm_dev; /* the current device, read by prepare() */

static unsigned vmm_state(const struct cts_scratch *s) { return (unsigned)(uintptr_t)s->extra; }
static void vmm_set(struct cts_scratch *s, unsigned st) { s->extra = (void *)(uintptr_t)st; }
static CUdeviceptr vmm_va(const struct cts_scratch *s) { return (CUdeviceptr)(uintptr_t)s->ptr; }

static CUmemAllocationProp vmm_prop(void)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = vmm_dev;
    return p;
}

static CUmemAccessDesc vmm_access(void)
{
    CUmemAccessDesc d;
    memset(&d, 0, sizeof d);
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = vmm_dev;
    d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return d;
}

int alloc_vmm_prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    size_t gran = 0;
    CUresult r = cts_drv.cuCtxGetDevice(&vmm_dev);
    if (r != CUDA_SUCCESS)
        return cts_driver_result(r, error);
    CUmemAllocationProp prop = vmm_prop();
    r = cts_drv.cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (r != CUDA_SUCCESS)
        return cts_driver_result(r, error);
    if (!gran)
        gran = 1;
    s->pitch = (c->size + gran - 1) / gran * gran;
    int va = c->api == CTS_API_CU_MEM_MAP || c->api == CTS_API_CU_MEM_SET_ACCESS ||
             c->api == CTS_API_CU_MEM_UNMAP;
    if (va) {
        CUdeviceptr p = 0;
        if ((r = cts_drv.cuMemAddressReserve(&p, s->pitch, 0, 0, 0)) != CUDA_SUCCESS)
            return cts_driver_result(r, error);
        s->ptr = (void *)(uintptr_t)p;
    }
    if (c->api != CTS_API_CU_MEM_CREATE) {
        CUmemGenericAllocationHandle h = 0;
        if ((r = cts_drv.cuMemCreate(&h, s->pitch, &prop, 0)) != CUDA_SUCCESS)
            return cts_driver_result(r, error);
        s->value = h;
        vmm_set(s, VMM_CREATED);
    }
    if (c->api == CTS_API_CU_MEM_SET_ACCESS || c->api == CTS_API_CU_MEM_UNMAP) {
        if ((r = cts_drv.cuMemMap(vmm_va(s), s->pitch, 0, s->value, 0)) != CUDA_SUCCESS)
            return cts_driver_result(r, error);
        vmm_set(s, VMM_CREATED | VMM_MAPPED);
    }
    if (c->api == CTS_API_CU_MEM_UNMAP) {
        CUmemAccessDesc d = vmm_access();
        if ((r = cts_drv.cuMemSetAccess(vmm_va(s), s->pitch, &d, 1)) != CUDA_SUCCESS)
            return cts_driver_result(r, error);
    }
    return 0;
}

int alloc_vmm_issue(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    CUresult r;
    switch (c->api) {
    case CTS_API_CU_MEM_CREATE: {
        CUmemAllocationProp prop = vmm_prop();
        CUmemGenericAllocationHandle h = 0;
        if ((r = cts_drv.cuMemCreate(&h, s->pitch, &prop, 0)) == CUDA_SUCCESS) {
            s->value = h;
            vmm_set(s, VMM_CREATED);
        }
        break;
    }
    case CTS_API_CU_MEM_MAP:
        if ((r = cts_drv.cuMemMap(vmm_va(s), s->pitch, 0, s->value, 0)) == CUDA_SUCCESS)
            vmm_set(s, vmm_state(s) | VMM_MAPPED);
        break;
    case CTS_API_CU_MEM_SET_ACCESS: {
        CUmemAccessDesc d = vmm_access();
        r = cts_drv.cuMemSetAccess(vmm_va(s), s->pitch, &d, 1);
        break;
    }
    case CTS_API_CU_MEM_UNMAP:
        if ((r = cts_drv.cuMemUnmap(vmm_va(s), s->pitch)) == CUDA_SUCCESS)
            vmm_set(s, vmm_state(s) & ~(unsigned)VMM_MAPPED);
        break;
    default: /* CTS_API_CU_MEM_RELEASE */
        if ((r = cts_drv.cuMemRelease(s->value)) == CUDA_SUCCESS)
            vmm_set(s, vmm_state(s) & ~(unsigned)VMM_CREATED);
        break;
    }
    return cts_driver_result(r, error);
}

/* Unmaps, releases and frees the range, as far as each is left; the first error wins. */
int alloc_vmm_cleanup(struct cts_scratch *s, const char **error)
{
    CUresult r = CUDA_SUCCESS, q;
    if (vmm_state(s) & VMM_MAPPED)
        r = cts_drv.cuMemUnmap(vmm_va(s), s->pitch);
    if (vmm_state(s) & VMM_CREATED)
        if ((q = cts_drv.cuMemRelease(s->value)) != CUDA_SUCCESS && r == CUDA_SUCCESS)
            r = q;
    if (s->ptr)
        if ((q = cts_drv.cuMemAddressFree(vmm_va(s), s->pitch)) != CUDA_SUCCESS && r == CUDA_SUCCESS)
            r = q;
    s->ptr = NULL;
    s->value = 0;
    vmm_set(s, 0);
    return cts_driver_result(r, error);
}
