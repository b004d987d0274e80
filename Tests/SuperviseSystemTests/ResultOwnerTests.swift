import Foundation
import Glibc
import Testing
@testable import SuperviseSystem
import SuperviseTestSupport

/// Under sudo, result files are given to the user who ran it (`SUDO_UID`, `SUDO_GID`).
@Suite(.timeLimit(.minutes(5))) struct ResultOwnerTests {
    let temporary = TemporaryDirectory(prefix: "supervise-owner")

    @Test func theSudoUserWhenRootOnly() {
        let sudo = ["PATH=/bin", "SUDO_UID=1001", "SUDO_GID=121", "SUDO_USER=runner"]
        #expect(ResultOwner.sudoUser(environment: sudo, effectiveUID: 0) == ResultOwner(uid: 1001, gid: 121))
        #expect(ResultOwner.sudoUser(environment: sudo, effectiveUID: 1001) == nil, "not root: the files are its own already")
    }

    @Test(arguments: [["SUDO_UID=1001"], ["SUDO_GID=121"], ["SUDO_UID=", "SUDO_GID=121"], ["SUDO_UID=-1", "SUDO_GID=121"],
                      ["SUDO_UID=10x", "SUDO_GID=121"], ["SUDO_UID=4294967296", "SUDO_GID=121"], ["SUDO_UID=0", "SUDO_GID=0"],
                      ["XSUDO_UID=1001", "SUDO_GID=121"]])
    func noOwnerWithoutBothNumbersOrForRoot(environment: [String]) {
        #expect(ResultOwner.sudoUser(environment: environment, effectiveUID: 0) == nil)
    }

    @Test func theWrittenFileIsTheOwnersAndStillReadableByItOnly() throws {
        try #require(getuid() == 0, "giving a file away needs root")
        let owner = ResultOwner(uid: 65534, gid: 65533)
        let path = temporary.file("run.json")
        let file = try ResultFile(path: path, owner: owner)
        guard case .success = file.write("{}\n") else { Issue.record("not written"); return }
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_uid == owner.uid && info.st_gid == owner.gid)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == ["run.json"])
    }

    /// Over an existing file of root's, the new file is the owner's too (it replaces it, never writes into it).
    @Test func replacingAFileGivesTheNewOneToTheOwner() throws {
        try #require(getuid() == 0, "giving a file away needs root")
        let path = temporary.file("run.json")
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        let file = try ResultFile(path: path, owner: ResultOwner(uid: 65534, gid: 65534))
        guard case .success = file.write("new\n") else { Issue.record("not written"); return }
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_uid == 65534)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
    }
}
