#ifndef SUPERVISE_SOCKET_H
#define SUPERVISE_SOCKET_H

#include <sys/types.h>

/// Binds and listens on the Unix stream socket `path`, non-blocking and close-on-exec, made
/// with `mode` (the umask is set around bind, so it is never wider) and, when `gid` is not -1,
/// owned by that group. Nothing is done to the path by name: the socket is made in a private
/// directory (0700, next to `path`) where its group is set, then renamed to `path`, refusing
/// (EEXIST) to replace anything there. Returns the descriptor and the socket file's device and
/// inode, or -1 with errno (ENAMETOOLONG for a path over sun_path).
int _supervise_unix_listen(const char * _Nonnull path, mode_t mode, gid_t gid, dev_t * _Nonnull device,
                           ino_t * _Nonnull inode);

/// Accepts a pending connection on `fd`, non-blocking and close-on-exec (accept4). Returns the
/// descriptor, or -1 with errno (EAGAIN: none pending).
int _supervise_unix_accept(int fd);

/// Connects to the Unix stream socket `path`, blocking, close-on-exec; waiting at most
/// `timeout_ms` (when not negative) for a listener whose backlog is full. Returns the descriptor,
/// or -1 with errno (ECONNREFUSED: nobody listens there; ENOENT: no such socket; EAGAIN: the
/// timeout passed).
int _supervise_unix_connect(const char * _Nonnull path, long timeout_ms);

/// The peer's uid and gid (SO_PEERCRED), and whether `group` is one of its groups
/// (SO_PEERGROUPS; -1 for none). Returns 0, or -1 with errno.
int _supervise_peer_credentials(int fd, uid_t * _Nonnull uid, gid_t * _Nonnull gid, gid_t group,
                                int * _Nonnull in_group);

/// The process at the other end of the connected socket `fd` (SO_PEERCRED): for a client's
/// end, the one that listened. 0 when that process is not in this PID namespace; -1 with errno.
pid_t _supervise_peer_pid(int fd);

#endif
