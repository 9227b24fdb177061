/* The environment a matrix was measured in.
 *
 * Driver version string: NVML, loaded with dlopen so the program starts on a
 * machine without it.  Driver API: reached through
 * cudaGetDriverEntryPointByVersion (the non-deprecated form of
 * cudaGetDriverEntryPoint in CUDA 13; that one where built against a runtime
 * before 12.5), so the binary never links libcuda. */
#define _GNU_SOURCE
#include "driver.h"
#include "report.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cts_revision.h"

/* Variables that change what the driver and runtime do. */
static const char *const env_vars[] = {
    "CUDA_LAUNCH_BLOCKING",       "CUDA_MODULE_LOADING",     "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_DEVICE_ORDER",      "CUDA_SCALE_LAUNCH_QUEUES",
    "CUDA_FORCE_PTX_JIT",          "CUDA_DISABLE_PTX_JIT",   "CUDA_CACHE_DISABLE",
    "CUDA_MPS_PIPE_DIRECTORY",     "CUDA_AUTO_BOOST",        "CUDA_DEVICE_WAITS_ON_EXCEPTION",
};

static const struct {
    const char *name;
    enum cudaDeviceAttr attr;
} attrs[] = {
    {"asyncEngineCount", cudaDevAttrAsyncEngineCount},
    {"canMapHostMemory", cudaDevAttrCanMapHostMemory},
    {"canUseHostPointerForRegisteredMem", cudaDevAttrCanUseHostPointerForRegisteredMem},
    {"computeMode", cudaDevAttrComputeMode},
    {"computePreemptionSupported", cudaDevAttrComputePreemptionSupported},
    {"concurrentKernels", cudaDevAttrConcurrentKernels},
    {"concurrentManagedAccess", cudaDevAttrConcurrentManagedAccess},
    {"directManagedMemAccessFromHost", cudaDevAttrDirectManagedMemAccessFromHost},
    {"hostNativeAtomicSupported", cudaDevAttrHostNativeAtomicSupported},
    {"hostRegisterSupported", cudaDevAttrHostRegisterSupported},
    {"integrated", cudaDevAttrIntegrated},
    {"kernelExecTimeout", cudaDevAttrKernelExecTimeout},
    {"managedMemory", cudaDevAttrManagedMemory},
    {"memoryPoolsSupported", cudaDevAttrMemoryPoolsSupported},
    {"multiProcessorCount", cudaDevAttrMultiProcessorCount},
    {"pageableMemoryAccess", cudaDevAttrPageableMemoryAccess},
    {"pageableMemoryAccessUsesHostPageTables", cudaDevAttrPageableMemoryAccessUsesHostPageTables},
    {"tccDriver", cudaDevAttrTccDriver},
    {"unifiedAddressing", cudaDevAttrUnifiedAddressing},
};

static json_t *version_json(int v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d.%d", v / 1000, (v % 1000) / 10);
    return json_pack("{s:i,s:s}", "number", v, "text", buf);
}

static const char *sched_name(unsigned flags)
{
    switch (flags & 0x07) {
    case 0: return "auto";
    case 1: return "spin";
    case 2: return "yield";
    case 4: return "blocking_sync";
    default: return "?";
    }
}

/* NVML, loaded at run time.  Returns the driver version string, or NULL. */
static json_t *nvml_info(const char *uuid, char *note, size_t notelen)
{
    typedef int (*init_t)(void);
    typedef int (*ver_t)(char *, unsigned);
    typedef int (*byuuid_t)(const char *, void **);
    typedef int (*pm_t)(void *, int *);
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(note, notelen, "libnvidia-ml.so.1 not loadable");
        return NULL;
    }
    init_t init = (init_t)dlsym(h, "nvmlInit_v2");
    init_t shutdown = (init_t)dlsym(h, "nvmlShutdown");
    ver_t ver = (ver_t)dlsym(h, "nvmlSystemGetDriverVersion");
    byuuid_t byuuid = (byuuid_t)dlsym(h, "nvmlDeviceGetHandleByUUID");
    pm_t pm = (pm_t)dlsym(h, "nvmlDeviceGetPersistenceMode");
    json_t *out = NULL;
    char buf[96] = "";
    if (init && ver && shutdown && init() == 0) {
        if (ver(buf, sizeof buf) == 0) {
            out = json_object();
            json_object_set_new(out, "driver_version", json_string(buf));
            void *dev = NULL;
            int mode = -1;
            if (byuuid && pm && uuid && byuuid(uuid, &dev) == 0 && pm(dev, &mode) == 0)
                json_object_set_new(out, "persistence_mode", json_boolean(mode == 1));
        } else {
            snprintf(note, notelen, "nvmlSystemGetDriverVersion failed");
        }
        shutdown();
    } else {
        snprintf(note, notelen, "nvmlInit_v2 failed");
    }
    dlclose(h);
    return out;
}

/* NVML's PCI record (nvml.h, nvmlPciInfo_t, as since NVML 11): only domain,
 * bus and device are read. */
struct nvml_pci {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};

#define NVML_NVLINK_MAX_LINKS 18
#define NVML_NVLINK_DEVICE_TYPE_GPU 0x00    /* nvmlIntNvLinkDeviceType_t */
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 0x02
#define NVML_P2P_CAPS_INDEX_NVLINK 2        /* nvmlGpuP2PCapsIndex_t */
#define NVML_P2P_STATUS_OK 0

/* NVML, loaded for peers_json: the functions it calls (NULL where the library lacks one). */
struct nvml {
    void *h;
    int (*shutdown)(void);
    int (*byuuid)(const char *, void **);
    int (*ancestor)(void *, void *, int *);
    int (*state)(void *, unsigned, int *);
    int (*remote_pci)(void *, unsigned, struct nvml_pci *);
    int (*remote_type)(void *, unsigned, int *);
    int (*p2p)(void *, void *, int, int *);
    int (*mig)(void *, unsigned *, unsigned *);
};

/* A GPU's active NVLinks: those whose remote end is GPU j (direct[j], matched by PCI bus),
 * those to an NVSwitch (switched), and the rest (other: the remote end not told). */
struct links {
    int active, switched, other;
    int direct[64];
};

static void count_links(const struct nvml *nv, void *dev, int n, const int pci[][3], struct links *l)
{
    memset(l, 0, sizeof *l);
    for (unsigned k = 0; dev && nv->state && k < NVML_NVLINK_MAX_LINKS; k++) {
        int active = 0, type = -1, j;
        if (nv->state(dev, k, &active) != 0 || !active)
            continue;
        l->active++;
        struct nvml_pci r;
        memset(&r, 0, sizeof r);
        int have_pci = nv->remote_pci && nv->remote_pci(dev, k, &r) == 0;
        for (j = 0; have_pci && j < n; j++)
            if ((int)r.domain == pci[j][0] && (int)r.bus == pci[j][1] && (int)r.device == pci[j][2])
                break;
        if (have_pci && j < n)
            l->direct[j]++;
        else if (nv->remote_type && nv->remote_type(dev, k, &type) == 0 && type == NVML_NVLINK_DEVICE_TYPE_SWITCH)
            l->switched++;
        else
            l->other++;
    }
}

/* How the process's GPUs reach each other: peer access (cudaDeviceCanAccessPeer)
 * and, where NVML answers, their PCIe path (nvmlDeviceGetTopologyCommonAncestor)
 * and NVLinks: `nvlinks`, the links between two GPUs as `nvidia-smi topo -m`
 * counts them (NV18): the links whose remote end is the other GPU, plus, where
 * both reach NVSwitches and NVML says the pair can talk over NVLink
 * (nvmlDeviceGetP2PStatus), the fewer of their links to the switches;
 * `nvlink_path`, "direct", "nvswitch" or both; and, a row a GPU, its active
 * links and those to switches.  Each matrix by device index, null on the
 * diagonal and where it could not be read.  Also each GPU's MIG mode. */
/* NVML opened for peers_json (nv->h NULL where the library is not there):
 * 1 where it was initialized (nv->shutdown then undoes that), else 0. */
static int nvml_open(struct nvml *nv)
{
    typedef int (*init_t)(void);
    memset(nv, 0, sizeof *nv);
    nv->h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nv->h)
        return 0;
    init_t init = (init_t)dlsym(nv->h, "nvmlInit_v2");
    *(void **)&nv->shutdown = dlsym(nv->h, "nvmlShutdown");
    *(void **)&nv->byuuid = dlsym(nv->h, "nvmlDeviceGetHandleByUUID");
    *(void **)&nv->ancestor = dlsym(nv->h, "nvmlDeviceGetTopologyCommonAncestor");
    *(void **)&nv->state = dlsym(nv->h, "nvmlDeviceGetNvLinkState");
    *(void **)&nv->remote_pci = dlsym(nv->h, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    *(void **)&nv->remote_type = dlsym(nv->h, "nvmlDeviceGetNvLinkRemoteDeviceType");
    *(void **)&nv->p2p = dlsym(nv->h, "nvmlDeviceGetP2PStatus");
    *(void **)&nv->mig = dlsym(nv->h, "nvmlDeviceGetMigMode");
    return init && nv->shutdown && nv->byuuid && init() == 0;
}

/* What peers_json reads of each GPU: NVML's handle (NULL: none) and its links. */
struct peer_view {
    const struct nvml *nv;
    void *dev[64];
    struct links l[64];
};

/* Whether GPU i may access GPU j's memory (null on the diagonal and where CUDA does not say). */
static json_t *access_cell(int i, int j)
{
    int can = 0;
    if (i == j || cudaDeviceCanAccessPeer(&can, i, j) != cudaSuccess) {
        (void)cudaGetLastError();
        return json_null();
    }
    return json_boolean(can);
}

/* The PCIe path between GPUs i and j, by NVML's common ancestor (null where not told). */
static json_t *ancestor_cell(const struct peer_view *v, int i, int j)
{
    static const struct {
        int level;
        const char *name;
    } levels[] = {{0, "internal"}, {10, "single switch"}, {20, "multiple switches"},
                  {30, "host bridge"}, {40, "numa node"}, {50, "system"}};
    int level = -1;
    const char *name = NULL;
    if (i != j && i < 64 && j < 64 && v->dev[i] && v->dev[j] && v->nv->ancestor &&
        v->nv->ancestor(v->dev[i], v->dev[j], &level) == 0)
        for (size_t k = 0; k < sizeof levels / sizeof *levels; k++)
            if (levels[k].level == level)
                name = levels[k].name;
    return name ? json_string(name) : json_null();
}

/* The NVLinks between GPUs i and j into *links and how they run into *path
 * (both null on the diagonal and where NVML does not say). */
static void link_cells(const struct peer_view *v, int i, int j, json_t **links, json_t **path)
{
    const struct nvml *nv = v->nv;
    int st = -1;
    if (i == j || i >= 64 || j >= 64 || !v->dev[i] || !v->dev[j] || !nv->state) {
        *links = json_null();
        *path = json_null();
        return;
    }
    const struct links *a = &v->l[i], *b = &v->l[j];
    int via_switch = a->switched && b->switched && nv->p2p &&
                     nv->p2p(v->dev[i], v->dev[j], NVML_P2P_CAPS_INDEX_NVLINK, &st) == 0 && st == NVML_P2P_STATUS_OK;
    int sw = via_switch ? (a->switched < b->switched ? a->switched : b->switched) : 0;
    int direct = a->direct[j];
    *links = json_integer(direct + sw);
    *path = direct && sw ? json_string("direct+nvswitch")
            : direct     ? json_string("direct")
            : sw         ? json_string("nvswitch")
                         : json_null();
}

static json_t *peers_json(int n, const char uuids[][64], const int pci[][3])
{
    json_t *access = json_array(), *ancestor = json_array(), *links = json_array(), *path = json_array(),
           *per = json_array(), *mig = json_array();
    struct nvml nv;
    int nvml = nvml_open(&nv);
    static struct peer_view v;
    memset(&v, 0, sizeof v);
    v.nv = &nv;
    for (int i = 0; nvml && i < n && i < 64; i++) {
        if (nv.byuuid(uuids[i], &v.dev[i]) != 0)
            v.dev[i] = NULL;
        count_links(&nv, v.dev[i], n, pci, &v.l[i]);
    }
    for (int i = 0; i < n; i++) {
        json_t *ra = json_array(), *rn = json_array(), *rl = json_array(), *rp = json_array();
        for (int j = 0; j < n; j++) {
            json_t *l, *p;
            json_array_append_new(ra, access_cell(i, j));
            json_array_append_new(rn, ancestor_cell(&v, i, j));
            link_cells(&v, i, j, &l, &p);
            json_array_append_new(rl, l);
            json_array_append_new(rp, p);
        }
        json_array_append_new(access, ra);
        json_array_append_new(ancestor, rn);
        json_array_append_new(links, rl);
        json_array_append_new(path, rp);
        unsigned cur = 0, pend = 0;
        int known = i < 64 && v.dev[i];
        json_array_append_new(per, known && nv.state ? json_pack("{s:i,s:i,s:i}", "active", v.l[i].active, "to_nvswitch",
                                                                 v.l[i].switched, "remote_unknown", v.l[i].other)
                                                     : json_null());
        json_array_append_new(mig, known && nv.mig && nv.mig(v.dev[i], &cur, &pend) == 0 ? json_boolean(cur == 1)
                                                                                         : json_null());
    }
    if (nvml)
        nv.shutdown();
    if (nv.h)
        dlclose(nv.h);
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:b}", "access", access, "nvml_common_ancestor", ancestor, "nvlinks",
                     links, "nvlink_path", path, "nvlinks_of", per, "mig_enabled", mig, "nvml", nvml);
}

/* The GPU: its name, UUID (also written to uuid, for NVML), compute
 * capability, PCI bus id, memory and index. */
static json_t *gpu_json(const struct cudaDeviceProp *prop, int device, char *uuid, size_t uuidlen)
{
    const unsigned char *u = (const unsigned char *)prop->uuid.bytes;
    snprintf(uuid, uuidlen,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", prop->major, prop->minor);
    char pci[32];
    snprintf(pci, sizeof pci, "%04x:%02x:%02x.0", prop->pciDomainID, prop->pciBusID, prop->pciDeviceID);
    return json_pack("{s:s,s:s,s:s,s:s,s:I,s:i}", "name", prop->name, "uuid", uuid, "compute_capability", cc,
                     "pci_bus_id", pci, "total_memory_bytes", (json_int_t)prop->totalGlobalMem,
                     "device_index", device);
}

/* The current context's schedule, through cuCtxGetFlags (fn, as the entry
 * point query q found it), or null and why not. */
static void context_schedule(json_t *set, void *fn, enum cudaDriverEntryPointQueryResult q)
{
    typedef CUresult (*ctxflags_t)(unsigned int *);
    unsigned cf = 0;
    CUresult cr = CUDA_ERROR_NOT_FOUND;
    if (q == cudaDriverEntryPointSuccess && fn)
        cr = ((ctxflags_t)fn)(&cf);
    if (cr == CUDA_SUCCESS) {
        json_object_set_new(set, "context_schedule", json_string(sched_name(cf)));
    } else {
        char why[96];
        snprintf(why, sizeof why, "cuCtxGetFlags: entry point query %d, CUresult %d", (int)q, (int)cr);
        json_object_set_new(set, "context_schedule", json_null());
        json_object_set_new(set, "context_schedule_note", json_string(why));
    }
}

/* Whether contexts on the device are shared through MPS (this process an MPS client), through
 * cuDeviceGetAttribute (fn) of CU_DEVICE_ATTRIBUTE_MPS_ENABLED (133 in cuda.h of 13.0, named by
 * number so that older headers build): true, false, or null and why not. */
static void mps_enabled(json_t *set, void *fn, enum cudaDriverEntryPointQueryResult q, int device)
{
    typedef CUresult (*attr_t)(int *, int, CUdevice);
    int v = 0;
    CUresult cr = CUDA_ERROR_NOT_FOUND;
    if (q == cudaDriverEntryPointSuccess && fn)
        cr = ((attr_t)fn)(&v, 133, (CUdevice)device);
    if (cr == CUDA_SUCCESS) {
        json_object_set_new(set, "mps_enabled", json_boolean(v));
    } else {
        char why[96];
        snprintf(why, sizeof why, "cuDeviceGetAttribute(MPS_ENABLED): entry point query %d, CUresult %d", (int)q,
                 (int)cr);
        json_object_set_new(set, "mps_enabled", json_null());
        json_object_set_new(set, "mps_enabled_note", json_string(why));
    }
}

/* The module-loading mode in force (CUDA_MODULE_LOADING, or the default of
 * this runtime and driver), through cuModuleGetLoadingMode: "lazy", "eager",
 * or null and why not. */
static void module_loading(json_t *set, void *fn, enum cudaDriverEntryPointQueryResult q)
{
    typedef CUresult (*loading_t)(CUmoduleLoadingMode *);
    CUmoduleLoadingMode mode = (CUmoduleLoadingMode)0;
    CUresult cr = CUDA_ERROR_NOT_FOUND;
    if (q == cudaDriverEntryPointSuccess && fn)
        cr = ((loading_t)fn)(&mode);
    if (cr == CUDA_SUCCESS && (mode == CU_MODULE_LAZY_LOADING || mode == CU_MODULE_EAGER_LOADING)) {
        json_object_set_new(set, "module_loading", json_string(mode == CU_MODULE_LAZY_LOADING ? "lazy" : "eager"));
    } else {
        char why[112];
        snprintf(why, sizeof why, "cuModuleGetLoadingMode: entry point query %d, CUresult %d, mode %d", (int)q,
                 (int)cr, (int)mode);
        json_object_set_new(set, "module_loading", json_null());
        json_object_set_new(set, "module_loading_note", json_string(why));
    }
}

/* The parts of cts_env_collect: each cudaSuccess, or the error of the call
 * it names in *failed. */
#define ENV_TRY(call)                                                                          \
    do {                                                                                       \
        if ((e = (call)) != cudaSuccess) {                                                     \
            *failed = #call;                                                                   \
            return e;                                                                          \
        }                                                                                      \
    } while (0)

/* Every GPU the process sees (the case's is "gpu"), and how they reach each other. */
static cudaError_t add_devices(json_t *env, const char **failed)
{
    static char uuids[64][64];
    static int pci[64][3];
    cudaError_t e;
    int n = 0;
    ENV_TRY(cudaGetDeviceCount(&n));
    if (n > 64)
        n = 64;
    json_t *all = json_array();
    json_object_set_new(env, "devices", all); /* freed with env if a call below fails */
    for (int i = 0; i < n; i++) {
        struct cudaDeviceProp p;
        ENV_TRY(cudaGetDeviceProperties(&p, i));
        json_array_append_new(all, gpu_json(&p, i, uuids[i], sizeof uuids[i]));
        pci[i][0] = p.pciDomainID, pci[i][1] = p.pciBusID, pci[i][2] = p.pciDeviceID;
    }
    json_object_set_new(env, "peers", peers_json(n, (const char(*)[64])uuids, (const int(*)[3])pci));
    return cudaSuccess;
}

static cudaError_t add_attributes(json_t *env, int device, const char **failed)
{
    cudaError_t e;
    int v = 0;
    json_t *a = json_object();
    json_object_set_new(env, "attributes", a);
    for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        ENV_TRY(cudaDeviceGetAttribute(&v, attrs[i].attr, device));
        json_object_set_new(a, attrs[i].name, json_integer(v));
    }
    return cudaSuccess;
}

/* Versions, named for what they are; NVML's view of the GPU of this uuid
 * into *nv (NULL where NVML could not say, and why in the versions). */
static cudaError_t add_versions(json_t *env, const char *uuid, json_t **nv, const char **failed)
{
    cudaError_t e;
    int v = 0;
    json_t *ver = json_object();
    json_object_set_new(env, "versions", ver);
    ENV_TRY(cudaDriverGetVersion(&v));
    json_object_set_new(ver, "driver_api", version_json(v)); /* the CUDA version the driver supports */
    ENV_TRY(cudaRuntimeGetVersion(&v));
    json_object_set_new(ver, "runtime", version_json(v)); /* the cudart linked in */
    json_object_set_new(ver, "toolkit", version_json(CUDART_VERSION)); /* the headers built against */
    char note[96] = "";
    *nv = nvml_info(uuid, note, sizeof note);
    json_object_set_new(ver, "driver", *nv ? json_incref(json_object_get(*nv, "driver_version")) : json_null());
    if (!*nv)
        json_object_set_new(ver, "driver_note", json_string(note));
    return cudaSuccess;
}

/* What the driver reports of a setting through its entry point `name`. */
static cudaError_t driver_setting(json_t *set, const char *name, int device, const char **failed)
{
    cudaError_t e;
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if ((e = cts_driver_entry_point(name, &fn, &q)) != cudaSuccess) {
        *failed = name; /* "cuCtxGetFlags returned ...": its entry point could not be asked for */
        return e;
    }
    if (!strcmp(name, "cuCtxGetFlags"))
        context_schedule(set, fn, q);
    else if (!strcmp(name, "cuModuleGetLoadingMode"))
        module_loading(set, fn, q);
    else
        mps_enabled(set, fn, q, device);
    return cudaSuccess;
}

/* Settings in force. */
static cudaError_t add_settings(json_t *env, const json_t *nv, int device, const char **failed)
{
    static const char *const probes[] = {"cuCtxGetFlags", "cuModuleGetLoadingMode", "cuDeviceGetAttribute"};
    cudaError_t e;
    unsigned flags = 0;
    json_t *set = json_object();
    json_object_set_new(env, "settings", set);
    ENV_TRY(cudaGetDeviceFlags(&flags));
    json_object_set_new(set, "device_schedule", json_string(sched_name(flags)));
    json_object_set_new(set, "default_stream", json_string(cts_build_per_thread() ? "per-thread" : "legacy"));
    for (size_t i = 0; i < sizeof probes / sizeof *probes; i++)
        if ((e = driver_setting(set, probes[i], device, failed)) != cudaSuccess)
            return e;
    if (nv && json_object_get(nv, "persistence_mode"))
        json_object_set(set, "persistence_mode", json_object_get(nv, "persistence_mode"));
    json_t *vars = json_object();
    for (size_t i = 0; i < sizeof env_vars / sizeof *env_vars; i++) {
        const char *val = getenv(env_vars[i]);
        json_object_set_new(vars, env_vars[i], val ? json_string(val) : json_null());
    }
    json_object_set_new(set, "environment_variables", vars);
    return cudaSuccess;
}

json_t *cts_env_collect(int device, char *err, size_t errlen)
{
    json_t *env = json_object(), *nv = NULL;
    struct cudaDeviceProp prop;
    const char *failed = NULL;
    char uuid[64];
    cudaError_t e;
    if ((e = cudaSetDevice(device)) != cudaSuccess)
        failed = "cudaSetDevice(device)";
    else if ((e = cudaFree(NULL)) != cudaSuccess) /* a current context, for the driver API below */
        failed = "cudaFree(NULL)";
    else if ((e = cudaGetDeviceProperties(&prop, device)) != cudaSuccess)
        failed = "cudaGetDeviceProperties(&prop, device)";
    if (!failed) {
        json_object_set_new(env, "gpu", gpu_json(&prop, device, uuid, sizeof uuid));
        if ((e = add_devices(env, &failed)) == cudaSuccess && (e = add_attributes(env, device, &failed)) == cudaSuccess &&
            (e = add_versions(env, uuid, &nv, &failed)) == cudaSuccess)
            e = add_settings(env, nv, device, &failed);
    }
    json_decref(nv);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "%s returned %s", failed, cudaGetErrorName(e));
        json_decref(env);
        return NULL;
    }
    struct utsname un;
    if (uname(&un) == 0)
        json_object_set_new(env, "host", json_pack("{s:s,s:s,s:s,s:s}", "os", un.sysname, "kernel",
                                                   un.release, "machine", un.machine, "name", un.nodename));
    json_object_set_new(env, "suite_revision", json_string(CTS_REVISION));
    return env;
}
#undef ENV_TRY
