/// The part of `supervise --help` after the options: control, durations, exit status.
///
/// Every line is at most 79 columns: ArgumentParser wraps a longer one at the terminal's width
/// (80 when it can't tell), mid-sentence and without its indent.
enum HelpText {
    static let discussion = """
        Durations are seconds (2.5) or have a unit: 250ms, 2s, 1m.

        SUBCOMMANDS (each has its own --help)
          report FILE --html FILE   draw a JSON report as an HTML timeline
          ctl COMMAND [ARG...]      send a command to a supervisor's --socket
          doctor                    what supervise can do here: freezers, users

        SIGNALS
          SIGUSR1            move every child to the background
          SIGUSR2            bring every child to the foreground
          SIGTERM, SIGINT, SIGHUP
                             terminate every child gracefully, then exit
                             (a second one kills)
          SIGQUIT, SIGALRM, SIGWINCH, SIGPWR, SIGRTMIN+N, ...
                             forwarded to every child's main process
          SIGTSTP, SIGTTIN, SIGTTOU
                             Ctrl-Z: stop the running children, then supervise;
                             fg continues them (a terminal's foreground job only,
                             not as pid 1; all: docs/cli.md)
          --signal SIG=ACTION remaps one: ACTION is background, foreground,
          terminate, forward (to the main process), forward-group, forward-tree,
          stop or ignore (--signal USR1=forward --signal HUP=forward).

        COMMANDS ON STDIN (one per line; blank lines and # comments ignored)
          background [NAME]                     move to the background
          foreground [NAME]                     bring to the foreground
          event NAME KIND [TEXT]                resume in the background for an event
                                                (launches one not running, or exited)
          terminate [NAME]                      terminate gracefully
          status                                one JSON line per child on stdout
          wait STATE [NAME] [timeout=DURATION]  hold the next commands until STATE
          sleep DURATION                        hold the next commands
          signal NAME SIG [main|group|tree]     send SIG to the child's main process
          start [NAME]                          launch an exited or not-running one
          restart [NAME]                        terminate gracefully, then start
          log-level LEVEL                       change --log-level
          version                               print supervise's version
          schedules                             one JSON line per scheduled task
          run-task NAME ID                      run a pending scheduled task now
          NAME may be left out with one child, or be 'all'. End of input stops nothing.
          With --socket PATH, 'supervise ctl --socket PATH COMMAND' sends the same
          commands from another process (docs/cli.md, "Control from outside").
          STATE is active, background, suspended, exited or not-running.
          The run ends when every child has exited; a not-running child (config
          autostart = false, or reclaimed under --suspended-memory) keeps it up for
          events until end of input, as --keep-running does for every child.
          A command that can't be run as written (malformed, a NAME no child has,
          or none with several children) read from a pipe or file ends the run:
          no more commands, every child terminated gracefully, exit status 123.
          With --keep-going, or typed at a terminal, it is one error line and
          nothing else, as is a command a child's state refuses.

        EXIT STATUS (the first that applies)
          2     usage or config error; nothing was launched
          125   supervise itself failed (freezer unavailable, cgroup not made,
                fork or pipe refused by a limit, ...)
          124   a child was killed for an expiry, window or launch violation
                (--violation-status N changes the number)
          123   a 'wait' command timed out or could not be satisfied, or a
                command from a pipe or file could not be run as written
          N     the first non-zero status of a child: its code, or 128+signal;
                127 command not found, 126 not executable
          1     a scheduled task completed with failure
          0     otherwise

        The child reads lifecycle events on fd 3 ($SUPERVISE_EVENTS_FD) and writes
        requests to fd 4 ($SUPERVISE_REQUESTS_FD); see docs/protocol.md.
        """
}
