// SPDX-License-Identifier: MIT
import DSBridge
import Foundation
import Testing

/// HTTP work that may block or walks every session runs off the network thread.
@Suite("HTTP work off the network thread")
struct OffThreadHTTPTests {
    @Test("a FIFO in the web root answers 404 at once; files and socket calls keep working")
    func fifoInWebRoot() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let fifo = server.webRoot.appendingPathComponent("pipe.js").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let started = Date()
        #expect(try TestHTTP.request(port: server.port, path: "/pipe.js").status == 404)
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(try TestHTTP.request(port: server.port, path: "/app.js").text == "window.x = 1;")
        let (ws, _) = try server.openSession()
        try ws.send(callMessage(1, "echo.syn", "after the fifo"))
        #expect(try ws.nextMessage()["data"] == "after the fifo")
    }

    @Test("HEAD and GET of a static file answer as before, from a worker")
    func staticFileAnswers() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let get = try TestHTTP.request(port: server.port, path: "/sub/site.css")
        #expect(get.status == 200)
        #expect(get.headers["content-type"] == "text/css; charset=utf-8")
        #expect(get.text == "body{}")
        let head = try TestHTTP.request(port: server.port, method: "HEAD", path: "/sub/site.css")
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "6")
        #expect(head.body.isEmpty)
        #expect(try TestHTTP.request(port: server.port, path: "/sub").status == 301)
    }

    @Test("a slow authenticator behind POST /dsbridge/session does not stall other pages' calls")
    func slowSessionCreation() throws {
        let server = try RunningServer(allowedOrigins: ["http://slow.example"], authenticator: SlowForOneOrigin())
        defer { server.stop() }
        let (ws, _) = try server.openSession()
        let port = server.port
        let slow = Thread {
            _ = try? TestHTTP.request(
                port: port, method: "POST", path: "/dsbridge/session",
                headers: ["Origin": "http://slow.example"], body: [])
        }
        slow.start()
        usleep(200_000)
        let started = Date()
        for id in 1...20 {
            try ws.send(callMessage(Int64(id), "echo.syn", "x"))
            #expect(try ws.nextMessage()["id"] == .integer(Int64(id)))
        }
        #expect(Date().timeIntervalSince(started) < 1, "calls waited for the authenticator")
    }
}

/// Takes 1.5 s for requests from `http://slow.example`; accepts everything.
private struct SlowForOneOrigin: SessionAuthenticator {
    func authorize(_ request: SessionRequest) -> Bool {
        if request.headers["origin"] == "http://slow.example" { Thread.sleep(forTimeInterval: 1.5) }
        return true
    }
}
