import Foundation

/// A fresh directory under the system's temporary directory (`mkdtemp`, so mode 0700 and a name no
/// other test shares), removed with everything in it by `remove()` or when the last reference goes.
///
/// Keep it alive as long as its files are used: hold it in a suite's property (one instance per
/// test), or pair a local with `defer { directory.remove() }`.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory, as a URL.
    public let url: URL

    /// The directory's path.
    public var path: String { url.path }

    /// Creates `<tmp>/<prefix>-XXXXXX`; stops the test process if the temporary directory can't be written.
    public init(prefix: String = "supervise-test") {
        let base = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        var template = Array((base + prefix + "-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            fatalError("mkdtemp in \(base): \(String(cString: strerror(errno)))")
        }
        url = URL(fileURLWithPath: String(cString: made), isDirectory: true)
    }

    deinit { remove() }

    /// The path of `name` inside the directory (nothing is created).
    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Removes the directory and everything in it; doing it twice is harmless.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
