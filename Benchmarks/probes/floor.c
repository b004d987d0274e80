/* The floors: what the kernel alone costs, for the figures supervise is compared with.
 *
 *   bench-floor pipe N            write(2) of a timestamp → read(2) in another process
 *   bench-floor relay N           after 3 ms idle, a byte through two processes and back ("relay"):
 *                                 three wake-ups, the path of the cycle's foreground (bench-driver →
 *                                 supervise → child → bench-driver) with nothing done on the way
 *   bench-floor sigstop N         kill(SIGSTOP) → waitpid(WUNTRACED); kill(SIGCONT) → waitpid(WCONTINUED)
 *   bench-floor cgroup2 N DIR     write "1" to cgroup.freeze → cgroup.events says "frozen 1"; and back;
 *                                 alternately re-reading at once and waiting for the POLLPRI notification
 *   bench-floor cgroup1 N DIR     write FROZEN to freezer.state → it reads FROZEN; THAWED and back
 *
 *   bench-floor place N DIR       a child placed in a new cgroup v2 cgroup: fork, write "0" to cgroup.procs,
 *                                 exit ("place-write"), against clone3(CLONE_INTO_CGROUP) ("place-clone3")
 *
 * DIR is a writable cgroup directory in which a scratch cgroup is made and removed.
 */
#include "bench.h"
#include <poll.h>
#include <sched.h>
#include <sys/stat.h>
#include <linux/sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static pid_t spawn_sleeper(void) {
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid == 0) {
        for (;;) pause();
    }
    return pid;
}

static void pipe_floor(int count) {
    int ping[2], pong[2];
    if (pipe(ping) || pipe(pong)) die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        close(ping[1]);
        close(pong[0]);
        int64_t sent, latency;
        while (read(ping[0], &sent, 8) == 8) {
            latency = now_ns() - sent;
            write_all(pong[1], &latency, 8);
        }
        _exit(0);
    }
    close(ping[0]);
    close(pong[1]);
    for (int i = 0; i < count; i++) {
        usleep(200); /* the reader is asleep in read(2), as a child waiting for events is */
        int64_t sent = now_ns(), latency;
        write_all(ping[1], &sent, 8);
        if (read(pong[0], &latency, 8) != 8) die("pipe floor: reader died");
        sample("pipe", latency);
    }
    close(ping[1]);
    waitpid(pid, NULL, 0);
}

/* Copies bytes from `in` to `out` until `in` ends; in a child of its own that keeps no other
 * descriptor beyond 0-2 (a pipe's end left open in it would never let `in` end). */
static pid_t spawn_copier(int in, int out) {
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid == 0) {
        for (int fd = 3; fd < 64; fd++) if (fd != in && fd != out) close(fd);
        char byte;
        while (read(in, &byte, 1) == 1) write_all(out, &byte, 1);
        _exit(0);
    }
    return pid;
}

static void relay_floor(int count) {
    int first[2], second[2], back[2];
    if (pipe(first) || pipe(second) || pipe(back)) die("pipe: %s", strerror(errno));
    pid_t relay = spawn_copier(first[0], second[1]);
    pid_t end = spawn_copier(second[0], back[1]);
    close(first[0]);
    close(second[0]);
    close(second[1]);
    close(back[1]);
    for (int i = 0; i < count; i++) {
        usleep(3000); /* as bench-driver waits before it writes `foreground`: everyone asleep */
        char byte = 'x';
        int64_t t0 = now_ns();
        write_all(first[1], &byte, 1);
        if (read(back[0], &byte, 1) != 1) die("relay floor: a copier died");
        sample("relay", now_ns() - t0);
    }
    close(first[1]);
    waitpid(relay, NULL, 0);
    waitpid(end, NULL, 0);
}

static void sigstop_floor(int count) {
    pid_t pid = spawn_sleeper();
    int status;
    for (int i = 0; i < count; i++) {
        usleep(200);
        int64_t t0 = now_ns();
        kill(pid, SIGSTOP);
        waitpid(pid, &status, WUNTRACED);
        int64_t t1 = now_ns();
        kill(pid, SIGCONT);
        waitpid(pid, &status, WCONTINUED);
        int64_t t2 = now_ns();
        sample("sigstop", t1 - t0);
        sample("sigcont", t2 - t1);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
}

static void write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) die("open %s: %s", path, strerror(errno));
    write_all(fd, text, strlen(text));
    close(fd);
}

/* Waits until the cgroup.events fd shows `frozen WANT`: woken by the kernel's POLLPRI
 * notification (as supervise's inotify watch is), or re-reading it at once (the true floor). */
static void wait_frozen(int events, char want, int notified) {
    char text[256];
    for (;;) {
        ssize_t n = pread(events, text, sizeof text - 1, 0);
        if (n < 0) die("read cgroup.events: %s", strerror(errno));
        text[n] = 0;
        char *frozen = strstr(text, "frozen ");
        if (frozen && frozen[7] == want) return;
        if (notified) {
            struct pollfd p = { .fd = events, .events = POLLPRI };
            poll(&p, 1, 1000);
        } else {
            sched_yield();
        }
    }
}

/// Makes DIR = PARENT/bench-floor-PID and moves a new sleeper into it; returns the sleeper.
static pid_t sleeper_in_new_cgroup(const char *parent, char *dir, size_t size) {
    snprintf(dir, size, "%s/bench-floor-%d", parent, getpid());
    if (mkdir(dir, 0755) && errno != EEXIST) die("mkdir %s: %s", dir, strerror(errno));
    pid_t pid = spawn_sleeper();
    char path[600], text[32];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    snprintf(text, sizeof text, "%d", pid);
    write_file(path, text);
    return pid;
}

static void cgroup2_floor(int count, const char *parent) {
    char dir[512], path[600];
    pid_t pid = sleeper_in_new_cgroup(parent, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/cgroup.freeze", dir);
    int freeze = open(path, O_WRONLY | O_CLOEXEC);
    snprintf(path, sizeof path, "%s/cgroup.events", dir);
    int events = open(path, O_RDONLY | O_CLOEXEC);
    if (freeze < 0 || events < 0) die("open %s: %s", dir, strerror(errno));
    for (int i = 0; i < count; i++) {
        usleep(200);
        int notified = i % 2;
        int64_t t0 = now_ns();
        write_all(freeze, "1", 1);
        wait_frozen(events, '1', notified);
        int64_t t1 = now_ns();
        write_all(freeze, "0", 1);
        wait_frozen(events, '0', notified);
        int64_t t2 = now_ns();
        sample(notified ? "cgroup2-freeze-notified" : "cgroup2-freeze", t1 - t0);
        sample(notified ? "cgroup2-thaw-notified" : "cgroup2-thaw", t2 - t1);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(freeze);
    close(events);
    rmdir(dir);
}

static int v1_state_is(int state, const char *want) {
    char text[32];
    ssize_t n = pread(state, text, sizeof text - 1, 0);
    if (n < 0) die("read freezer.state: %s", strerror(errno));
    text[n] = 0;
    return strncmp(text, want, strlen(want)) == 0;
}

static void cgroup1_floor(int count, const char *parent) {
    char dir[512], path[600];
    pid_t pid = sleeper_in_new_cgroup(parent, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/freezer.state", dir);
    int state = open(path, O_RDWR | O_CLOEXEC);
    if (state < 0) die("open %s: %s", path, strerror(errno));
    for (int i = 0; i < count; i++) {
        usleep(200);
        int64_t t0 = now_ns();
        write_all(state, "FROZEN", 6);
        while (!v1_state_is(state, "FROZEN")) sched_yield();
        int64_t t1 = now_ns();
        write_all(state, "THAWED", 6);
        while (!v1_state_is(state, "THAWED")) sched_yield();
        int64_t t2 = now_ns();
        sample("cgroup1-freeze", t1 - t0);
        sample("cgroup1-thaw", t2 - t1);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(state);
    rmdir(dir);
}

/* fork → the child moves itself into the cgroup and exits → waitpid, as a spawner does it. */
static int64_t place_by_write(int procs) {
    int64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid == 0) _exit(write(procs, "0", 1) == 1 ? 0 : 1);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("writing cgroup.procs failed");
    return now_ns() - t0;
}

/* clone3 with CLONE_INTO_CGROUP: the child is born in the cgroup (Linux 5.7+). */
static int64_t place_by_clone3(int directory) {
    struct clone_args args = { .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD, .cgroup = (uint64_t)directory };
    int64_t t0 = now_ns();
    long pid = syscall(SYS_clone3, &args, sizeof args);
    if (pid < 0) die("clone3(CLONE_INTO_CGROUP): %s", strerror(errno));
    if (pid == 0) _exit(0);
    int status;
    waitpid((pid_t)pid, &status, 0);
    return now_ns() - t0;
}

/* Each turn uses a new cgroup, as each supervise run does, after a pause: back-to-back
 * migrations skip the RCU grace period a first migration waits for (rcu_sync). */
static void placement_floor(int count, const char *parent) {
    char dir[512], path[600];
    for (int i = 0; i < 2 * count; i++) {
        usleep(100000);
        snprintf(dir, sizeof dir, "%s/bench-place-%d-%d", parent, getpid(), i);
        if (mkdir(dir, 0755) && errno != EEXIST) die("mkdir %s: %s", dir, strerror(errno));
        snprintf(path, sizeof path, "%s/cgroup.procs", dir);
        int procs = open(path, O_WRONLY | O_CLOEXEC);
        int directory = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (procs < 0 || directory < 0) die("open %s: %s", dir, strerror(errno));
        if (i % 2 == 0) sample("place-write", place_by_write(procs));
        else sample("place-clone3", place_by_clone3(directory));
        close(procs);
        close(directory);
        rmdir(dir);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) die("usage: bench-floor pipe|relay|sigstop|cgroup2|cgroup1|place N [DIR]");
    int count = atoi(argv[2]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(argv[1], "pipe") == 0) pipe_floor(count);
    else if (strcmp(argv[1], "relay") == 0) relay_floor(count);
    else if (strcmp(argv[1], "sigstop") == 0) sigstop_floor(count);
    else if (strcmp(argv[1], "cgroup2") == 0 && argc > 3) cgroup2_floor(count, argv[3]);
    else if (strcmp(argv[1], "cgroup1") == 0 && argc > 3) cgroup1_floor(count, argv[3]);
    else if (strcmp(argv[1], "place") == 0 && argc > 3) placement_floor(count, argv[3]);
    else die("unknown floor '%s'", argv[1]);
    return 0;
}
