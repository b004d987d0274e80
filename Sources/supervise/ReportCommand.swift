import ArgumentParser
import SuperviseConfig
import SuperviseReport
import SuperviseShell
import SuperviseSystem

/// `supervise report FILE --html OUT`: draws a JSON report written by `--report` as a picture.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "supervise report",
        abstract: "Draw a run's JSON report as one self-contained HTML page.",
        usage: "supervise report FILE --html FILE",
        discussion: """
            The page holds an SVG timeline: a lane per child with its states, the
            window and the limit, its tasks, expire, kills and violations; hover shows
            the protocol lines. It is what --html FILE writes at the end of a run.

            EXIT STATUS
              0     the page was written
              1     the page could not be written
              2     a usage error, or FILE is unreadable, not JSON or not a report
            """)

    /// The largest report read: a report is bounded (docs/report.md) well below this.
    static let maxReportSize = 512 * 1024 * 1024

    @Argument(help: ArgumentHelp("A JSON report written by 'supervise --report'.", valueName: "file"))
    var report: String

    @Option(help: ArgumentHelp("Write the HTML page to this file.", valueName: "file"))
    var html: String

    mutating func run() throws {
        let destination: ResultFile
        do throws(ResultFileError) {
            destination = try ResultFile(path: html, owner: .ofThisProcess)
        } catch {
            throw ValidationError("--html '\(ControlEscapes.escaped(html))': \(error.message)")
        }
        if destination.isSame(asFileAt: report) {
            throw ValidationError("--html '\(ControlEscapes.escaped(html))' is the report it is drawn from; give the page a file of its own")
        }
        let bytes: [UInt8]
        switch RegularFile.read(report, maxSize: Self.maxReportSize) {
        case .success(let read): bytes = read
        case .failure(.system(let error)):
            throw ValidationError("cannot read the report '\(report)': \(error.sentenceText)")
        case .failure(.notRegular(let kind)):
            throw ValidationError("cannot read the report '\(report)': it is \(kind), not a regular file")
        case .failure(.tooLarge):
            throw ValidationError("cannot read the report '\(report)': it is over 512 MiB")
        }
        let page: String
        do {
            page = try HtmlReport.page(for: try JSONReader.parse(bytes))
        } catch let error as JSONSyntaxError {
            throw ValidationError("the report '\(report)' is not JSON: \(error.message)")
        } catch let error as HtmlReportError {
            throw ValidationError("the report '\(report)' can't be drawn: \(error.message)")
        }
        if case .failure(let error) = destination.write(page) {
            Descriptor.writeAll(Descriptor.standardError,
                                "supervise report: error: cannot write '\(ControlEscapes.escaped(html))': \(error.message)\n")
            CurrentProcess.exit(1)
        }
    }
}
