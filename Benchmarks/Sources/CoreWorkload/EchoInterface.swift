// SPDX-License-Identifier: MIT
import DSBridge

/// The interface the benchmarks call: DSBridge's echo plus a typed variant.
@Exposed
public struct BenchEchoAPI: Sendable {
    public init() {}

    /// Any JSON back, unchanged (DSBridge's `echo.syn`).
    func syn(_ value: JSONValue) -> JSONValue {
        value
    }

    /// `syn` marked `@nonblocking`: runs on the thread that hands the frame over.
    @nonblocking
    func fast(_ value: JSONValue) -> JSONValue {
        value
    }

    /// A `Codable` parameter and result: decoded from JSON and encoded back.
    func user(_ user: BenchUser) -> BenchUser {
        user
    }

    /// One completion with the value.
    func asyn(_ value: JSONValue, handler: (JSONValue) -> Void) {
        handler(value)
    }
}
