// SPDX-License-Identifier: MIT
import DSBridge
import Foundation

/// Every workload, in the order they are reported.
public enum Workloads {
    public static let all: [Workload] = decode + dispatch + encode + json + coding

    /// Page frame → messages (+ the call's `arg` envelope, where a string `arg` is parsed).
    public static let decode: [Workload] = [
        Workload(group: "decode", name: "call echo.syn, object arg") { .sync { decodeCall(Fixtures.callObjectFrame) } },
        Workload(group: "decode", name: "call echo.syn, string arg") { .sync { decodeCall(Fixtures.callStringFrame) } },
        Workload(group: "decode", name: "batch of 8 calls") { .sync { decodeCall(Fixtures.batchFrame) } },
    ]

    /// Method resolution and dispatch up to the outbound `ret` bytes.
    public static let dispatch: [Workload] = [
        Workload(group: "dispatch", name: "resolve echo.syn") {
            let registry = InterfaceRegistry()
            registry.addInterface(BenchEchoAPI(), by: "echo")
            return .sync { sink(try? CallRoute.resolve("echo.syn", in: registry)) }
        },
        Workload(group: "dispatch", name: "core pipeline echo.syn, no session") {
            let pipeline = CorePipeline()
            return .sync { sink(pipeline.echo(Fixtures.callObjectFrame)) }
        },
        Workload(group: "dispatch", name: "bridge echo.syn, object arg") {
            let driver = BridgeDriver()
            return .sync { sink(driver.callEcho()) }
        },
        Workload(group: "dispatch", name: "bridge echo.fast, object arg (@nonblocking, no thread hop)") {
            let driver = BridgeDriver()
            return .sync { sink(driver.callEchoFast()) }
        },
        Workload(group: "dispatch", name: "bridge echo.fast, the load test's call (64-byte string data)") {
            let driver = BridgeDriver()
            return .sync { sink(driver.callEchoFastLoadFrame()) }
        },
        Workload(group: "dispatch", name: "bridge 8 of the load test's calls in one read (8 frames)") {
            let driver = BridgeDriver()
            return .sync { sink(driver.callEchoFastLoadRead()) }
        },
        Workload(group: "dispatch", name: "bridge echo.syn, string arg") {
            let driver = BridgeDriver()
            return .sync { sink(driver.callEchoStringArg()) }
        },
        Workload(group: "dispatch", name: "bridge batch of 8 echo.syn") {
            let driver = BridgeDriver()
            return .sync { sink(driver.callEchoBatch()) }
        },
        Workload(group: "dispatch", name: "bridge echo.user, Codable") {
            let driver = BridgeDriver()
            return .sync { sink(driver.callUser()) }
        },
    ]

    /// Server messages → bytes, and the outbound log's batching.
    public static let encode: [Workload] = [
        Workload(group: "encode", name: "ret with payload") {
            .sync { sink(ServerMessage.ret(id: 1_234, result: .success(Fixtures.payload)).encoded(seq: 5_678)) }
        },
        Workload(group: "encode", name: "cb with payload") {
            .sync {
                sink(ServerMessage.cb(stub: "dscb12", payload: .value(Fixtures.payload, complete: false)).encoded(seq: 5_678))
            }
        },
        Workload(group: "encode", name: "outbound log, batch of 8 ret") {
            let log = LogBox()
            return .sync { sink(log.batch(of: 8)) }
        },
    ]

    /// Our JSON codec against Foundation's, on the same texts.
    public static let json: [Workload] =
        jsonPair("payload ~100 B", Fixtures.payloadText)
        + jsonPair("user ~250 B", Fixtures.userText)
        + jsonPair("100 users ~25 KiB", Fixtures.userListText)
        + typedPair("user ~250 B", Fixtures.user, Fixtures.userText)
        + typedPair("100 users ~25 KiB", Fixtures.userList, Fixtures.userListText)

    /// `Codable` ↔ ``JSONValue`` (what `@Exposed` methods with typed parameters use).
    public static let coding: [Workload] = [
        Workload(group: "coding", name: "decode JSONValue parameter") {
            .sync { sink(try? JSONValueCoding.decode(JSONValue.self, from: Fixtures.payload)) }
        },
        Workload(group: "coding", name: "decode String parameter") {
            let value = JSONValue.string("hello from the page")
            return .sync { sink(try? JSONValueCoding.decode(String.self, from: value)) }
        },
        Workload(group: "coding", name: "decode user") {
            let value = Fixtures.encode(Fixtures.user)
            return .sync { sink(try? JSONValueCoding.decode(BenchUser.self, from: value)) }
        },
        Workload(group: "coding", name: "encode user") {
            .sync { sink(try? JSONValueCoding.encode(Fixtures.user)) }
        },
        Workload(group: "coding", name: "decode 100 users") {
            let value = Fixtures.encode(Fixtures.userList)
            return .sync { sink(try? JSONValueCoding.decode(BenchUserList.self, from: value)) }
        },
        Workload(group: "coding", name: "encode 100 users") {
            .sync { sink(try? JSONValueCoding.encode(Fixtures.userList)) }
        },
    ]

    static func decodeCall(_ frame: [UInt8]) {
        do {
            let messages = try PageFrameDecoder().decode(frame: frame, helloSeen: true)
            for case .call(let call) in messages { sink(try CallArgument(raw: call.rawArg)) }
        } catch {
            fatalError("fixture frame refused: \(error)")
        }
    }

    /// Parse and write of untyped JSON: ours against `JSONSerialization`.
    static func jsonPair(_ label: String, _ text: String) -> [Workload] {
        let bytes = Array(text.utf8)
        let data = Data(text.utf8)
        return [
            Workload(group: "json", name: "parse \(label): JSONParser") {
                .sync { sink(try? JSONParser.parse(bytes)) }
            },
            Workload(group: "json", name: "parse \(label): JSONSerialization") {
                .sync { sink(try? JSONSerialization.jsonObject(with: data)) }
            },
            Workload(group: "json", name: "write \(label): JSONWriter") {
                let value = Fixtures.parse(text)
                return .sync { sink(JSONWriter.bytes(value)) }
            },
            Workload(group: "json", name: "write \(label): JSONSerialization") {
                let object = try? JSONSerialization.jsonObject(with: data)
                return .sync { sink(try? JSONSerialization.data(withJSONObject: object ?? [:])) }
            },
        ]
    }

    /// Bytes ↔ a `Codable` value: JSONDecoder/JSONEncoder against our parser/writer with
    /// ``JSONValueCoding``.
    static func typedPair<T: Codable & Sendable>(_ label: String, _ value: T, _ text: String) -> [Workload] {
        let bytes = Array(text.utf8)
        let data = Data(text.utf8)
        return [
            Workload(group: "json", name: "decode \(label): JSONDecoder") {
                let decoder = JSONDecoder()
                return .sync { sink(try? decoder.decode(T.self, from: data)) }
            },
            Workload(group: "json", name: "decode \(label): JSONParser + JSONValueCoding") {
                .sync { sink(try? JSONValueCoding.decode(T.self, from: JSONParser.parse(bytes))) }
            },
            Workload(group: "json", name: "encode \(label): JSONEncoder") {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                return .sync { sink(try? encoder.encode(value)) }
            },
            Workload(group: "json", name: "encode \(label): JSONValueCoding + JSONWriter") {
                .sync { sink(try? JSONWriter.bytes(JSONValueCoding.encode(value))) }
            },
        ]
    }
}

/// An outbound log that is filled and drained, as a session's is.
final class LogBox {
    private var log = OutboundLog()

    /// Appends `count` `ret`s, takes them as one frame, acknowledges them.
    func batch(of count: Int) -> [UInt8]? {
        for i in 0..<count {
            _ = try? log.append(.ret(id: Int64(i + 1), result: .success(Fixtures.payload)))
        }
        let frame = log.takeFrame()
        log.acknowledge(log.lastSeq)
        return frame
    }
}
