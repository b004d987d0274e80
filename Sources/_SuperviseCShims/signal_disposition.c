#define _GNU_SOURCE 1

#include "supervise_shims.h"

#include <signal.h>
#include <stddef.h>

int _supervise_signal_is_ignored(int signal) {
    struct sigaction current;
    if (sigaction(signal, NULL, &current) != 0) {
        return 0;
    }
    return (current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_IGN;
}
