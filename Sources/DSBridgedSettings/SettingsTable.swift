// SPDX-License-Identifier: MIT

/// The settings table: one row per setting, the only place a setting is described. Its
/// flag (``SettingFlags``), environment variable and config key, the checks of its value,
/// `--help`, `--check-config`'s summary and the configuration reference (docs/CONFIGURATION.md)
/// (``SettingsReference``) are all derived from it. A new setting is a case of
/// ``SettingKey``, a row here, and an `@Option` in ``SettingFlags`` (the compiler asks for
/// each).
extension SettingKey {
    /// This setting's row.
    public var setting: Setting {
        switch self {
        case .host:
            .text(
                self, \.server.host,
                help: "Address of the page listener; a wildcard (0.0.0.0, ::) allows only loopback origins until --allowed-origin is given.")
        case .port:
            .integer(self, \.server.port, .port, help: "Port of the page listener (0 = any free port).")
        case .adminHost:
            .text(self, \.server.adminHost, help: "Address of the admin listener; keep it on loopback.")
        case .adminPort:
            .integer(self, \.server.adminPort, .port, help: "Port of the admin listener (0 = any free port).")
        case .adminToken:
            .optionalText(self, \.server.adminToken, secret: true, rule: .notEmpty, help: "Bearer token of the admin API; without it only /healthz answers.")
        case .webRoot:
            .text(
                self, \.server.webRoot, help: "Folder of static files served to pages (dsbridge.js lives here); relative paths start at the working directory.")
        case .allowedOrigin:
            .list(
                self, \.server.allowedOrigins, rule: .origin, whenEmpty: "(own origin only)",
                help:
                    "A page origin allowed besides the server's own, like https://app.example.com (repeatable; in the environment separated by spaces or commas)."
            )
        case .trustedProxy:
            .list(
                self, \.server.trustedProxies, rule: .ipAddress, whenEmpty: "(none)",
                help: "A proxy whose X-Forwarded-For names the client, for per-address limits and logs (repeatable, exact address).")
        case .authToken:
            .optionalText(self, \.bridge.authToken, secret: true, rule: .notEmpty, help: "Shared secret every hello must carry as auth (close 1008 otherwise).")
        case .tlsCert:
            .optionalText(self, \.server.tlsCertificatePath, help: "PEM certificate: serve https:// and wss:// directly (needs --tls-key).")
        case .tlsKey:
            .optionalText(self, \.server.tlsKeyPath, help: "PEM private key of --tls-cert.")
        case .heartbeatMs:
            .integer(
                self, \.bridge.heartbeatMs, .milliseconds,
                help: "Milliseconds of silence before a heartbeat (hb, and a WebSocket ping); a socket silent twice as long is dropped.")
        case .graceMs:
            .integer(self, \.bridge.graceMs, .milliseconds, help: "Milliseconds a session outlives its socket (a page may resume within them).")
        case .helloTimeoutMs:
            .integer(self, \.bridge.helloTimeoutMs, .milliseconds, help: "Milliseconds a socket may wait before hello (closed 4000 after).")
        case .afterTimeoutMs:
            .integer(self, \.bridge.afterTimeoutMs, .milliseconds, help: "Milliseconds a sync call waits for the socket calls named by X-DSBridge-After.")
        case .drainMs:
            .integer(
                self, \.server.drainMs, .millisecondsOrZero, help: "Milliseconds a drain (SIGTERM) waits for in-flight calls before cutting (0 = cut at once).")
        case .maxMessageBytes:
            .integer(self, \.bridge.maxMessageBytes, .positive(upTo: 1 << 30, "1 GiB"), help: "Largest accepted message in bytes (close 1009 above; HTTP 413).")
        case .maxDepth:
            .integer(
                self, \.bridge.maxDepth, .positive(upTo: 1_000, "deeper JSON would exhaust a thread's stack"),
                help: "Deepest JSON nesting accepted (close 4000 above).")
        case .maxCallsPerSecond:
            .integer(
                self, \.bridge.maxCallsPerSecond, .zeroOrMore(upTo: 10_000_000, "ten million"),
                help: "Calls a session may start per second (0 = no limit); faster calls wait.")
        case .maxHeaderBytes:
            .integer(
                self, \.server.maxHeaderBytes, .range(1024...65535),
                help: "Largest HTTP request head (request line and headers) in bytes; a larger one closes the connection.")
        case .bodyTimeoutMs:
            .integer(self, \.server.bodyTimeoutMs, .milliseconds, help: "Milliseconds an HTTP request body may take to arrive (408 after).")
        case .maxSessions:
            .integer(
                self, \.bridge.maxSessions, .positive(upTo: 100_000_000, "a hundred million"),
                help: "Sessions at most (close 4029, HTTP 429 above); a value the descriptor limit cannot hold is warned about at start.",
                defaultDescription: MaxSessionsDefault.description,
                show: { "\($0.bridge.maxSessions) (\($0.maxSessionsOrigin))" })
        case .maxSessionsPerAddress:
            .integer(
                self, \.bridge.maxSessionsPerAddress, .positive(upTo: 100_000_000, "a hundred million"),
                help: "Sessions at most per client address (close 4029, HTTP 429 above).")
        case .maxCallsPending:
            .integer(
                self, \.bridge.maxCallsPending, .positive(upTo: 10_000_000, "ten million"), help: "Pending socket calls per session before reading pauses.")
        case .maxAsyncCalls:
            .integer(self, \.bridge.maxAsyncCalls, .positive(upTo: 10_000_000, "ten million"), help: "Running async calls per session (overloaded above).")
        case .replayMaxMessages:
            .integer(
                self, \.bridge.replayMaxMessages, .positive(upTo: 100_000_000, "a hundred million"),
                help: "Unacknowledged messages kept per session (close 4008 above).")
        case .replayMaxBytes:
            .integer(self, \.bridge.replayMaxBytes, .positive(upTo: 1 << 36, "64 GiB"), help: "Unacknowledged bytes kept per session (close 4008 above).")
        case .memoryBudget:
            .integer(
                self, \.bridge.memoryBudget, .positive(upTo: 1 << 50, "1 PiB"),
                help: "Bytes held for all sessions together; above 90% of it the largest holders are ended, above it new sessions are refused.",
                defaultDescription: "a quarter of cgroup memory.max, else of physical memory",
                show: { "\($0.bridge.memoryBudget) (\($0.memoryBudgetOrigin))" })
        case .logLevel:
            .logLevel(self, \.logLevel, help: "Log level (swift-log).")
        case .redis:
            .optionalText(
                self, \.redisURL, rule: .notEmpty,
                help:
                    "Cluster mode: the Redis all nodes share, redis://HOST:PORT[/DB] or unix:///path (docs/CLUSTER.md); without it the daemon is one node alone and needs no Redis."
            )
        case .nodeID:
            .optionalText(
                self, \.nodeID, rule: .notEmpty,
                help: "This node's name in the cluster, unique among the nodes (default HOSTNAME:PORT); used only with --redis.")
        case .otelEndpoint:
            .optionalText(
                self, \.otelEndpoint, rule: .httpURL,
                help:
                    "Tracing: the OTLP/HTTP endpoint spans of calls are exported to, e.g. http://127.0.0.1:4318 (/v1/traces is added to a URL without a path); without it nothing is traced."
            )
        case .otelProtocol:
            .text(
                self, \.otelProtocol, rule: .otlpProtocol,
                help: "The OTLP/HTTP encoding of exported spans (used only with --otel-endpoint).")
        case .demo:
            .toggle(self, \.demo, help: "Register DSBridge's demo interfaces (they never call a page unasked).")
        case .demoTickMs:
            .integer(self, \.demoTickMs, .milliseconds, help: "Milliseconds between callProgress values in demo mode.")
        }
    }
}
