import Foundation
import SuperviseTestSupport

/// A PNG's pixels as RGB, decoded by python3 (zlib and the five PNG filters: Foundation has no image
/// decoder on Linux). 8-bit RGB or RGBA, not interlaced: what Chromium's `--screenshot` writes.
struct Screenshot {
    var width: Int
    var height: Int
    /// Row by row, three bytes a pixel.
    var rgb: [UInt8]

    struct DecodeError: Error, CustomStringConvertible { var description: String }

    static let decoder = #"""
        import struct, sys, zlib
        data = open(sys.argv[1], "rb").read()
        if data[:8] != b"\x89PNG\r\n\x1a\n": sys.exit("not a PNG")
        pos, idat = 8, b""
        while pos < len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            pos += 12 + length
            if kind == b"IHDR": width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            elif kind == b"IDAT": idat += body
        if depth != 8 or ctype not in (2, 6) or interlace: sys.exit("unsupported PNG: depth %d, colour type %d" % (depth, ctype))
        bpp = 3 if ctype == 2 else 4
        raw, stride, out, prev, i = zlib.decompress(idat), width * bpp, bytearray(), bytearray(width * bpp), 0
        for y in range(height):
            kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
            i += 1 + stride
            if kind == 2:
                line = bytearray((v + p) & 255 for v, p in zip(line, prev))
            elif kind:
                for x in range(stride):
                    a = line[x - bpp] if x >= bpp else 0
                    b = prev[x]
                    c = prev[x - bpp] if x >= bpp else 0
                    if kind == 1: line[x] = (line[x] + a) & 255
                    elif kind == 3: line[x] = (line[x] + ((a + b) >> 1)) & 255
                    else:
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            prev = line
            pixels = bytearray(line)
            if bpp == 4: del pixels[3::4]
            out += pixels
        sys.stdout.buffer.write(b"%d %d\n" % (width, height) + bytes(out))
        """#

    init(png path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.decoder, path]
        let output = Pipe.closedOnExec(), errors = Pipe.closedOnExec()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let newline = data.firstIndex(of: 0x0A) else {
            throw DecodeError(description: "python3 could not decode \(path): \(message)")
        }
        let size = String(decoding: data[..<newline], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        guard size.count == 2 else { throw DecodeError(description: "python3 said no size for \(path)") }
        width = size[0]
        height = size[1]
        rgb = Array(data[(newline + 1)...])
        guard rgb.count == width * height * 3 else { throw DecodeError(description: "\(path): \(rgb.count) bytes for \(width)×\(height)") }
    }

    /// The columns, left to right, where `colour` (`#rrggbb`, each channel within 3) appears in `rows`.
    func columns(of colour: String, rows: Range<Int>, within columns: Range<Int>? = nil) -> [Int] {
        let wanted = stride(from: 1, to: 7, by: 2).map { offset in
            UInt8(colour.dropFirst(offset).prefix(2), radix: 16) ?? 0
        }
        let xs = (columns ?? 0..<width).clamped(to: 0..<width)
        return xs.filter { x in
            rows.clamped(to: 0..<height).contains { y in
                let start = (y * width + x) * 3
                return (0..<3).allSatisfy { abs(Int(rgb[start + $0]) - Int(wanted[$0])) <= 3 }
            }
        }
    }
}
