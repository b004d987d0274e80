#include "supervise_shims.h"
