import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseSystem

@Suite(.timeLimit(.minutes(5))) struct ChildNameTests {
    @Test(arguments: [("./worker", "worker"), ("/usr/bin/python3", "python3"), ("my worker.sh", "my_worker.sh"),
                      ("all", "child"), ("/", "_"), ("naïve", "na_ve")])
    func defaultNameIsTheSanitizedBasename(command: String, expected: String) {
        #expect(ChildName.from(command: command) == expected)
        #expect(ChildName.isValid(ChildName.from(command: command)))
    }

    @Test func validNames() {
        #expect(ChildName.isValid("api-1.v2_x"))
        #expect(!ChildName.isValid("all"))
        #expect(!ChildName.isValid(""))
        #expect(!ChildName.isValid("a b"))
    }
}
