// A confined child's uid, gids and capabilities, applied between fork and exec with raw system
// calls: glibc's setuid/setgroups wrappers signal every thread of the process (setxid), and
// libcap allocates; neither is safe in the child of a multi-threaded supervisor.

#define _GNU_SOURCE 1

#include "supervise_shims.h"

#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Records `step` as the one that failed and returns its errno.
static int failed(int step, int *failed_step) {
    *failed_step = step;
    return errno;
}

/// Drops every capability up to `last` that `keep` does not have from the bounding set.
static int drop_bounding_set(uint64_t keep, int last) {
    for (int capability = 0; capability <= last && capability < 64; capability++) {
        if ((keep >> capability) & 1) {
            continue;
        }
        if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0) {
            return -1;
        }
    }
    return 0;
}

/// Sets permitted, effective and inheritable to exactly `capabilities` (capset, version 3).
static int set_capabilities(uint64_t capabilities) {
    struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    for (int word = 0; word < _LINUX_CAPABILITY_U32S_3; word++) {
        uint32_t bits = (uint32_t)(capabilities >> (32 * word));
        data[word].effective = bits;
        data[word].permitted = bits;
        data[word].inheritable = bits;
    }
    return (int)syscall(SYS_capset, &header, data);
}

/// Raises every capability of `capabilities` in the ambient set, which exec keeps for a non-root uid.
static int raise_ambient(uint64_t capabilities, int last) {
    for (int capability = 0; capability <= last && capability < 64; capability++) {
        if (((capabilities >> capability) & 1)
            && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, capability, 0, 0) != 0) {
            return -1;
        }
    }
    return 0;
}

int _supervise_apply_credentials(const _supervise_credentials *credentials, int *failed_step) {
    // Groups first: once the uid is not 0, CAP_SETGID is gone.
    if (credentials->change_identity) {
        if (syscall(SYS_setgroups, (size_t)credentials->group_count, credentials->groups) != 0) {
            return failed(_SUPERVISE_STEP_GROUPS, failed_step);
        }
        if (syscall(SYS_setresgid, credentials->gid, credentials->gid, credentials->gid) != 0) {
            return failed(_SUPERVISE_STEP_GID, failed_step);
        }
    }
    // The bounding set needs CAP_SETPCAP, which the uid change takes away.
    if (drop_bounding_set(credentials->capabilities, credentials->last_capability) != 0) {
        return failed(_SUPERVISE_STEP_BOUNDING_SET, failed_step);
    }
    if (credentials->change_identity) {
        // Without keep-caps, leaving uid 0 empties the permitted set the ambient ones come from.
        if (credentials->capabilities != 0 && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) {
            return failed(_SUPERVISE_STEP_KEEP_CAPABILITIES, failed_step);
        }
        if (syscall(SYS_setresuid, credentials->uid, credentials->uid, credentials->uid) != 0) {
            return failed(_SUPERVISE_STEP_UID, failed_step);
        }
    }
    // Also empties the inheritable set, which no uid change touches.
    if (set_capabilities(credentials->capabilities) != 0) {
        return failed(_SUPERVISE_STEP_CAPABILITIES, failed_step);
    }
    // Ambient capabilities must be permitted and inheritable first.
    if (raise_ambient(credentials->capabilities, credentials->last_capability) != 0) {
        return failed(_SUPERVISE_STEP_AMBIENT, failed_step);
    }
    if (credentials->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        return failed(_SUPERVISE_STEP_NO_NEW_PRIVILEGES, failed_step);
    }
    return 0;
}
