// libcap (libcap-dev), for the supervisor's parent-side capability parsing and reporting only:
// nothing of it runs between fork and exec.
#include <sys/capability.h>
