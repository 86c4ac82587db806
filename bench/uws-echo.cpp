// SPDX-License-Identifier: MIT
//
// uws-echo: a minimal echo server on uWebSockets, the fastest WebSocket server on this
// kind of machine, for issue 21's comparison (`scripts/load-test.sh --uws-echo BIN`). It is
// not part of dsbridged and not a dependency: build it with scripts/build-uws-echo.sh from
// a checkout of github.com/uNetworking/uWebSockets (with its uSockets submodule).
//
// WebSocket messages on any path are sent back as they came (no compression, no automatic
// pings); any POST is answered 200 with its body (`dsbridge-bench http --raw-echo`).
// Modelled on uWebSockets' examples/EchoServer.cpp and examples/EchoBody.cpp.
//
//   uws-echo [PORT]   PORT 0 or none: any free port (127.0.0.1 only); prints "listening port=P"
#include "App.h"
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

int main(int argc, char **argv) {
    int port = argc > 1 ? std::atoi(argv[1]) : 0;
    struct PerSocketData {};

    uWS::App().ws<PerSocketData>("/*", {
        .compression = uWS::DISABLED,
        .maxPayloadLength = 16 * 1024 * 1024,
        .idleTimeout = 0, /* 0 = disabled */
        .sendPingsAutomatically = false,
        .message = [](auto *ws, std::string_view message, uWS::OpCode opCode) {
            ws->send(message, opCode, false);
        }
    }).post("/*", [](auto *res, auto * /*req*/) {
        /* The body, kept by the onData handler until the request is answered. */
        auto body = std::make_shared<std::string>();
        res->onData([res, body](std::string_view chunk, bool isFin) {
            body->append(chunk.data(), chunk.size());
            if (isFin) {
                res->writeStatus("200 OK")->end(*body);
            }
        });
        res->onAborted([]() { /* nothing to clean up: the body goes with the handler */ });
    }).listen("127.0.0.1", port, [port](auto *listen_socket) {
        if (listen_socket) {
            std::printf("listening port=%d\n",
                        us_socket_local_port(false, (us_socket_t *) listen_socket));
            std::fflush(stdout);
        } else {
            std::fprintf(stderr, "uws-echo: cannot listen on 127.0.0.1:%d\n", port);
            std::exit(1);
        }
    }).run();
    return 0;
}
