// Leaves a Python version manager's shims off the test process's PATH when Debian's python3
// exists, before any test runs and before any thread exists (setenv is not safe once threads
// start processes): every process the tests start, by whatever helper, inherits it.
//
// The tests use Debian's python3 (scripts/setup-debian.sh installs PyYAML and gunicorn into it).
// On a machine whose PATH starts with pyenv's shims, each `python3` first ran pyenv's bash
// scripts, some 14 processes and 175 ms of CPU against Debian's 20 ms, and over a second each
// while the suite loads the machine (docs/testing.md).
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char shims[] = "/.pyenv/shims";

/// Whether the PATH entry of `length` bytes at `entry` is a pyenv shims directory.
static int isShims(const char *entry, size_t length) {
    size_t suffix = sizeof shims - 1;
    return length >= suffix && memcmp(entry + length - suffix, shims, suffix) == 0;
}

__attribute__((constructor)) static void leaveShimsOffPath(void) {
    const char *path = getenv("PATH");
    if (path == NULL || access("/usr/bin/python3", X_OK) != 0) return;
    char *kept = malloc(strlen(path) + 1);
    if (kept == NULL) return;
    size_t used = 0;
    int first = 1;
    for (const char *entry = path;; ) {
        const char *end = strchr(entry, ':');
        size_t length = end ? (size_t)(end - entry) : strlen(entry);
        if (!isShims(entry, length)) {
            if (!first) kept[used++] = ':';
            memcpy(kept + used, entry, length);
            used += length;
            first = 0;
        }
        if (end == NULL) break;
        entry = end + 1;
    }
    kept[used] = '\0';
    setenv("PATH", kept, 1);
    free(kept);
}
