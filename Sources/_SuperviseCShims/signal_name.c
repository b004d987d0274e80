#define _GNU_SOURCE 1

#include "supervise_shims.h"

#include <string.h>

const char *_supervise_signal_abbreviation(int signal) {
    return sigabbrev_np(signal);
}
