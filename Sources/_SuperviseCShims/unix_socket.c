#define _GNU_SOURCE 1

#include "supervise_socket.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int address(const char *path, struct sockaddr_un *out) {
    memset(out, 0, sizeof *out);
    out->sun_family = AF_UNIX;
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof out->sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(out->sun_path, path, length);
    return 0;
}

int _supervise_unix_listen(const char *path, mode_t mode, gid_t gid) {
    struct sockaddr_un addr;
    if (address(path, &addr) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    mode_t previous = umask(0777 & ~mode);
    int bound = bind(fd, (struct sockaddr *)&addr, sizeof addr);
    umask(previous);
    if (bound != 0 || (gid != (gid_t)-1 && chown(path, (uid_t)-1, gid) != 0) || chmod(path, mode) != 0
        || listen(fd, 128) != 0) {
        int saved = errno;
        if (bound == 0) unlink(path);
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int _supervise_unix_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int _supervise_unix_connect(const char *path) {
    struct sockaddr_un addr;
    if (address(path, &addr) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int result;
    do {
        result = connect(fd, (struct sockaddr *)&addr, sizeof addr);
    } while (result != 0 && errno == EINTR);
    if (result != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int _supervise_peer_credentials(int fd, uid_t *uid, gid_t *gid, gid_t group, int *in_group) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *gid = credentials.gid;
    *in_group = group != (gid_t)-1 && credentials.gid == group;
    if (group == (gid_t)-1 || *in_group) return 0;
    gid_t groups[1024];
    length = sizeof groups;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length) != 0) return 0;
    for (size_t index = 0; index < length / sizeof(gid_t); index++) {
        if (groups[index] == group) *in_group = 1;
    }
    return 0;
}

pid_t _supervise_peer_pid(int fd) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    return credentials.pid;
}
