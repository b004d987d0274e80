#include "supervise_shims.h"

#include <stddef.h>

static int saved_count;
static char * const *saved_arguments;

/// glibc calls an executable's constructors with main's `argc`, `argv` and `envp`. Swift's
/// `CommandLine.arguments` on Linux instead finds the argument vector through
/// `/proc/self/maps`, and is empty where `/proc` is not mounted (a bare chroot).
__attribute__((constructor))
static void _supervise_save_arguments(int count, char **arguments, char **environment) {
    (void)environment;
    saved_count = count;
    saved_arguments = arguments;
}

char * _Nullable const * _Nullable _supervise_arguments(int * _Nonnull count) {
    *count = saved_count;
    return saved_arguments;
}
