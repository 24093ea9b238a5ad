// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "ChartCast",
    products: [
        .executable(name: "chartcast", targets: ["chartcast"]),
        .executable(name: "chartcast-load", targets: ["chartcast-load"]),
        .executable(name: "chartcast-bench", targets: ["chartcast-bench"]),
    ],
    targets: [
        // C shim over the Debian libwebsockets package (lws 4.1).
        .systemLibrary(
            name: "CLibWebsockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        // The only module that imports CLibWebsockets: safe server and client API.
        .target(name: "WebSockets", dependencies: ["CLibWebsockets"]),
        // Pure Swift: scales, ChartProxy, chart store, gestures, selection. No I/O.
        .target(name: "ChartEngine"),
        // JSON reader/writer and protocol v1 message types. No I/O.
        .target(name: "ChartCastProtocol", dependencies: ["ChartEngine"]),
        // Sessions, fan-out, feeds, demo dashboard, HTTP endpoints.
        .target(name: "ChartCastServer", dependencies: ["WebSockets", "ChartEngine", "ChartCastProtocol"]),
        // Headless viewers and drivers for load tests.
        .target(name: "LoadTesting", dependencies: ["WebSockets", "ChartCastProtocol"]),
        .executableTarget(name: "chartcast", dependencies: ["ChartCastServer"]),
        .executableTarget(name: "chartcast-load", dependencies: ["LoadTesting"]),
        .executableTarget(name: "chartcast-bench", dependencies: ["ChartEngine"]),
        // Shared by the tests: raw loopback sockets and HTTP, free ports, polling, and a
        // blocking WebSocket client over the project's own lws client.
        .target(name: "TestSupport", dependencies: ["WebSockets"], path: "Tests/TestSupport"),
        .testTarget(name: "WebSocketsTests", dependencies: ["WebSockets", "TestSupport"]),
        .testTarget(name: "ChartEngineTests", dependencies: ["ChartEngine"]),
        .testTarget(name: "ChartCastProtocolTests", dependencies: ["ChartCastProtocol"]),
        .testTarget(name: "ChartCastServerTests", dependencies: ["ChartCastServer", "WebSockets", "ChartCastProtocol", "TestSupport"]),
        .testTarget(name: "LoadTestingTests", dependencies: ["LoadTesting", "ChartCastServer", "TestSupport"]),
    ]
)
