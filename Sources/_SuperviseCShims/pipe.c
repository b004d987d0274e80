#define _GNU_SOURCE 1

#include "supervise_shims.h"

#include <unistd.h>

int _supervise_pipe2(int fds[_Nonnull 2], int flags) {
    return pipe2(fds, flags);
}
