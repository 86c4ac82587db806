// SPDX-License-Identifier: MIT

/// What is known about a page asking for a session, at `hello` or `POST /dsbridge/session`.
public struct SessionRequest: Sendable {
    /// The `auth` string of the `hello`, or the `X-DSBridge-Auth` header of the POST.
    public var auth: String?
    /// Headers of the upgrade or POST request, names in lower case (`cookie`,
    /// `authorization`, `user-agent`, `x-forwarded-for`, `origin`).
    public var headers: [String: String]
    /// The TCP peer address.
    public var peerAddress: String
    /// The token named by a resuming `hello` (`nil` for a new session).
    public var resumingToken: String?

    public init(auth: String?, headers: [String: String] = [:], peerAddress: String, resumingToken: String? = nil) {
        self.auth = auth
        self.headers = headers
        self.peerAddress = peerAddress
        self.resumingToken = resumingToken
    }
}

/// Decides whether a page may open (or resume) a session. Implement it to check a cookie,
/// a bearer token or a signed `auth` value; pass it to ``Bridge/init(configuration:registry:logger:lifecycle:executor:authenticator:)``.
/// Called off the transport's thread for every `hello` (resumes included) and every
/// `POST /dsbridge/session`; keep it quick, it delays that socket's processing.
/// A refusal closes the socket with 1008 (`auth refused`) or answers 401, and is logged
/// without the secret.
public protocol SessionAuthenticator: Sendable {
    func authorize(_ request: SessionRequest) -> Bool

    /// Tags for a new session this authenticator accepted (`user:42`, `room:7`): group
    /// calls reach every session with a tag, on every node. Called after
    /// ``authorize(_:)`` returned `true`, for new sessions only. Default: none.
    func tags(for request: SessionRequest) -> [String]
}

extension SessionAuthenticator {
    public func tags(for request: SessionRequest) -> [String] { [] }
}

/// The daemon's built-in authenticator: every request must carry the shared secret as
/// `auth` (compared in constant time).
public struct SharedSecretAuthenticator: SessionAuthenticator {
    private let secret: [UInt8]

    public init(secret: String) {
        self.secret = Array(secret.utf8)
    }

    public func authorize(_ request: SessionRequest) -> Bool {
        guard let auth = request.auth else { return false }
        return constantTimeEquals(Array(auth.utf8), secret)
    }
}
