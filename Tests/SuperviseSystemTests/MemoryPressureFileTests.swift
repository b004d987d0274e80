import Testing
import Glibc
import SystemPackage
@testable import SuperviseSystem

/// Which file memory pressure is watched on, and what is said where it can't be.
@Suite struct MemoryPressureFileTests {
    @Test func theDefaultTriggerIsArmedOnTheOwnCgroupsFileElseTheSystems() throws {
        guard access(MemoryPressureFile.system, R_OK) == 0 else {
            print("skipped: MemoryPressureFileTests: \(MemoryPressureFile.system) is missing: this kernel has no PSI")
            return
        }
        let (trigger, path) = try MemoryPressureFile.trigger(stall: .milliseconds(150), window: .seconds(2)).get()
        #expect(path == MemoryPressureFile.path)
        #expect(path == MemoryPressureFile.system || path.hasSuffix("/memory.pressure"), "\(path)")
        #expect(trigger.read() != nil)
        #expect(MemoryPressureFile.diagnose(stall: .milliseconds(150), window: .seconds(2))
            == "usable: a trigger on \(path) (--memory-warnings, --reclaim-on-pressure)")
    }

    @Test func aRefusedTriggerSaysWhyForEachFileTriedAndThatTheBudgetStillWorks() {
        // A stall longer than its window: every kernel refuses it (EINVAL), or has no file (ENOENT).
        let said = MemoryPressureFile.diagnose(stall: .seconds(3), window: .seconds(2))
        #expect(said.hasPrefix("not usable: ") && said.hasSuffix("; --suspended-memory still works"), "\(said)")
        #expect(said.contains(MemoryPressureFile.system + ": "), "\(said)")
    }

    @Test func theKernelsRefusalsAreExplained() {
        #expect(MemoryPressureFile.explanation(.noSuchFileOrDirectory)
            == "the kernel has no pressure stall information (CONFIG_PSI)")
        #expect(MemoryPressureFile.explanation(.notSupported) == "pressure stall information is off (booted with psi=0)")
        #expect(MemoryPressureFile.explanation(.invalidArgument).contains("whole multiples of 2 s without CAP_SYS_RESOURCE"))
    }
}
