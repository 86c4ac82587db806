// SPDX-License-Identifier: MIT

/// Where OTLP/HTTP spans go (`--otel-endpoint`).
public enum OTLPEndpoint {
    /// The traces URL of `endpoint`: `/v1/traces` added to a URL without a path (as the
    /// OpenTelemetry exporters do with `OTEL_EXPORTER_OTLP_ENDPOINT`); a URL with a path is
    /// used as it is.
    public static func tracesURL(_ endpoint: String) -> String {
        guard let schemeEnd = endpoint.range(of: "://") else { return endpoint }
        let rest = endpoint[schemeEnd.upperBound...]
        if let slash = rest.firstIndex(of: "/"), rest[slash...] != "/" { return endpoint }
        return (endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint) + "/v1/traces"
    }
}
