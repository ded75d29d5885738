import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection that is too slow to send a request: its head must arrive within
/// `header` of the connection opening (or of the previous response ending), its body within
/// `body` of its head. A client that trickles a header a byte at a time (slow loris), or that
/// announces a body and never sends it, holds a connection for at most that long. A request
/// being answered (a long import, a live event stream) is never timed: the deadlines cover
/// only what the client owes.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let header: TimeAmount
    private let body: TimeAmount
    private var deadline: Scheduled<Void>?
    /// Requests whose head arrived and whose response has not ended.
    private var answering = 0

    init(header: TimeAmount, body: TimeAmount) {
        self.header = header
        self.body = body
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(header, context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(header, context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            answering += 1
            arm(body, context)
        case .body:
            break
        case .end:
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            answering = max(0, answering - 1)
            // Waiting for the next request on a kept-alive connection: its head is owed.
            if answering == 0 { arm(header, context) }
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    private func arm(_ amount: TimeAmount, _ context: ChannelHandlerContext) {
        disarm()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: amount) {
            loopBound.value.close(promise: nil)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
