import Glibc

/// A NULL-terminated array of C strings (argv, envp), allocated in the supervisor before the
/// fork: the forked child may not allocate.
struct CStringArray: ~Copyable {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    init(_ strings: [String]) {
        count = strings.count
        pointers = .allocate(capacity: count + 1)
        for (index, string) in strings.enumerated() {
            pointers[index] = strdup(string)
        }
        pointers[count] = nil
    }

    deinit {
        for index in 0..<count {
            free(pointers[index])
        }
        pointers.deallocate()
    }
}
