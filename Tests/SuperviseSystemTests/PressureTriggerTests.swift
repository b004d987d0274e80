import Testing
import Glibc
import SuperviseSystem

@Suite struct PressureTriggerTests {
    static let memory = "/proc/pressure/memory"

    @Test func aTriggerOnTheSystemsMemoryPressureIsTakenAndReadsItsFigures() throws {
        guard access(Self.memory, R_OK) == 0 else {
            print("skipped: PressureTriggerTests: \(Self.memory) is missing: this kernel has no PSI")
            return
        }
        let trigger = try PressureTrigger.open(path: Self.memory, scope: .some,
                                               stall: .milliseconds(150), window: .seconds(2)).get()
        let stall = try #require(trigger.read())
        #expect(stall.some.avg10 >= 0 && stall.some.avg10 <= 100)
        #expect(stall.full != nil)
    }

    @Test func aStallLongerThanItsWindowIsRefusedByTheKernel() throws {
        guard access(Self.memory, R_OK) == 0 else {
            print("skipped: PressureTriggerTests: \(Self.memory) is missing: this kernel has no PSI")
            return
        }
        let result = PressureTrigger.open(path: Self.memory, scope: .full,
                                          stall: .seconds(3), window: .seconds(2))
        #expect(throws: (any Error).self) { try result.get() }
    }

    @Test func aMissingFileIsAnError() {
        let result = PressureTrigger.open(path: "/proc/pressure/nothing", scope: .some,
                                          stall: .milliseconds(100), window: .seconds(2))
        #expect(throws: (any Error).self) { try result.get() }
    }
}
