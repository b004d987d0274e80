import SuperviseSystemCall
import Glibc
import SystemPackage

/// Starts OS threads that run to completion on their own.
enum DetachedThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread.
    static func start(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            fatalError("SuperviseClient: could not start a thread (\(Errno(rawValue: result).sentenceText)); raise the process's thread limit")
        }
        pthread_detach(thread)
    }
}
