import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// How a connection ends in a graceful shutdown: every request it carries gets its whole
/// answer, then it closes. The listening socket is already closed when the server tells its
/// connections to quiesce (new connections are refused); this handler takes that event
/// before Hummingbird's connection handler, which would close an idle connection at once.
///
/// - A request being read or answered is answered in full, with `Connection: close`, and the
///   connection closes after its response.
/// - A connection idle between two requests stays open for `grace`: a request the client had
///   already sent (on its way, or in the socket's buffer, when shutdown began) is read and
///   answered the same way. A kept-alive client thus never sees a bare close for a request
///   it sent before the server began to stop; past the grace, an idle connection closes.
final class ShutdownDrainHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let grace: TimeAmount
    /// Requests whose head arrived and whose response has not ended.
    private var answering = 0
    /// Whether shutdown began.
    private var draining = false
    /// The close of a connection idle when shutdown began, unless a request arrives first.
    private var idleClose: Scheduled<Void>?

    init(grace: TimeAmount) {
        self.grace = grace
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            answering += 1
            idleClose?.cancel()
            idleClose = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where draining:
            // The client must not send another request on this connection.
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            answering = max(0, answering - 1)
            if draining, answering == 0 {
                context.writeAndFlush(data, promise: promise)
                context.close(promise: nil)
            } else {
                context.write(data, promise: promise)
            }
        default:
            context.write(data, promise: promise)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // Not passed on: this handler decides when the connection closes.
        draining = true
        guard answering == 0 else { return }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        idleClose = context.eventLoop.scheduleTask(in: grace) {
            loopBound.value.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleClose?.cancel()
        idleClose = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleClose?.cancel()
        idleClose = nil
    }
}
