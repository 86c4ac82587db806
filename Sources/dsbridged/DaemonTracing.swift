// SPDX-License-Identifier: MIT
import DSBridge
import DSBridgeCluster
import DSBridgeTracing
import DSBridgedSettings
import Logging
import OTel
import ServiceLifecycle

/// `--otel-endpoint`: spans of calls exported over OTLP/HTTP by swift-otel (README,
/// "Tracing"). The standard `OTEL_*` variables (service name, sampler, batch delay, headers)
/// apply on top.
enum DaemonTracing {
    /// The bridge's span sink and the services to run in the group, in this order (they
    /// stop in reverse: the batches are handed over, then the exporter sends what is left),
    /// or `nil` when tracing is off.
    static func make(_ settings: DaemonSettings, logger: Logger) throws -> (sink: any CallSpanSink, services: [any Service])? {
        guard let endpoint = settings.otelEndpoint else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "dsbridged"
        // Which node made a span: its cluster name (--node-id, else HOSTNAME:PORT).
        configuration.resourceAttributes["service.instance.id"] =
            settings.nodeID ?? ClusterNodeName.default(port: settings.server.port)
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.propagators = [.traceContext]
        configuration.diagnosticLogger = .custom(logger)
        configuration.traces.otlpExporter.endpoint = OTLPEndpoint.tracesURL(endpoint)
        configuration.traces.otlpExporter.protocol = settings.otelProtocol == "http/json" ? .httpJSON : .httpProtobuf
        // Spans come in batches of up to a BufferedCallSpans interval's worth (thousands at
        // full load): a queue that holds them, sent in large requests, every second.
        configuration.traces.batchSpanProcessor.maxQueueSize = 65_536
        configuration.traces.batchSpanProcessor.maxExportBatchSize = 8192
        configuration.traces.batchSpanProcessor.scheduleDelay = .seconds(1)
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        logger.notice("tracing: spans of calls go to \(OTLPEndpoint.tracesURL(endpoint)) (OTLP \(settings.otelProtocol))")
        let buffered = BufferedCallSpans(inner: TracingCallSpans(tracer: backend.factory))
        return (buffered, [backend.service, buffered])
    }
}
