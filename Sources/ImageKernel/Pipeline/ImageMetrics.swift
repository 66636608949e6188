import Metrics

/// Counters the manager updates through swift-metrics. Create one only if you want metrics:
/// a manager without it (the default) touches no metrics API at all.
public struct ImageMetrics: Sendable {
    public let requests: Counter
    public let cacheHits: Counter
    public let failures: Counter
    public let storeFailures: Counter
    public let bytesLoaded: Counter
    /// Decodes run by the manager (shared work decodes once for all its callers).
    public let decodes: Counter
    /// Retries of failed loads (``RetryPolicy``); shared work retries once for all its callers.
    public let retries: Counter

    /// Counters named `<prefix>_requests_total`, `<prefix>_cache_hits_total`, …
    public init(prefix: String = "imagekernel") {
        requests = Counter(label: "\(prefix)_requests_total")
        cacheHits = Counter(label: "\(prefix)_cache_hits_total")
        failures = Counter(label: "\(prefix)_failures_total")
        storeFailures = Counter(label: "\(prefix)_cache_store_failures_total")
        bytesLoaded = Counter(label: "\(prefix)_bytes_loaded_total")
        decodes = Counter(label: "\(prefix)_decodes_total")
        retries = Counter(label: "\(prefix)_retries_total")
    }
}
