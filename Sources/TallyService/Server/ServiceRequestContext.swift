import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's core context and the address of the
/// peer (the failed-authentication limit counts by it).
struct ServiceRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's address; nil when the channel no longer knows it.
    let remoteAddress: SocketAddress?
    /// The request's id (`X-Request-ID`), set by ``RequestIdMiddleware``.
    var requestId = "-"

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The peer's IP address (without port): the unit of the failed-authentication limit.
    var peer: String {
        remoteAddress?.ipAddress ?? "unknown"
    }
}
