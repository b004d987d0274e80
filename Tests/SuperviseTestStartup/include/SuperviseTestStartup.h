// What the test bundle does before any test runs (Tests/SuperviseTestStartup/PythonPath.c).
// Nothing here is called: the work is done by a constructor when the bundle is loaded.
#ifndef SUPERVISE_TEST_STARTUP_H
#define SUPERVISE_TEST_STARTUP_H
#endif
