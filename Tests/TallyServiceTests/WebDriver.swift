import Foundation
import NIOHTTP1

/// A headless Chromium driven through chromedriver's W3C WebDriver HTTP API: one chromedriver
/// process on a port it picks, one browser session. `close()` ends the session (which quits the
/// browser) and then chromedriver; call it on every path.
struct WebDriver {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The element reference key of the W3C protocol.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    let process: Process
    let port: Int
    let session: String
    let logPath: String

    /// The programs, or a failure that says how to get them.
    static func locate() throws -> (driver: String, browser: String) {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/lib/chromium"]
        func find(_ name: String) -> String? {
            path.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        guard let driver = find("chromedriver") else {
            throw Failure("chromedriver is not installed: run scripts/setup.sh (it installs Debian's chromium and chromium-driver); the dashboard is tested in a real browser")
        }
        guard let browser = find("chromium") ?? find("chromium-browser") else {
            throw Failure("chromium is not installed: run scripts/setup.sh (it installs Debian's chromium and chromium-driver); the dashboard is tested in a real browser")
        }
        return (driver, browser)
    }

    /// Starts chromedriver and a headless browser with a viewport of `width`×`height`.
    static func start(width: Int, height: Int, directory: String) async throws -> WebDriver {
        let (driver, browser) = try locate()
        let logPath = directory + "/chromedriver.log"
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else { throw Failure("cannot create \(logPath)") }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: driver)
        process.arguments = ["--port=0"]
        process.standardOutput = log
        process.standardError = log
        try process.run()
        // chromedriver says which port it took: "ChromeDriver was started successfully on port N."
        var port: Int?
        let deadline = ContinuousClock.now + .seconds(30)
        while port == nil {
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: "started successfully on port ") {
                port = Int(text[range.upperBound...].prefix { $0.isNumber })
            } else if !process.isRunning || ContinuousClock.now > deadline {
                stop(process)
                throw Failure("chromedriver did not start within 30 s: \(text)")
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let capabilities = #"{"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":{"binary":"\#(browser)","args":["--headless=new","--no-sandbox","--disable-gpu","--disable-dev-shm-usage","--hide-scrollbars","--force-device-scale-factor=1","--window-size=\#(width),\#(height)","--user-data-dir=\#(directory)/profile"]}}}}"#
        do {
            let created = try await call(port: port!, .POST, "/session", capabilities)
            guard let session = (created["value"] as? [String: Any])?["sessionId"] as? String else {
                throw Failure("no session: \(created)")
            }
            return WebDriver(process: process, port: port!, session: session, logPath: logPath)
        } catch {
            stop(process)
            throw error
        }
    }

    private init(process: Process, port: Int, session: String, logPath: String) {
        self.process = process
        self.port = port
        self.session = session
        self.logPath = logPath
    }

    /// Ends the session (the browser quits), then chromedriver.
    func close() async {
        _ = try? await Self.call(port: port, .DELETE, "/session/\(session)", nil)
        Self.stop(process)
    }

    /// Kills chromedriver and reaps it. SIGKILL: a child of the test process may inherit
    /// SIGTERM ignored, and Foundation's `waitUntilExit` waits on a run loop no one runs here.
    private static func stop(_ process: Process) {
        let pid = process.processIdentifier
        guard pid > 0 else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    /// One command over a connection of its own (`RawConnection`: chromedriver writes its
    /// header fields as `Content-Length:891`, which `URLSession` on Linux refuses to read).
    private static func call(port: Int, _ method: HTTPMethod, _ path: String, _ body: String?) async throws -> [String: Any] {
        let body = body ?? ""
        let request = "\(method.rawValue) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        let answer = try await RawConnection.with(port: port) { connection in
            try await connection.send(request)
            return try await withDeadline(seconds: 60, "WebDriver \(method) \(path)") { try await connection.response() }
        }
        let json = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]) ?? [:]
        guard answer.status == 200 else {
            throw Failure("WebDriver \(method) \(path): \(answer.status) \(answer.body.prefix(500))")
        }
        return json
    }

    /// A command of the session; its `value`.
    @discardableResult
    func command(_ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        let text = try body.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        return try await Self.call(port: port, method, "/session/\(session)\(path)", text)["value"]
    }

    func navigate(_ url: String) async throws { try await command(.POST, "/url", ["url": url]) }

    var title: String { get async throws { try await command(.GET, "/title") as? String ?? "" } }

    /// The element `selector` finds (CSS).
    func element(_ selector: String) async throws -> String {
        let value = try await command(.POST, "/element", ["using": "css selector", "value": selector]) as? [String: Any]
        guard let id = value?[Self.elementKey] as? String else { throw Failure("no element \(selector): \(String(describing: value))") }
        return id
    }

    /// Types `text` into an element as keystrokes (`\u{E007}` is Enter).
    func type(_ text: String, into selector: String) async throws {
        let id = try await element(selector)
        try await command(.POST, "/element/\(id)/value", ["text": text])
    }

    /// Runs `script` (a function body) in the page and answers its return value.
    func run(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command(.POST, "/execute/sync", ["script": script, "args": arguments])
    }

    /// The text of the first element `selector` finds, or "" when there is none.
    func text(_ selector: String) async throws -> String {
        try await run("const e = document.querySelector(arguments[0]); return e ? e.textContent : '';", [selector]) as? String ?? ""
    }

    /// Waits until `condition` (a script returning a boolean) holds in the page, checking every
    /// 50 ms; fails naming `what` after `seconds`.
    func wait(_ what: String, seconds: Int = 30, _ condition: String, _ arguments: [Any] = []) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try await run(condition, arguments) as? Bool != true {
            guard ContinuousClock.now < deadline else {
                let state = try? await run("return document.body.dataset.state + ' | ' + document.body.innerText.slice(0, 2000);")
                throw Failure("\(what) did not happen within \(seconds) s; the page: \(state ?? "?")")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// A screenshot of the viewport, as PNG bytes.
    func screenshot() async throws -> [UInt8] {
        guard let base64 = try await command(.GET, "/screenshot") as? String, let data = Data(base64Encoded: base64) else {
            throw Failure("no screenshot")
        }
        return Array(data)
    }
}
