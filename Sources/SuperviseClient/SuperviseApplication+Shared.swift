import Synchronization

extension SuperviseApplication {
    private static let sharedInstance = Mutex<SuperviseApplication?>(nil)

    /// The process's application, made from the environment on first use (see
    /// ``init(delegate:backgroundEntryCompletion:)``). Touch it early in `main`, before
    /// starting other threads: taking the channels changes the environment.
    public static var shared: SuperviseApplication {
        sharedInstance.withLock { shared in
            if let shared { return shared }
            let application = SuperviseApplication()
            shared = application
            return application
        }
    }

    /// Makes ``shared`` with `delegate` set before any event is read, as `UIApplicationMain`
    /// does, so the delegate sees `did-finish-launching` and a launch in the background.
    /// If ``shared`` exists already, sets its delegate and completion instead.
    @discardableResult
    public static func launch(
        delegate: (any SuperviseApplicationDelegate)?,
        backgroundEntryCompletion: BackgroundEntryCompletion = .automatic
    ) -> SuperviseApplication {
        sharedInstance.withLock { shared in
            if let shared {
                shared.delegate = delegate
                shared.backgroundEntryCompletion = backgroundEntryCompletion
                return shared
            }
            let application = SuperviseApplication(delegate: delegate, backgroundEntryCompletion: backgroundEntryCompletion)
            shared = application
            return application
        }
    }
}
