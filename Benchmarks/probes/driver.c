/* Drives supervise (and its peers) from outside and times what a user sees.
 *
 *   bench-driver cycle N DIR SUPERVISE [OPTION...]
 *       One supervise running bench-child in `task` mode; N times: SIGUSR1 → child read
 *       did-enter-background ("event"); child's last `end` → a `wait suspended` + `status`
 *       line on stdout ("suspend"); `foreground` written → child read did-become-active
 *       ("foreground"). DIR holds the FIFO; OPTIONs go to supervise before `--`.
 *   bench-driver pause N KIND DIR PROGRAM...
 *       An unaware `sleep` under KIND (supervise, runit, s6); N times: spawn the pause
 *       command → the child is stopped or frozen ("pause-KIND"), then resume it.
 *       For supervise (any KIND not runit or s6) PROGRAM is supervise and its options, the
 *       pause command is kill(1) -USR1, and every other turn kill(2) is timed instead
 *       ("pause-KIND-kill"); runit and s6 take no PROGRAM.
 *   bench-driver event N PARKED DIR SUPERVISE [OPTION...]
 *       One supervise with one bench-child in `event` mode, not started (autostart =
 *       false); N times: `event bench push` written → the child read its `event` ("event-
 *       PARKED"), after which it parks again and the driver waits for the child to be in
 *       PARKED: `suspended` (a resume), or `not-running` (with --suspended-memory 0 among
 *       the OPTIONs every park is reclaimed: each event is a relaunch). DIR holds the FIFO
 *       and the config.
 *   bench-driver startup N COMMAND...
 *       posix_spawn → waitpid of COMMAND, N times ("startup").
 *   bench-driver scale CONFIG SUPERVISE N
 *       supervise --config CONFIG with N unaware children: launch → all active
 *       ("scale-launch"), SIGUSR1 → all suspended ("scale-freeze"), SIGUSR2 → all
 *       active ("scale-thaw"), `terminate all` → supervise exits ("scale-terminate");
 *       prints the supervisor's RSS in kB ("scale-rss-kb") and the CPU time its threads
 *       have used since it started ("scale-launch-cpu", from schedstat) once all are active.
 *
 * The driver gives up after BENCH_TIME_LIMIT seconds (default 240), stopping the
 * supervisor it started.
 */
#include "bench.h"
#include "process_readings.h"
#include <poll.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

struct supervisor { pid_t pid; int stdin_fd; struct line_reader out; };

/* The supervisor under test, stopped if this driver fails or runs out of time. */
static pid_t running_supervisor = -1;

static void stop_running_supervisor(void) {
    if (running_supervisor > 0) kill(running_supervisor, SIGTERM);
}

static void out_of_time(int signal) {
    (void)signal;
    stop_running_supervisor();
    _exit(3);
}

static pid_t spawn(char **argv, int in, int out) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (in >= 0) posix_spawn_file_actions_adddup2(&actions, in, 0);
    if (out >= 0) posix_spawn_file_actions_adddup2(&actions, out, 1);
    pid_t pid;
    int error = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error) die("cannot run %s: %s", argv[0], strerror(error));
    return pid;
}

static struct supervisor start_supervisor(char **argv) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) die("pipe: %s", strerror(errno));
    struct supervisor s = { .pid = spawn(argv, in[0], out[1]), .stdin_fd = in[1] };
    running_supervisor = s.pid;
    close(in[0]);
    close(out[1]);
    s.out.fd = out[0];
    return s;
}

static int finish_supervisor(struct supervisor *s) {
    write_string(s->stdin_fd, "terminate all\n");
    close(s->stdin_fd);
    int status;
    waitpid(s->pid, &status, 0);
    running_supervisor = -1;
    return status;
}

/* Reads records from the child ("KIND T") until one of `kind`; returns its T. */
static int64_t expect(struct line_reader *records, const char *kind) {
    char *line;
    size_t length = strlen(kind);
    while ((line = read_line(records))) {
        if (strncmp(line, kind, length) == 0 && line[length] == ' ') return atoll(line + length + 1);
    }
    die("the child stopped before recording '%s'", kind);
    return 0;
}

static void cycle(int count, const char *dir, int argc, char **argv) {
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/records-%d", dir, getpid());
    unlink(fifo);
    if (mkfifo(fifo, 0600)) die("mkfifo %s: %s", fifo, strerror(errno));
    struct line_reader records = { .fd = open(fifo, O_RDWR | O_CLOEXEC) };
    char *child = getenv("BENCH_CHILD");
    if (!child) die("BENCH_CHILD must name the bench-child program");
    char *args[argc + 8];
    int n = 0;
    for (int i = 0; i < argc; i++) args[n++] = argv[i];
    args[n++] = "--";
    args[n++] = child;
    args[n++] = "task";
    args[n++] = fifo;
    args[n] = NULL;
    struct supervisor s = start_supervisor(args);
    expect(&records, "fg");
    for (int i = 0; i < count; i++) {
        write_string(s.stdin_fd, "wait suspended timeout=5s\nstatus\n");
        usleep(3000); /* let the supervisor take the commands and go idle */
        int64_t t0 = now_ns();
        kill(s.pid, SIGUSR1);
        int64_t background = expect(&records, "bg");
        int64_t ended = expect(&records, "end");
        char *line = read_line(&s.out);
        int64_t reported = now_ns();
        if (!line || !strstr(line, "\"suspended\"")) die("expected a suspended status, got: %s", line ? line : "EOF");
        usleep(3000);
        int64_t t1 = now_ns();
        write_string(s.stdin_fd, "foreground\n");
        int64_t active = expect(&records, "fg");
        sample("event", background - t0);
        sample("suspend", reported - ended);
        sample("foreground", active - t1);
    }
    finish_supervisor(&s);
    unlink(fifo);
}

static void event(int count, const char *parked, const char *dir, int argc, char **argv) {
    char fifo[512], config[512], text[2048];
    snprintf(fifo, sizeof fifo, "%s/event-records-%d", dir, getpid());
    snprintf(config, sizeof config, "%s/event-%d.toml", dir, getpid());
    unlink(fifo);
    if (mkfifo(fifo, 0600)) die("mkfifo %s: %s", fifo, strerror(errno));
    struct line_reader records = { .fd = open(fifo, O_RDWR | O_CLOEXEC) };
    char *child = getenv("BENCH_CHILD");
    if (!child) die("BENCH_CHILD must name the bench-child program");
    int fd = open(config, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) die("open %s: %s", config, strerror(errno));
    snprintf(text, sizeof text, "[child.bench]\ncommand = [\"%s\", \"event\", \"%s\"]\nautostart = false\n", child, fifo);
    write_string(fd, text);
    close(fd);
    char *args[argc + 4];
    int n = 0;
    for (int i = 0; i < argc; i++) args[n++] = argv[i];
    args[n++] = "--config";
    args[n++] = config;
    args[n] = NULL;
    struct supervisor s = start_supervisor(args);
    char name[64];
    snprintf(name, sizeof name, "event-%s", parked);
    for (int i = 0; i < count; i++) {
        snprintf(text, sizeof text, "wait %s timeout=5s\nstatus\n", i == 0 ? "not-running" : parked);
        write_string(s.stdin_fd, text);
        char *line = read_line(&s.out);
        if (!line || !strstr(line, i == 0 ? "not-running" : parked)) die("expected %s, got: %s", parked, line ? line : "EOF");
        usleep(3000); /* let the supervisor go idle */
        int64_t t0 = now_ns();
        write_string(s.stdin_fd, "event bench push\n");
        sample(name, expect(&records, "ev") - t0);
    }
    finish_supervisor(&s);
    unlink(fifo);
    unlink(config);
}

/* Runs argv to its end; a command that fails ends the run, so its quick failure is never timed. */
static void run_to_end(char **argv) {
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    pid_t pid = spawn(argv, null, null);
    close(null);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("%s: exited with status 0x%x", argv[0], status);
}

static void write_run_script(const char *service) {
    char path[600];
    mkdir(service, 0755);
    snprintf(path, sizeof path, "%s/run", service);
    FILE *file = fopen(path, "w");
    if (!file) die("create %s: %s", path, strerror(errno));
    fprintf(file, "#!/bin/sh\nexec sleep 100000\n");
    fclose(file);
    chmod(path, 0755);
}

static void pause_peer(int count, const char *kind, const char *dir, int argc, char **argv) {
    char service[512], pid_text[32], name[64];
    snprintf(service, sizeof service, "%s/%s-svc-%d", dir, kind, getpid());
    snprintf(name, sizeof name, "pause-%s", kind);
    struct supervisor s = { .pid = -1, .stdin_fd = -1 };
    char *pause_argv[4], *resume_argv[4];
    if (strcmp(kind, "runit") == 0 || strcmp(kind, "s6") == 0) {
        write_run_script(service);
        char *sup_argv[] = { strcmp(kind, "runit") == 0 ? "runsv" : "s6-supervise", service, NULL };
        s.pid = spawn(sup_argv, -1, -1);
        int runit = strcmp(kind, "runit") == 0;
        pause_argv[0] = runit ? "sv" : "s6-svc";
        pause_argv[1] = runit ? "pause" : "-p";
        resume_argv[0] = runit ? "sv" : "s6-svc";
        resume_argv[1] = runit ? "cont" : "-c";
        pause_argv[2] = resume_argv[2] = service;
        pause_argv[3] = resume_argv[3] = NULL;
    } else {
        char *args[argc + 4];
        int n = 0;
        for (int i = 0; i < argc; i++) args[n++] = argv[i];
        args[n++] = "--";
        args[n++] = "sleep";
        args[n++] = "100000";
        args[n] = NULL;
        s = start_supervisor(args);
        snprintf(pid_text, sizeof pid_text, "%d", s.pid);
        pause_argv[0] = "kill";
        pause_argv[1] = "-USR1";
        resume_argv[0] = "kill";
        resume_argv[1] = "-USR2";
        pause_argv[2] = resume_argv[2] = pid_text;
        pause_argv[3] = resume_argv[3] = NULL;
    }
    pid_t child = first_child(s.pid);
    usleep(100000);
    struct stop_probe probe = stop_probe(child);
    char direct[80];
    snprintf(direct, sizeof direct, "%s-kill", name);
    for (int i = 0; i < 2 * count; i++) {
        usleep(20000); /* past the kernel's 10 ms cgroup.events notification interval */
        /* supervise, odd turns: kill(2) from here, without the cost of running kill(1) */
        int syscall_only = s.stdin_fd >= 0 && i % 2 == 1;
        if (s.stdin_fd < 0 && i % 2 == 1) continue;
        int64_t t0 = now_ns();
        if (syscall_only) kill(s.pid, SIGUSR1);
        else run_to_end(pause_argv);
        wait_stopped(&probe, 1);
        sample(syscall_only ? direct : name, now_ns() - t0);
        run_to_end(resume_argv);
        wait_stopped(&probe, 0);
    }
    int status;
    if (s.stdin_fd >= 0) {
        finish_supervisor(&s);
    } else {
        kill(s.pid, SIGTERM);
        waitpid(s.pid, &status, 0);
        kill(child, SIGKILL);
        char path[600];
        snprintf(path, sizeof path, "rm -rf '%s'", service);
        if (system(path)) {}
    }
}

static void startup(int count, char **argv) {
    for (int i = 0; i < count; i++) {
        int64_t t0 = now_ns();
        run_to_end(argv);
        sample("startup", now_ns() - t0);
    }
}

static void read_status_lines(struct supervisor *s, int count, const char *state) {
    for (int i = 0; i < count; i++) {
        char *line = read_line(&s->out);
        if (!line) die("supervise ended before reporting %d children", count);
        if (!strstr(line, state)) die("expected %s, got: %s", state, line);
    }
}

/* Queues a `wait STATE all` and a `status`, sends `signal` to the supervisor, and samples
   `name`: the time until every one of the `count` children is reported in STATE. */
static void signal_all(struct supervisor *s, int count, int signal, const char *state, const char *name) {
    char text[80], quoted[40];
    snprintf(text, sizeof text, "wait %s all timeout=60s\nstatus\n", state);
    snprintf(quoted, sizeof quoted, "\"%s\"", state);
    write_string(s->stdin_fd, text);
    usleep(20000);
    int64_t t0 = now_ns();
    kill(s->pid, signal);
    read_status_lines(s, count, quoted);
    sample(name, now_ns() - t0);
}

static void scale(const char *config, const char *supervise, int count) {
    char *args[] = { (char *)supervise, "--config", (char *)config, NULL };
    int64_t t0 = now_ns();
    struct supervisor s = start_supervisor(args);
    write_string(s.stdin_fd, "wait active all timeout=60s\nstatus\n");
    read_status_lines(&s, count, "\"active\"");
    sample("scale-launch", now_ns() - t0);
    sample("scale-launch-cpu", cpu_ns(s.pid));
    usleep(200000);
    printf("sample scale-rss-kb %ld\n", rss_kb(s.pid));
    signal_all(&s, count, SIGUSR1, "suspended", "scale-freeze");
    signal_all(&s, count, SIGUSR2, "active", "scale-thaw");
    int64_t t1 = now_ns();
    finish_supervisor(&s);
    sample("scale-terminate", now_ns() - t1);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    prctl(PR_SET_TIMERSLACK, 1UL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, out_of_time);
    atexit(stop_running_supervisor);
    const char *limit = getenv("BENCH_TIME_LIMIT");
    alarm(limit ? (unsigned)atoi(limit) : 240);
    if (argc >= 5 && strcmp(argv[1], "cycle") == 0) cycle(atoi(argv[2]), argv[3], argc - 4, argv + 4);
    else if (argc >= 5 && strcmp(argv[1], "pause") == 0) pause_peer(atoi(argv[2]), argv[3], argv[4], argc - 5, argv + 5);
    else if (argc >= 6 && strcmp(argv[1], "event") == 0) event(atoi(argv[2]), argv[3], argv[4], argc - 5, argv + 5);
    else if (argc >= 4 && strcmp(argv[1], "startup") == 0) startup(atoi(argv[2]), argv + 3);
    else if (argc == 5 && strcmp(argv[1], "scale") == 0) scale(argv[2], argv[3], atoi(argv[4]));
    else die("usage: bench-driver cycle|event|pause|startup|scale ... (see the comment at the top of driver.c)");
    return 0;
}
