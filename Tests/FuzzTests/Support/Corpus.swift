import Foundation

/// The committed seed inputs of one parser: `Corpus/<name>.txt`, one input per line, `\n` in
/// an input written as the two characters `\n` (TOML documents are whole files, see
/// ``documents(_:)``).
enum Corpus {
    static let directory = String(#filePath.dropLast("Support/Corpus.swift".count)) + "Corpus/"

    /// The lines of `Corpus/<name>.txt`, each one input, with `\t` `\n` and `\r` written as escapes.
    static func lines(_ name: String) -> [[UInt8]] {
        read(name + ".txt").split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .dropLast()
            .map { unescaped(Array($0)) }
    }

    /// The files in `Corpus/<name>/`, each one input, in name order.
    static func documents(_ name: String) -> [[UInt8]] {
        let folder = directory + name + "/"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return files.sorted().map { read(name + "/" + $0) }
    }

    private static func read(_ relativePath: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: directory + relativePath) else {
            fatalError("missing corpus file \(relativePath)")
        }
        return Array(data)
    }

    private static func unescaped(_ line: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < line.count {
            if line[index] == UInt8(ascii: "\\"), index + 1 < line.count {
                switch line[index + 1] {
                case UInt8(ascii: "n"): result.append(UInt8(ascii: "\n")); index += 2; continue
                case UInt8(ascii: "r"): result.append(UInt8(ascii: "\r")); index += 2; continue
                case UInt8(ascii: "t"): result.append(UInt8(ascii: "\t")); index += 2; continue
                default: break
                }
            }
            result.append(line[index])
            index += 1
        }
        return result
    }
}
