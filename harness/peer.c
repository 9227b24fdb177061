/* A second process for the calls that need one (issue 20): an interprocess
 * event is opened with cudaIpcOpenEventHandle from a handle "exported from
 * another process", so the cases of that call (ipc_open_event_handle, in
 * the device family and lent to the capture family) need a process that
 * exported one.
 *
 * The exporter is this program again (`sync-cts ipc-export --device N`, a
 * command for the worker's own use): it makes the device current, creates an
 * event with cudaEventInterprocess | cudaEventDisableTiming, writes
 * "handle <hex of the cudaIpcEventHandle_t>" on its standard output, and
 * keeps the event until its standard input ends (the worker closes it, or
 * dies); then it destroys the event and exits 0.  On a failure it writes
 * "error <why>" and exits 3.
 *
 * The worker starts it when a case that needs it begins (cts_peer_need) and
 * stops it when a case that does not begins, or at its end
 * (cts_peer_stop): the exporter's context exists only while those cases
 * run, never beside the others.  It is started with posix_spawn, which
 * execs at once (no fork: nothing of this process's CUDA state is copied). */
#define _GNU_SOURCE
#include "cli.h"
#include "cts.h"
#include "family.h"
#include "run_int.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define START_LIMIT_MS 30000 /* the exporter's context and event, under load */

static struct {
    pid_t pid;            /* 0: not running */
    int to_fd;            /* its standard input: closing it stops it */
    int have;             /* the handle below was read */
    cudaIpcEventHandle_t handle;
    char why[CTS_REASON_MAX]; /* why there is no handle */
} peer;

/* ---- the exporter ----------------------------------------------------------- */

static int export_fail(const char *what, cudaError_t err)
{
    printf("error %s returned %s\n", what, cudaGetErrorName(err));
    fflush(stdout);
    return EXIT_NO_VERDICT;
}

int cts_cmd_ipc_export(int argc, char **argv)
{
    int dev = 0;
    if (argc != 3 || strcmp(argv[1], "--device") || cts_parse_int(argv[2], 0, 1023, &dev))
        return cts_die(EXIT_USAGE, "ipc-export wants --device N (it is started by a worker)");
    cudaEvent_t ev;
    cudaIpcEventHandle_t h;
    cudaError_t err = cudaSetDevice(dev);
    if (err != cudaSuccess)
        return export_fail("cudaSetDevice", err);
    if ((err = cudaEventCreateWithFlags(&ev, cudaEventInterprocess | cudaEventDisableTiming)) != cudaSuccess)
        return export_fail("cudaEventCreateWithFlags", err);
    if ((err = cudaIpcGetEventHandle(&h, ev)) != cudaSuccess)
        return export_fail("cudaIpcGetEventHandle", err);
    fputs("handle ", stdout);
    for (size_t i = 0; i < sizeof h.reserved; i++)
        printf("%02x", (unsigned char)h.reserved[i]);
    fputs("\n", stdout);
    fflush(stdout);
    char buf[64];
    for (;;) {
        ssize_t k = read(0, buf, sizeof buf);
        if (k == 0 || (k < 0 && errno != EINTR))
            break;
    }
    err = cudaEventDestroy(ev);
    return err == cudaSuccess ? 0 : export_fail("cudaEventDestroy", err);
}

/* ---- the worker's side ------------------------------------------------------ */

/* Reads the exporter's one line within START_LIMIT_MS into line[]: 0, or -1. */
static int read_reply(int fd, char *line, size_t len)
{
    size_t n = 0;
    while (n + 1 < len) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, START_LIMIT_MS);
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

static int parse_handle(const char *hex, cudaIpcEventHandle_t *h)
{
    if (strlen(hex) != 2 * sizeof h->reserved)
        return -1;
    for (size_t i = 0; i < sizeof h->reserved; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        h->reserved[i] = (char)v;
    }
    return 0;
}

static void start(int device)
{
    int in[2], out[2];
    char self[4096], dev_s[16];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    peer.have = 0;
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
    char *argv[] = {self, "ipc-export", "--device", dev_s, NULL};
    posix_spawn_file_actions_t fa;
    pid_t pid = -1;
    if (posix_spawn_file_actions_init(&fa) == 0) {
        /* its standard input and output the pipes; no other descriptor of
         * this process (the report pipe, the driver's) */
        if (posix_spawn_file_actions_adddup2(&fa, in[0], 0) || posix_spawn_file_actions_adddup2(&fa, out[1], 1) ||
            posix_spawn_file_actions_addclosefrom_np(&fa, 3) || posix_spawn(&pid, self, &fa, NULL, argv, environ))
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
    char line[256];
    if (read_reply(out[0], line, sizeof line))
        snprintf(peer.why, sizeof peer.why, "the exporting process said nothing in %d s",
                 START_LIMIT_MS / 1000);
    else if (!strncmp(line, "handle ", 7) && parse_handle(line + 7, &peer.handle) == 0)
        peer.have = 1;
    else
        snprintf(peer.why, sizeof peer.why, "the exporting process: %.200s", line);
    close(out[0]);
}

void cts_peer_stop(void)
{
    if (!peer.pid)
        return;
    close(peer.to_fd);
    int status;
    while (waitpid(peer.pid, &status, 0) < 0 && errno == EINTR)
        ;
    peer.pid = 0;
    peer.have = 0;
}

/* The cases whose call needs the exporting process. */
static int needs_peer(const struct cts_case *c)
{
    return c->api == CTS_API_IPC_OPEN_EVENT_HANDLE;
}

void cts_peer_need(const struct cts_case *c, int device)
{
    int need = needs_peer(c);
    if (need && !peer.pid)
        start(device);
    else if (!need && peer.pid)
        cts_peer_stop();
}

const cudaIpcEventHandle_t *cts_peer_event(const char **why)
{
    if (peer.have)
        return &peer.handle;
    if (!peer.why[0])
        snprintf(peer.why, sizeof peer.why, "no exporting process was started");
    *why = peer.why;
    return NULL;
}
