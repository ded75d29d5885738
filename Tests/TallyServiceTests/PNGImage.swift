import Foundation

/// A PNG decoded to its pixels, enough to check a browser's screenshot: 8-bit truecolour
/// (RGB or RGBA), not interlaced, inflated and unfiltered here (no image library).
struct PNGImage {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = "not a PNG this reader takes: \(description)" }
    }

    let width: Int
    let height: Int
    /// Each pixel as 0xRRGGBB (alpha dropped).
    let pixels: [UInt32]

    init(_ bytes: [UInt8]) throws {
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw Malformed("no PNG signature") }
        var offset = 8
        var header: [UInt8] = []
        var compressed: [UInt8] = []
        func be32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        while offset + 12 <= bytes.count {
            let length = be32(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard offset + 12 + length <= bytes.count else { throw Malformed("chunk \(type) runs past the end") }
            let data = bytes[(offset + 8)..<(offset + 8 + length)]
            switch type {
            case "IHDR": header = Array(data)
            case "IDAT": compressed += data
            default: break
            }
            offset += 12 + length
            if type == "IEND" { break }
        }
        guard header.count == 13 else { throw Malformed("no IHDR") }
        width = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        height = Int(header[4]) << 24 | Int(header[5]) << 16 | Int(header[6]) << 8 | Int(header[7])
        let (depth, colourType, interlace) = (header[8], header[9], header[12])
        guard depth == 8, colourType == 2 || colourType == 6, interlace == 0 else {
            throw Malformed("bit depth \(depth), colour type \(colourType), interlace \(interlace)")
        }
        guard compressed.count > 2 else { throw Malformed("no image data") }
        var inflater = Inflater(Array(compressed.dropFirst(2)))  // the zlib header; the Adler-32 trailer is not checked
        let raw = try inflater.inflate()
        let channels = colourType == 6 ? 4 : 3
        let stride = width * channels
        guard raw.count >= height * (stride + 1) else { throw Malformed("\(raw.count) bytes for \(width)×\(height)") }
        var previous = [UInt8](repeating: 0, count: stride)
        var pixels: [UInt32] = []
        pixels.reserveCapacity(width * height)
        for row in 0..<height {
            let start = row * (stride + 1)
            let filter = raw[start]
            var line = Array(raw[(start + 1)...(start + stride)])
            for index in 0..<stride {
                let left = index >= channels ? Int(line[index - channels]) : 0
                let up = Int(previous[index])
                let upLeft = index >= channels ? Int(previous[index - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = left
                case 2: predictor = up
                case 3: predictor = (left + up) / 2
                case 4:
                    let estimate = left + up - upLeft
                    let (dl, du, dul) = (abs(estimate - left), abs(estimate - up), abs(estimate - upLeft))
                    predictor = dl <= du && dl <= dul ? left : (du <= dul ? up : upLeft)
                default: throw Malformed("filter \(filter) on row \(row)")
                }
                line[index] = UInt8(truncatingIfNeeded: Int(line[index]) + predictor)
            }
            for x in 0..<width {
                let p = x * channels
                pixels.append(UInt32(line[p]) << 16 | UInt32(line[p + 1]) << 8 | UInt32(line[p + 2]))
            }
            previous = line
        }
        self.pixels = pixels
    }

    /// How many pixels have each colour.
    var histogram: [UInt32: Int] {
        pixels.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }
}

/// DEFLATE (RFC 1951): stored, fixed and dynamic Huffman blocks, decoded canonically.
private struct Inflater {
    private let input: [UInt8]
    private var position = 0
    private var bitBuffer = 0
    private var bitCount = 0

    init(_ input: [UInt8]) { self.input = input }

    private struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int]

        init(lengths: [Int]) {
            symbols = [Int](repeating: 0, count: lengths.count)
            for length in lengths { counts[length] += 1 }
            counts[0] = 0
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            for (symbol, length) in lengths.enumerated() where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }
    }

    private static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private mutating func bits(_ count: Int) throws -> Int {
        while bitCount < count {
            guard position < input.count else { throw PNGImage.Malformed("the compressed data ends early") }
            bitBuffer |= Int(input[position]) << bitCount
            position += 1
            bitCount += 8
        }
        let value = bitBuffer & ((1 << count) - 1)
        bitBuffer >>= count
        bitCount -= count
        return value
    }

    private mutating func decode(_ huffman: Huffman) throws -> Int {
        var code = 0, first = 0, index = 0
        for length in 1...15 {
            code |= try bits(1)
            let count = huffman.counts[length]
            if code - count < first { return huffman.symbols[index + code - first] }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        throw PNGImage.Malformed("a Huffman code longer than 15 bits")
    }

    mutating func inflate() throws -> [UInt8] {
        var output: [UInt8] = []
        var last = false
        while !last {
            last = try bits(1) == 1
            switch try bits(2) {
            case 0:
                bitBuffer = 0
                bitCount = 0
                guard position + 4 <= input.count else { throw PNGImage.Malformed("a stored block's length is missing") }
                let length = Int(input[position]) | Int(input[position + 1]) << 8
                position += 4
                guard position + length <= input.count else { throw PNGImage.Malformed("a stored block runs past the end") }
                output += input[position..<(position + length)]
                position += length
            case 1:
                let literals = Huffman(lengths: (0..<288).map { $0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8 })
                try codes(literals, Huffman(lengths: [Int](repeating: 5, count: 30)), into: &output)
            case 2:
                let literalCount = try bits(5) + 257, distanceCount = try bits(5) + 1, codeCount = try bits(4) + 4
                var codeLengths = [Int](repeating: 0, count: 19)
                for index in 0..<codeCount { codeLengths[[16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15][index]] = try bits(3) }
                let lengthCode = Huffman(lengths: codeLengths)
                var lengths: [Int] = []
                while lengths.count < literalCount + distanceCount {
                    let symbol = try decode(lengthCode)
                    switch symbol {
                    case 0..<16: lengths.append(symbol)
                    case 16:
                        guard let previous = lengths.last else { throw PNGImage.Malformed("a repeat with nothing before it") }
                        lengths += [Int](repeating: previous, count: 3 + (try bits(2)))
                    case 17: lengths += [Int](repeating: 0, count: 3 + (try bits(3)))
                    default: lengths += [Int](repeating: 0, count: 11 + (try bits(7)))
                    }
                }
                try codes(Huffman(lengths: Array(lengths[..<literalCount])), Huffman(lengths: Array(lengths[literalCount...])), into: &output)
            default:
                throw PNGImage.Malformed("block type 3")
            }
        }
        return output
    }

    private mutating func codes(_ literals: Huffman, _ distances: Huffman, into output: inout [UInt8]) throws {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let index = symbol - 257
                guard index < Self.lengthBase.count else { throw PNGImage.Malformed("length symbol \(symbol)") }
                let length = Self.lengthBase[index] + (try bits(Self.lengthExtra[index]))
                let code = try decode(distances)
                guard code < Self.distanceBase.count else { throw PNGImage.Malformed("distance symbol \(code)") }
                let distance = Self.distanceBase[code] + (try bits(Self.distanceExtra[code]))
                guard distance <= output.count else { throw PNGImage.Malformed("a distance past the start") }
                let start = output.count - distance
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }
}
