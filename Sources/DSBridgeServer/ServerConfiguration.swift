// SPDX-License-Identifier: MIT

/// Where and how the server listens (PROTOCOL.md 1, 7).
public struct ServerConfiguration: Sendable {
    /// Address of the page listener (`--host`, default `127.0.0.1`).
    public var host: String = "127.0.0.1"
    /// Port of the page listener; 0 picks a free one (`--port`, default 8080).
    public var port: Int = 8080
    /// Address of the admin listener (`--admin-host`, default `127.0.0.1`).
    public var adminHost: String = "127.0.0.1"
    /// Port of the admin listener; 0 picks a free one (`--admin-port`, default 8081).
    public var adminPort: Int = 8081
    /// The admin API's bearer token (`--admin-token`); `nil` disables the admin API except `/healthz`.
    public var adminToken: String? = nil
    /// Folder of the static files (`--web-root`, default `web`).
    public var webRoot: String = "web"
    /// PEM certificate (chain) for TLS on the page listener (`--tls-cert`); with
    /// ``tlsKeyPath`` the listener serves `https://` and `wss://` only.
    public var tlsCertificatePath: String? = nil
    /// PEM private key of ``tlsCertificatePath`` (`--tls-key`).
    public var tlsKeyPath: String? = nil
    /// Page origins allowed besides the server's own (`--allowed-origin`).
    public var allowedOrigins: [String] = []
    /// Largest HTTP request head (request line and headers) accepted, in bytes
    /// (`--max-header-bytes`, default 8192, 1024...65535). A larger head is refused by
    /// libwebsockets' parser: the connection is closed without an answer.
    public var maxHeaderBytes: Int = 8_192
    /// How long a request body may take to arrive after the headers (`--body-timeout-ms`,
    /// default 10000); later, the request is answered 408 and closed.
    public var bodyTimeoutMs: Int = 10_000
    /// Proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`, exact
    /// addresses): sessions per address and logs then use the client's address.
    public var trustedProxies: [String] = []
    /// How long a drain waits for in-flight work before cutting (`--drain-ms`, default 10000).
    public var drainMs: Int = 10_000
    /// Whether ``BridgeServer/start()`` sets the process' soft `RLIMIT_NOFILE` to fit
    /// `maxSessions` (``DescriptorLimit``; default true). An embedding app that manages the
    /// limit itself turns this off.
    public var managesDescriptorLimit = true

    public init() {}

    /// Whether `text` is a literal IPv4 or IPv6 address (what `trustedProxies` holds).
    public static func isIPAddress(_ text: String) -> Bool { ClientAddress.isIPAddress(text) }
}
