import Foundation
import NIOCore
import NIOPosix
@testable import TallyService

/// A raw HTTP/1.1 connection, request by request, as a client that keeps its connection alive
/// (`ShutdownTests`), or that speaks to a server whose header fields `URLSession` cannot read
/// (chromedriver writes `Content-Length:891`, no space after the colon: `WebDriver`). Reads
/// answers with a `Content-Length`, not chunked ones.
///
/// A connection lives for the body of ``with(port:_:)``, NIO's scoped form of an
/// asynchronous channel (`executeThenClose`): the channel is closed when the body returns or
/// throws, whatever path the test took.
final class RawConnection: @unchecked Sendable {
    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: String
        var text: String { "\(status) \(headers) \(body)" }
    }

    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var buffer: [UInt8] = []

    private init(inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// Runs `body` with a connection to `port` on the loopback address, closed after it.
    static func with<T>(port: Int, _ body: (RawConnection) async throws -> T) async throws -> T {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await body(RawConnection(inbound: inbound, outbound: outbound))
        }
    }

    /// Whether a new connection to the port is accepted now.
    static func canConnect(port: Int) async -> Bool {
        (try? await with(port: port) { _ in }) != nil
    }

    func send(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// The next whole response (its head, then `Content-Length` bytes of body); throws when
    /// the connection ends before it is whole.
    func response() async throws -> Answer {
        while true {
            if let end = Self.endOfHead(buffer) {
                let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                let bodyStart = end + 4
                if buffer.count - bodyStart >= length {
                    let status = Int(lines[0].split(separator: " ")[1]) ?? 0
                    let body = String(decoding: buffer[bodyStart..<(bodyStart + length)], as: UTF8.self)
                    buffer.removeFirst(bodyStart + length)
                    return Answer(status: status, headers: headers, body: body)
                }
            }
            guard let chunk = try await inbound.next() else {
                throw ServiceError("the connection closed before a whole response; received: \(String(decoding: buffer, as: UTF8.self))")
            }
            buffer += chunk.readableBytesView
        }
    }

    /// Where the head's closing blank line (CR LF CR LF) starts, if it has arrived.
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
    }

    /// Whether the server closed the connection (nothing more arrives).
    func closedByServer() async throws -> Bool {
        try await inbound.next() == nil
    }
}
