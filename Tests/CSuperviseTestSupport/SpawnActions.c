// glibc declares posix_spawn_file_actions_addclosefrom_np (2.34) only under _GNU_SOURCE.
#define _GNU_SOURCE
#include <spawn.h>
#include "CSuperviseTestSupport.h"

int supervise_test_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
