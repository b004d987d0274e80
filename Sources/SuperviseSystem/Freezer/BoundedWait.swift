import Glibc

/// Polls `condition` every 5 ms until it holds or `timeout` passes; whether it held.
/// For teardown and sweeping only, which must end quickly: the event loop never waits like this.
func waitBriefly(upTo timeout: Duration, until condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        if clock.now >= deadline { return false }
        usleep(5_000)
    }
    return true
}
