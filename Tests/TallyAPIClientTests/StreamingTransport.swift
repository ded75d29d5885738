import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime
import TallyService

/// The generated client's transport: `URLSession` through the service's `OutboundHTTPClient`,
/// which hands the response body over as it arrives. swift-openapi-urlsession's transport
/// buffers whole bodies on Linux, and an app reads `text/event-stream` event by event.
///
/// `timeout` is the longest wait for data (curl's, on each read): a streamed body has no
/// bound on its whole length.
struct StreamingTransport: ClientTransport {
    let client: OutboundHTTPClient
    let timeout: Duration

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        guard let path = request.path, let url = URL(string: baseURL.absoluteString + path) else {
            throw APIClientTestError("\(operationID): no URL from \(baseURL) and \(request.path ?? "no path")")
        }
        var outbound = URLRequest(url: url)
        outbound.httpMethod = request.method.rawValue
        outbound.timeoutInterval = TimeInterval(timeout.components.seconds)
        for field in request.headerFields { outbound.addValue(field.value, forHTTPHeaderField: field.name.rawName) }
        if let body { outbound.httpBody = try await Data(collecting: body, upTo: .max) }
        let response = try await client.start(outbound)
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let length = response.header("Content-Length").flatMap(Int64.init).map(HTTPBody.Length.known) ?? .unknown
        let chunks = response.body.map { ArraySlice($0) }
        return (HTTPResponse(status: .init(code: response.status), headerFields: fields), HTTPBody(chunks, length: length, iterationBehavior: .single))
    }
}
