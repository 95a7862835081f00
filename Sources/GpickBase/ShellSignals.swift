import Glibc

/// The signals a shell gives a program it starts: none blocked, each at its default action.
/// A child otherwise inherits the starting thread's: a cooperative-pool thread blocks SIGINT,
/// SIGTERM, SIGHUP and more (so Ctrl-C would not stop the child), and a command that ends
/// gracefully on SIGINT ignores it. Foundation's Process starts children the same way.
public enum ShellSignals {
    /// posix_spawn attributes that give the child a shell's signals, for the length of `body`.
    public static func withSpawnAttributes<R>(_ body: (inout posix_spawnattr_t) -> R) -> R {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return body(&attributes)
    }

    /// Runs `exec` (an execv that replaces this process) with a shell's signals, which the new
    /// program keeps. Returns the errno of an exec that failed, with this thread's mask back.
    public static func exec(_ exec: () -> Void) -> Int32 {
        var none = sigset_t(), before = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &before)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { signal(s, SIG_DFL) }
        exec()
        let code = errno
        pthread_sigmask(SIG_SETMASK, &before, nil)
        return code
    }
}
