/* A second process for the calls that need one (issues 20 and 36).
 *
 * The exporter is this program again (`sync-cts ipc-export --device N
 * [--shared-fd FD]`, a command for the worker's own use): it makes the device
 * current, creates an event with cudaEventInterprocess | cudaEventDisableTiming
 * and allocates OTHER_BYTES of device memory (and as much again to copy from),
 * and writes "handle <hex of the cudaIpcEventHandle_t> mem <hex of the
 * cudaIpcMemHandle_t>" on its standard output.  Then it answers commands on
 * its standard input, a line each, with "ok" or "error <why>":
 *
 *   prepare OLD NEW    its exported memory set to the byte OLD, the memory it copies from to NEW
 *   hold SEQ COPY      on a non-blocking stream of its own: the gate kernel, spinning on the flag of
 *                      the page FD (shared with the worker, which opens it), recording SEQ in the
 *                      page's gate record; then, where COPY is 1, a copy of NEW's memory into the
 *                      exported memory; then a marker (the page's `after`).  Answered once queued.
 *   sync               that stream synchronized
 *
 * and exits 0 when its standard input ends (the worker closes it, or dies),
 * having destroyed what it made.  On a failure to start it writes "error <why>"
 * and exits 3.  The gate ends itself after OTHER_BUDGET_NS, so that nothing it
 * holds outlives a worker that died.
 *
 * The worker starts it when a case that needs it begins (cts_peer_need: the
 * ipc_open_event_handle and IPC memory cases, on the case's device; the
 * process family's, on the device its placement names) and stops it when a
 * case that does not begins, or at its end (cts_peer_stop): the exporter's
 * context exists only while those cases run, never beside the others.  It is
 * started with posix_spawn, which execs at once (no fork: nothing of this
 * process's CUDA state is copied).  The page is made once by the worker (a
 * memfd, inherited by each exporter as its descriptor 3). */
#define _GNU_SOURCE
#include "cli.h"
#include "cts.h"
#include "family.h"
#include "kernels.h"
#include "peer.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define START_LIMIT_MS 30000 /* the exporter's context and event, under load */
#define REPLY_LIMIT_MS 30000 /* a command's answer */
#define PAGE 4096

static struct {
    pid_t pid;            /* 0: not running */
    int to_fd, from_fd;   /* its standard input (closing it stops it) and output */
    int device;           /* where it runs */
    int have;             /* the handles below were read */
    unsigned generation;  /* counts the exporters started */
    cudaIpcEventHandle_t handle;
    cudaIpcMemHandle_t mem;
    char why[CTS_REASON_MAX]; /* why there is no handle */
    int shared_fd;        /* the shared page (a memfd), handed to each exporter as its descriptor 3 */
    struct cts_shared *shared; /* ... as this process maps it */
} peer = {.to_fd = -1, .from_fd = -1, .shared_fd = -1};

/* ---- the exporter ----------------------------------------------------------- */

static int export_fail(const char *what, cudaError_t err)
{
    printf("error %s returned %s\n", what, cudaGetErrorName(err));
    fflush(stdout);
    return EXIT_NO_VERDICT;
}

static void put_hex(const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", ((const unsigned char *)p)[i]);
}

/* What the exporter keeps. */
static struct {
    void *mem, *from;       /* OTHER_BYTES each: exported, and copied from */
    cudaStream_t s;
    struct cts_shared *page, *page_dev; /* the shared page, mapped and registered */
} ex;

/* One command (a line without its newline): 0 and "ok", or an error's line. */
static void serve(char *line)
{
    unsigned a = 0, b = 0;
    cudaError_t err = cudaSuccess;
    const char *at = line;
    if (sscanf(line, "prepare %u %u", &a, &b) == 2) {
        if ((err = cudaMemset(ex.mem, (int)a, OTHER_BYTES)) == cudaSuccess &&
            (err = cudaMemset(ex.from, (int)b, OTHER_BYTES)) == cudaSuccess)
            err = cudaDeviceSynchronize();
        at = "prepare";
    } else if (sscanf(line, "hold %u %u", &a, &b) == 2 && ex.page) {
        err = cts_launch_gate(ex.s, &ex.page_dev->flag, OTHER_BUDGET_NS, &ex.page_dev->gate, a);
        if (err == cudaSuccess && b)
            err = cudaMemcpyAsync(ex.mem, ex.from, OTHER_BYTES, cudaMemcpyDeviceToDevice, ex.s);
        if (err == cudaSuccess)
            err = cts_launch_marker(ex.s, &ex.page_dev->after, a);
        at = "hold";
    } else if (!strcmp(line, "sync")) {
        err = cudaStreamSynchronize(ex.s);
        at = "sync";
    } else {
        printf("error unknown command '%.80s'\n", line);
        fflush(stdout);
        return;
    }
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        printf("error %s returned %s\n", at, cudaGetErrorName(err));
    } else {
        puts("ok");
    }
    fflush(stdout);
}

/* The shared page (the descriptor fd, inherited), mapped and registered for the device. */
static cudaError_t map_shared(int fd)
{
    void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return cudaErrorInvalidValue;
    ex.page = p;
    cudaError_t err = cudaHostRegister(p, PAGE, cudaHostRegisterMapped | cudaHostRegisterPortable);
    if (err == cudaSuccess)
        err = cudaHostGetDevicePointer((void **)&ex.page_dev, p, 0);
    return err;
}

/* The exporter's event, memory, stream and shared page, their handles into
 * *h and *m, and its first hold (outside any measurement: a gate, open, a
 * copy, a marker): cudaSuccess, or the error and the step in *at. */
static cudaError_t export_setup(int dev, int fd, cudaEvent_t *ev, cudaIpcEventHandle_t *h, cudaIpcMemHandle_t *m,
                                const char **at)
{
    cudaError_t err;
    if ((err = cudaSetDevice(dev)) != cudaSuccess)
        return *at = "cudaSetDevice", err;
    if ((err = cudaEventCreateWithFlags(ev, cudaEventInterprocess | cudaEventDisableTiming)) != cudaSuccess)
        return *at = "cudaEventCreateWithFlags", err;
    if ((err = cudaIpcGetEventHandle(h, *ev)) != cudaSuccess)
        return *at = "cudaIpcGetEventHandle", err;
    if ((err = cudaMalloc(&ex.mem, OTHER_BYTES)) != cudaSuccess || (err = cudaMalloc(&ex.from, OTHER_BYTES)) != cudaSuccess)
        return *at = "cudaMalloc", err;
    if ((err = cudaIpcGetMemHandle(m, ex.mem)) != cudaSuccess)
        return *at = "cudaIpcGetMemHandle", err;
    if ((err = cudaStreamCreateWithFlags(&ex.s, cudaStreamNonBlocking)) != cudaSuccess)
        return *at = "cudaStreamCreateWithFlags", err;
    if (fd >= 0 && (err = map_shared(fd)) != cudaSuccess)
        return *at = "mapping the shared page", err;
    if (!ex.page)
        return cudaSuccess;
    ex.page->flag = 1u;
    if ((err = cts_launch_gate(ex.s, &ex.page_dev->flag, OTHER_BUDGET_NS, &ex.page_dev->gate, 0)) != cudaSuccess ||
        (err = cudaMemcpyAsync(ex.mem, ex.from, OTHER_BYTES, cudaMemcpyDeviceToDevice, ex.s)) != cudaSuccess ||
        (err = cts_launch_marker(ex.s, &ex.page_dev->after, 0)) != cudaSuccess ||
        (err = cudaStreamSynchronize(ex.s)) != cudaSuccess)
        return *at = "the first hold", err;
    return cudaSuccess;
}

/* The worker's commands, a line each on standard input, until it closes. */
static void export_serve(void)
{
    char line[128];
    size_t n = 0;
    for (;;) {
        char c;
        ssize_t k = read(0, &c, 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        if (c != '\n' && n + 1 < sizeof line) {
            line[n++] = c;
            continue;
        }
        line[n] = '\0';
        n = 0;
        serve(line);
    }
}

int cts_cmd_ipc_export(int argc, char **argv)
{
    int dev = 0, fd = -1;
    if ((argc != 3 && argc != 5) || strcmp(argv[1], "--device") || cts_parse_int(argv[2], 0, 1023, &dev) ||
        (argc == 5 && (strcmp(argv[3], "--shared-fd") || cts_parse_int(argv[4], 3, 1023, &fd))))
        return cts_die(EXIT_USAGE, "ipc-export wants --device N [--shared-fd FD] (it is started by a worker)");
    cudaEvent_t ev;
    cudaIpcEventHandle_t h;
    cudaIpcMemHandle_t m;
    const char *at = NULL;
    cudaError_t err = export_setup(dev, fd, &ev, &h, &m, &at);
    if (err != cudaSuccess)
        return export_fail(at, err);
    fputs("handle ", stdout);
    put_hex(h.reserved, sizeof h.reserved);
    fputs(" mem ", stdout);
    put_hex(m.reserved, sizeof m.reserved);
    fputs("\n", stdout);
    fflush(stdout);
    export_serve();
    err = cudaStreamSynchronize(ex.s);
    if (err == cudaSuccess && ex.page)
        err = cudaHostUnregister(ex.page);
    if (err == cudaSuccess)
        err = cudaFree(ex.mem);
    if (err == cudaSuccess)
        err = cudaFree(ex.from);
    if (err == cudaSuccess)
        err = cudaEventDestroy(ev);
    return err == cudaSuccess ? 0 : export_fail("cleaning up", err);
}

/* ---- the worker's side ------------------------------------------------------ */

/* Reads the exporter's one line within limit_ms into line[]: 0, or -1. */
static int read_reply(int fd, char *line, size_t len, int limit_ms)
{
    size_t n = 0;
    while (n + 1 < len) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, limit_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t k = read(fd, line + n, 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        if (line[n] == '\n')
            break;
        n++;
    }
    line[n] = '\0';
    return 0;
}

static int parse_hex(const char *hex, size_t hexlen, void *out, size_t n)
{
    if (hexlen != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        ((unsigned char *)out)[i] = (unsigned char)v;
    }
    return 0;
}

/* "handle <event> mem <memory>" */
static int parse_handles(const char *line)
{
    const char *sp = strstr(line, " mem ");
    if (strncmp(line, "handle ", 7) || !sp)
        return -1;
    return parse_hex(line + 7, (size_t)(sp - (line + 7)), peer.handle.reserved, sizeof peer.handle.reserved) ||
           parse_hex(sp + 5, strlen(sp + 5), peer.mem.reserved, sizeof peer.mem.reserved);
}

/* The shared page, made once: a memfd the exporters inherit (no name to leave behind). */
static int make_shared(void)
{
    if (peer.shared)
        return 0;
    int fd = memfd_create("sync-cts-shared", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    void *p = MAP_FAILED;
    if (ftruncate(fd, PAGE) == 0)
        p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return -1;
    }
    memset(p, 0, PAGE);
    peer.shared = p;
    peer.shared->flag = 1u;
    peer.shared_fd = fd;
    return 0;
}

static void start(int device)
{
    int in[2], out[2];
    char self[4096], dev_s[16];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    peer.have = 0;
    peer.why[0] = '\0';
    if (make_shared()) {
        snprintf(peer.why, sizeof peer.why, "cannot make the page shared with the other process: %s", strerror(errno));
        return;
    }
    if (k <= 0 || pipe2(in, O_CLOEXEC)) {
        snprintf(peer.why, sizeof peer.why, "cannot start the exporting process: %s", strerror(errno));
        return;
    }
    if (pipe2(out, O_CLOEXEC)) {
        snprintf(peer.why, sizeof peer.why, "cannot start the exporting process: %s", strerror(errno));
        close(in[0]), close(in[1]);
        return;
    }
    self[k] = '\0';
    snprintf(dev_s, sizeof dev_s, "%d", device);
    char *argv[] = {self, "ipc-export", "--device", dev_s, "--shared-fd", "3", NULL};
    posix_spawn_file_actions_t fa;
    pid_t pid = -1;
    if (posix_spawn_file_actions_init(&fa) == 0) {
        /* its standard input and output the pipes, the shared page its descriptor 3; no other
         * descriptor of this process (the report pipe, the driver's) */
        if (posix_spawn_file_actions_adddup2(&fa, in[0], 0) || posix_spawn_file_actions_adddup2(&fa, out[1], 1) ||
            posix_spawn_file_actions_adddup2(&fa, peer.shared_fd, 3) ||
            posix_spawn_file_actions_addclosefrom_np(&fa, 4) || posix_spawn(&pid, self, &fa, NULL, argv, environ))
            pid = -1;
        posix_spawn_file_actions_destroy(&fa);
    }
    close(in[0]);
    close(out[1]);
    if (pid < 0) {
        snprintf(peer.why, sizeof peer.why, "cannot start the exporting process");
        close(in[1]), close(out[0]);
        return;
    }
    peer.pid = pid;
    peer.to_fd = in[1];
    peer.from_fd = out[0];
    peer.device = device;
    peer.generation++;
    char line[512];
    if (read_reply(out[0], line, sizeof line, START_LIMIT_MS))
        snprintf(peer.why, sizeof peer.why, "the exporting process said nothing in %d s", START_LIMIT_MS / 1000);
    else if (parse_handles(line) == 0)
        peer.have = 1;
    else
        snprintf(peer.why, sizeof peer.why, "the exporting process: %.200s", line);
}

void cts_peer_stop(void)
{
    if (!peer.pid)
        return;
    close(peer.to_fd);
    close(peer.from_fd);
    peer.to_fd = peer.from_fd = -1;
    int status;
    while (waitpid(peer.pid, &status, 0) < 0 && errno == EINTR)
        ;
    peer.pid = 0;
    peer.have = 0;
}

/* The device a case needs the exporting process on (-1: none): the case's
 * own, or the next one the process sees for a placement on the peer. */
static int needs_peer(const struct cts_case *c, int device)
{
    if (c->api == CTS_API_IPC_OPEN_EVENT_HANDLE || c->api == CTS_API_IPC_OPEN_MEM_HANDLE ||
        c->api == CTS_API_IPC_CLOSE_MEM_HANDLE || c->busy == CTS_BUSY_OTHER_PROCESS)
        return device;
    if (c->busy == CTS_BUSY_OTHER_PROCESS_PEER) {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2) {
            (void)cudaGetLastError();
            return -1; /* the case is NOTSUPP (one device) */
        }
        return (device + 1) % n;
    }
    return -1;
}

void cts_peer_need(const struct cts_case *c, int device)
{
    int want = needs_peer(c, device);
    if (peer.pid && (want < 0 || want != peer.device))
        cts_peer_stop();
    if (want >= 0 && !peer.pid)
        start(want);
}

static const char *no_peer(void)
{
    if (!peer.why[0])
        snprintf(peer.why, sizeof peer.why, "no exporting process was started");
    return peer.why;
}

const cudaIpcEventHandle_t *cts_peer_event(const char **why)
{
    if (peer.have)
        return &peer.handle;
    *why = no_peer();
    return NULL;
}

const cudaIpcMemHandle_t *cts_peer_memory(const char **why)
{
    if (peer.have)
        return &peer.mem;
    *why = no_peer();
    return NULL;
}

int cts_peer_process(struct cts_other *o, const char **why)
{
    if (!peer.have || !peer.shared) {
        *why = no_peer();
        return -1;
    }
    o->shared = peer.shared;
    o->mem = &peer.mem;
    o->device = peer.device;
    o->generation = peer.generation;
    return 0;
}

int cts_peer_command(const char *cmd, char *why, size_t len)
{
    char line[256];
    if (!peer.pid) {
        snprintf(why, len, "harness: no exporting process: %s", no_peer());
        return -1;
    }
    size_t n = strlen(cmd);
    if (write(peer.to_fd, cmd, n) != (ssize_t)n || write(peer.to_fd, "\n", 1) != 1) {
        snprintf(why, len, "harness: the exporting process took no command (%s)", strerror(errno));
        return -1;
    }
    if (read_reply(peer.from_fd, line, sizeof line, REPLY_LIMIT_MS)) {
        snprintf(why, len, "harness: the exporting process did not answer '%s' in %d s", cmd, REPLY_LIMIT_MS / 1000);
        return -1;
    }
    if (strcmp(line, "ok")) {
        snprintf(why, len, "harness: the exporting process, to '%s': %.160s", cmd, line);
        return -1;
    }
    return 0;
}
