import Foundation
import Glibc
import Testing
@testable import SuperviseSystem
import SuperviseTestSupport

/// The temporary file a result is written through, and the sweep of those whose writers died
/// (issue 24, item 11): only our own name form, only a regular file of ours, only when unlocked.
@Suite(.timeLimit(.minutes(5))) struct ResultTemporaryTests {
    let temporary = TemporaryDirectory(prefix: "supervise-leftover")
    var directory: String { temporary.path }
    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() }

    func make(_ name: String, _ text: String = "{\"partial\":") throws {
        try text.write(toFile: directory + "/" + name, atomically: false, encoding: .utf8)
    }

    @Test func theNameCarriesTheDestinationAndAToken() {
        let name = ResultTemporary.name(for: "run.json", token: 0xabc)
        #expect(name == ".run.json.supervise-00000abc")
        #expect(ResultTemporary.matches(name, for: "run.json"))
        for other in [".run.json.abcdef", ".run.json.supervise-00000abG", ".run.json.supervise-00000ab",
                      ".run.json.supervise-00000abc0", ".run.xml.supervise-00000abc", "run.json.supervise-00000abc",
                      ".run.json.supervise-00000ABC", ".x.run.json.supervise-00000abc"] {
            #expect(!ResultTemporary.matches(other, for: "run.json"), "\(other)")
        }
    }

    /// A leftover of a dead writer goes; a live writer's (locked), a link, a FIFO, a directory,
    /// another user's file and every other name stay, and what a link points to is untouched.
    @Test func theCheckRemovesOnlyAnUnlockedLeftoverOfOurs() throws {
        try make(".run.json.supervise-0000dead")
        try make(".run.json.supervise-0000beef")
        let live = open(directory + "/.run.json.supervise-0000beef", O_RDONLY | O_CLOEXEC)
        defer { close(live) }
        #expect(flock(live, LOCK_EX | LOCK_NB) == 0)
        try make("victim", "secret\n")
        symlink(directory + "/victim", directory + "/.run.json.supervise-00000bad")
        mkfifo(directory + "/.run.json.supervise-0000f1f0", 0o600)
        mkdir(directory + "/.run.json.supervise-0000d1d0", 0o700)
        if getuid() == 0 {  // another user's file: only root can make one
            try make(".run.json.supervise-0000cafe")
            chown(directory + "/.run.json.supervise-0000cafe", 65534, 65534)
        }
        for name in [".run.json.abcdef", ".run.json.supervise-dead", ".other.json.supervise-0000dead", "run.json"] {
            try make(name)
        }
        let before = entries
        let file = try ResultFile(path: directory + "/run.json")
        #expect(file.removedLeftovers == 1)
        #expect(entries == before.filter { $0 != ".run.json.supervise-0000dead" }, "\(entries)")
        #expect(try String(contentsOfFile: directory + "/victim", encoding: .utf8) == "secret\n")
    }

    /// Under sudo the temporary file is given to the invoking user as it is made: a leftover of
    /// that user's is ours to remove, when the check gives files to that user.
    @Test(.enabled(if: getuid() == 0, "chown needs root")) func underSudoTheInvokingUsersLeftoverIsRemoved() throws {
        try make(".run.json.supervise-0000cafe")
        chown(directory + "/.run.json.supervise-0000cafe", 65534, 65534)
        #expect(try ResultFile(path: directory + "/run.json").removedLeftovers == 0)
        #expect(try ResultFile(path: directory + "/run.json", owner: ResultOwner(uid: 65534, gid: 65534)).removedLeftovers == 1)
        #expect(entries.isEmpty)
    }

    /// The writer holds its temporary file locked from its making: a sweep during the write (here
    /// a second check of the same destination) leaves it.
    @Test func aWriterHoldsItsTemporaryFileLocked() throws {
        let place = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(place) }
        let made = try ResultTemporary.create(in: place, for: "run.json").get()
        #expect(ResultTemporary.matches(made.name, for: "run.json"))
        let whileWriting = Result { try ResultFile(path: directory + "/run.json").removedLeftovers }
        close(made.fd)
        #expect(try whileWriting.get() == 0)
        #expect(entries == [made.name])
        #expect(try ResultFile(path: directory + "/run.json").removedLeftovers == 1, "once its writer is gone")
        #expect(entries.isEmpty)
    }
}
