// SPDX-License-Identifier: MIT
import Metrics

/// The cluster's metrics (`/metrics` of each node): whether Redis is reachable, takeovers,
/// late messages passed on, journal writes that failed.
struct ClusterMetrics: Sendable {
    /// 1 while the node reaches Redis, 0 while it does not.
    let redisUp = Gauge(label: "dsbridge_cluster_redis_up")
    /// Sessions this node took over from another node (a resume elsewhere).
    let takeovers = Counter(label: "dsbridge_cluster_takeovers_total")
    /// Messages this node produced for sessions that had moved away, passed to their owner.
    let lateMessages = Counter(label: "dsbridge_cluster_late_messages_total")
    /// Journal batches that could not be written (the sessions went on unjournaled).
    let journalFailures = Counter(label: "dsbridge_cluster_journal_failures_total")
}
