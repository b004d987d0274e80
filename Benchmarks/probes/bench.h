/* Shared helpers for the benchmark probes: CLOCK_MONOTONIC in ns, checked I/O, line reading. */
#ifndef SUPERVISE_BENCH_H
#define SUPERVISE_BENCH_H
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((unused)) static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "probe: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

__attribute__((unused)) static void write_all(int fd, const void *data, size_t length) {
    const char *bytes = data;
    while (length > 0) {
        ssize_t n = write(fd, bytes, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("write to fd %d: %s", fd, strerror(errno));
        bytes += n;
        length -= (size_t)n;
    }
}

__attribute__((unused)) static void write_string(int fd, const char *text) { write_all(fd, text, strlen(text)); }

/* A buffered line reader over one fd: returns the next line without its newline, or NULL at EOF. */
struct line_reader { int fd; char buffer[65536]; size_t start, end; };

__attribute__((unused)) static char *read_line(struct line_reader *r) {
    for (;;) {
        char *newline = memchr(r->buffer + r->start, '\n', r->end - r->start);
        if (newline) {
            char *line = r->buffer + r->start;
            *newline = 0;
            r->start = (size_t)(newline - r->buffer) + 1;
            return line;
        }
        if (r->start > 0) {
            memmove(r->buffer, r->buffer + r->start, r->end - r->start);
            r->end -= r->start;
            r->start = 0;
        }
        if (r->end == sizeof r->buffer) die("line too long on fd %d", r->fd);
        ssize_t n = read(r->fd, r->buffer + r->end, sizeof r->buffer - r->end);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return NULL;
        r->end += (size_t)n;
    }
}

/* One measured sample, in the format the harness parses: "sample FIGURE NANOSECONDS". */
__attribute__((unused)) static void sample(const char *figure, int64_t ns) {
    printf("sample %s %lld\n", figure, (long long)ns);
}
#endif
