// SPDX-License-Identifier: MIT
import DSBridge
import Testing

@Suite("Session tags")
struct SessionTagTests {
    @Test("tags a group call could not name are left out; the rest are kept once, sorted")
    func unaddressableTagsAreLeftOut() throws {
        let bridge = Bridge(executor: ManualExecutor())
        let session = try bridge.createSession(peerAddress: "127.0.0.1", origin: nil)
        session.setTags(["room:7", "a/b", "", ".", "..", "user:42", "room:7", "..x", "a.b"])
        #expect(session.tags == ["..x", "a.b", "room:7", "user:42"])
    }

    @Test("an authenticator's tags go through the same rule")
    func authenticatorTagsAreFiltered() throws {
        let bridge = Bridge(executor: ManualExecutor())
        let session = try bridge.createSession(peerAddress: "127.0.0.1", origin: nil, tags: ["/", "team:1"])
        #expect(session.tags == ["team:1"])
    }
}
