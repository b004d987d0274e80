#ifndef SUPERVISE_EVENTS_H
#define SUPERVISE_EVENTS_H

// The Linux event APIs the supervisor's loop is built on; Swift's Glibc module
// does not export them.
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <stdint.h>
#include <sys/prctl.h>

/// Adds, modifies or removes `fd` in `epfd`, tagging it with `token`.
static inline int _supervise_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = { .events = events, .data = { .u64 = token } };
    return epoll_ctl(epfd, op, fd, &event);
}

/// One ready descriptor, unpacked from the kernel's packed `epoll_event`.
typedef struct {
    uint32_t events;
    uint64_t token;
} _supervise_ready_event;

/// Waits for up to `capacity` events (timeout in ms, -1 forever); unpacks them into `out`.
static inline int _supervise_epoll_wait(int epfd, _supervise_ready_event *out, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        out[i].events = events[i].events;
        out[i].token = events[i].data.u64;
    }
    return count;
}

/// Makes orphaned descendants of this process its children instead of init's, so the
/// supervisor reaps them and can tell when a child's whole tree is gone.
static inline int _supervise_become_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

#endif
