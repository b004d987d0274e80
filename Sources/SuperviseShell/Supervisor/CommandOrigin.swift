/// Where a command came from, and so where its answer, its refusals and its hold go.
enum CommandOrigin {
    /// A line of standard input, numbered from 1: answers on stdout, refusals in the log, a
    /// failure ends a scripted run.
    case stdin(line: Int)
    /// A client of the control socket: answers and the outcome to it alone.
    case client(ControlClient)
}
