/* An aware child for supervise: speaks protocol 1 and timestamps what it reads.
 *
 *   bench-child MODE RECORDS [COUNT]
 *
 * Records "KIND NANOSECONDS" lines to the file RECORDS (a FIFO the driver reads):
 *   bg T      when it read did-enter-background
 *   end T     just before writing its last `end` (then it may be frozen at once)
 *   fg T      when it read did-become-active
 *   expire T  when it read `expire`
 *   ev T      when it read `event SEQ KIND` (mode `event`)
 * MODE:
 *   task    on did-enter-background: begin a task, done, record, end the task
 *   hold    on did-enter-background: begin a task and done; end it only on expire
 *   ignore  like hold, but never end: killed at the limit
 *   event   on did-enter-background: begin a task and done; on `event`: record, end the
 *           task (so the task keeps it running until the entry's event is read)
 *   flood   in the foreground, write COUNT begin/end pairs, then an unknown request,
 *           and record "flood COUNT T0 T1" when its `error` answer is read; then exit
 */
#include "bench.h"

static int events_fd = 3, requests_fd = 4, records_fd = -1;

static void record(const char *kind, int64_t t) {
    char line[64];
    int n = snprintf(line, sizeof line, "%s %lld\n", kind, (long long)t);
    write_all(records_fd, line, (size_t)n);
}

static void flood(long count, struct line_reader *events) {
    static char chunk[60000];
    size_t used = 0;
    int64_t start = now_ns();
    for (long i = 0; i < count; i++) {
        used += (size_t)sprintf(chunk + used, "begin f%ld\nend f%ld\n", i, i);
        if (used > sizeof chunk - 64) {
            write_all(requests_fd, chunk, used);
            used = 0;
        }
    }
    write_all(requests_fd, chunk, used);
    write_string(requests_fd, "bench-marker\n");
    char *line;
    while ((line = read_line(events))) {
        if (strncmp(line, "error ", 6) == 0) break;
    }
    int64_t end = now_ns();
    char text[128];
    int n = snprintf(text, sizeof text, "flood %ld %lld %lld\n", count, (long long)start, (long long)end);
    write_all(records_fd, text, (size_t)n);
}

int main(int argc, char **argv) {
    if (argc < 3) die("usage: bench-child task|hold|ignore|flood RECORDS [COUNT]");
    const char *mode = argv[1];
    const char *value;
    if ((value = getenv("SUPERVISE_EVENTS_FD"))) events_fd = atoi(value);
    if ((value = getenv("SUPERVISE_REQUESTS_FD"))) requests_fd = atoi(value);
    records_fd = open(argv[2], O_WRONLY | O_CLOEXEC);
    if (records_fd < 0) die("open %s: %s", argv[2], strerror(errno));
    write_string(requests_fd, "hello 1\n");
    struct line_reader events = { .fd = events_fd };
    if (strcmp(mode, "flood") == 0) {
        flood(argc > 3 ? atol(argv[3]) : 1000000, &events);
        return 0;
    }
    long task = 0;
    char *line;
    while ((line = read_line(&events))) {
        int64_t t = now_ns();
        if (strncmp(line, "did-enter-background ", 21) == 0) {
            long seq = atol(line + 21);
            char text[96];
            task++;
            snprintf(text, sizeof text, "begin t%ld\ndone %ld\n", task, seq);
            write_string(requests_fd, text);
            record("bg", t);
            if (strcmp(mode, "task") == 0) {
                snprintf(text, sizeof text, "end t%ld\n", task);
                record("end", now_ns());
                write_string(requests_fd, text);
            }
        } else if (strncmp(line, "event ", 6) == 0 && strcmp(mode, "event") == 0) {
            record("ev", t);
            char text[96];
            snprintf(text, sizeof text, "end t%ld\n", task);
            write_string(requests_fd, text);
        } else if (strcmp(line, "did-become-active") == 0) {
            record("fg", t);
        } else if (strncmp(line, "expire ", 7) == 0) {
            record("expire", t);
            if (strcmp(mode, "ignore") != 0) {
                char text[96];
                snprintf(text, sizeof text, "end %s\n", line + 7);
                write_string(requests_fd, text);
            }
        } else if (strncmp(line, "will-terminate", 14) == 0) {
            return 0;
        }
    }
    return 0;
}
