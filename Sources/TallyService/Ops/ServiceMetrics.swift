import CoreMetrics
import Prometheus
import Synchronization

/// The service's metrics, made through a Prometheus registry of its own (no global
/// `MetricsSystem.bootstrap`): requests by operation and status, their durations, commands
/// appended, open ledgers. `GET /metrics` prints them in Prometheus text form.
final class ServiceMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let counters = Mutex<[String: any CounterHandler]>([:])
    private let timers = Mutex<[String: any TimerHandler]>([:])
    private let openLedgers: any RecorderHandler

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [.milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5)]
        self.factory = factory
        openLedgers = factory.makeRecorder(label: "tally_open_ledgers", dimensions: [], aggregate: false)
    }

    /// Counts a finished request and records its duration.
    func request(operation: String, status: Int, nanoseconds: Int64) {
        let counterKey = operation + "|" + String(status)
        let counter = counters.withLock { counters in
            if let counter = counters[counterKey] { return counter }
            let counter = factory.makeCounter(label: "tally_http_requests_total", dimensions: [("operation", operation), ("status", String(status))])
            counters[counterKey] = counter
            return counter
        }
        counter.increment(by: 1)
        let timer = timers.withLock { timers in
            if let timer = timers[operation] { return timer }
            let timer = factory.makeTimer(label: "tally_http_request_duration_seconds", dimensions: [("operation", operation)])
            timers[operation] = timer
            return timer
        }
        timer.recordNanoseconds(nanoseconds)
    }

    /// Records how many ledgers are open.
    func openLedgers(_ count: Int) { openLedgers.record(Int64(count)) }

    /// The Prometheus text exposition.
    func exposition() -> [UInt8] { registry.emitToBuffer() }
}
