// libcap (libcap-dev), for the supervisor's parent-side capability parsing and reporting only:
// nothing of it runs between fork and exec. <sys/prctl.h> for the PR_* numbers of cap_prctl.
#if __has_include(<sys/capability.h>)
#include <sys/capability.h>
#include <sys/prctl.h>
#else
#error "libcap's header <sys/capability.h> is missing: install libcap-dev (apt-get install libcap-dev, or scripts/setup-debian.sh)"
#endif
