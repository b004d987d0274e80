/* What the driver reads of a process from outside: its first child, whether it is stopped or
 * frozen (as /proc and its cgroup's files say), its CPU time and its RSS. */
#ifndef SUPERVISE_PROCESS_READINGS_H
#define SUPERVISE_PROCESS_READINGS_H
#include "bench.h"
#include <dirent.h>

/* The first child of `parent`, waiting up to 5 s for it to appear. */
__attribute__((unused)) static pid_t first_child(pid_t parent) {
    char path[128], text[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", parent, parent);
    for (int tries = 0; tries < 5000; tries++) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
        if (fd >= 0) close(fd);
        if (n > 0) {
            text[n] = 0;
            return atoi(text);
        }
        usleep(1000);
    }
    die("process %d started no child", parent);
    return 0;
}

/* How to tell that `pid` is stopped: its cgroup v2 cgroup.events says frozen 1, its
 * cgroup v1 freezer.state says FROZEN, or /proc says state T. */
struct stop_probe { pid_t pid; int v2_events; int v1_state; };

static struct stop_probe stop_probe(pid_t pid) {
    struct stop_probe probe = { .pid = pid, .v2_events = -1, .v1_state = -1 };
    char path[256], text[4096];
    snprintf(path, sizeof path, "/proc/%d/cgroup", pid);
    FILE *file = fopen(path, "r");
    if (!file) die("open %s: %s", path, strerror(errno));
    while (fgets(text, sizeof text, file)) {
        text[strcspn(text, "\n")] = 0;
        char full[4400];
        if (strncmp(text, "0::/supervise-", 14) == 0) {
            snprintf(full, sizeof full, "/sys/fs/cgroup/unified%s/cgroup.events", text + 3);
            probe.v2_events = open(full, O_RDONLY | O_CLOEXEC);
        }
        char *freezer = strstr(text, ":freezer:/supervise-");
        if (freezer) {
            snprintf(full, sizeof full, "/sys/fs/cgroup/freezer%s/freezer.state", freezer + 9);
            probe.v1_state = open(full, O_RDONLY | O_CLOEXEC);
        }
    }
    fclose(file);
    return probe;
}

static int is_stopped(struct stop_probe *probe) {
    char text[512];
    if (probe->v2_events >= 0) {
        ssize_t n = pread(probe->v2_events, text, sizeof text - 1, 0);
        text[n > 0 ? n : 0] = 0;
        if (strstr(text, "frozen 1")) return 1;
    }
    if (probe->v1_state >= 0) {
        ssize_t n = pread(probe->v1_state, text, sizeof text - 1, 0);
        text[n > 0 ? n : 0] = 0;
        if (strncmp(text, "FROZEN", 6) == 0) return 1;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", probe->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0) close(fd);
    if (n <= 0) return 0;
    text[n] = 0;
    char *end = strrchr(text, ')');
    return end && (end[2] == 'T' || end[2] == 't');
}

/* Polls every 20 µs (timer slack set to 1 ns) until the stop state is `want`. */
static void wait_stopped(struct stop_probe *probe, int want) {
    struct timespec step = { 0, 20000 };
    for (int tries = 0; tries < 500000; tries++) {
        if (is_stopped(probe) == want) return;
        nanosleep(&step, NULL);
    }
    die("process %d did not %s", probe->pid, want ? "stop" : "resume");
}

/// The CPU time `pid`'s threads have used, in nanoseconds: the sum of the first field of each
/// `/proc/PID/task/TID/schedstat` (the scheduler's own count), or -1. `/proc/PID/stat`'s user
/// and system times count in clock ticks (10 ms), too coarse to tell two builds apart.
static int64_t cpu_ns(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    if (!tasks) return -1;
    int64_t total = 0;
    int counted = 0;
    for (struct dirent *task; (task = readdir(tasks));) {
        if (task->d_name[0] == '.') continue;
        char file[320], text[128];
        snprintf(file, sizeof file, "/proc/%d/task/%s/schedstat", pid, task->d_name);
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
        if (fd >= 0) close(fd);
        if (n <= 0) continue;
        text[n] = 0;
        total += strtoll(text, NULL, 10);
        counted++;
    }
    closedir(tasks);
    return counted > 0 ? total : -1;
}

static long rss_kb(pid_t pid) {
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0) close(fd);
    if (n <= 0) return -1;
    text[n] = 0;
    char *rss = strstr(text, "VmRSS:");
    return rss ? atol(rss + 6) : -1;
}

#endif
