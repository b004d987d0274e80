// C the test helpers need: what the test bundle does as it loads (PythonPath.c), and glibc's
// GNU-only calls, which Swift's Glibc module does not declare (SpawnActions.c).
#ifndef C_SUPERVISE_TEST_SUPPORT_H
#define C_SUPERVISE_TEST_SUPPORT_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor from `from` up.
int supervise_test_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

#endif
