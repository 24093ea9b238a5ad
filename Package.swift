// swift-tools-version:5.9
import PackageDescription

/// The fan-out's modules (WebSockets, ChartCastServer) skip Swift's dynamic exclusivity checks in
/// release builds: each frame written to each viewer otherwise pays a `swift_beginAccess` /
/// `swift_endAccess` pair and a thread-local access-set lookup per class property it modifies.
/// Debug builds — `make test`, every integration test — keep the checks, so an overlapping access
/// there still traps. Measured in docs/performance.md ("The send() floor, and four per-frame costs
/// removed").
let hotPathSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "ChartCast",
    products: [
        .library(name: "ChartCast", targets: ["ChartCast"]),
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
        // The only module that imports CLibWebsockets: safe server and client API (and CZlib, to
        // inflate permessage-deflate messages itself).
        // libev, the epoll loop libwebsockets can run on (its libev plugin, libwebsockets-evlib-ev).
        .systemLibrary(name: "CLibev", providers: [.apt(["libev-dev"])]),
        .target(name: "WebSockets", dependencies: ["CLibWebsockets", "CZlib", "CLibev"], swiftSettings: hotPathSettings),
        // C shim over the Debian zlib package: gzip request bodies, permessage-deflate messages.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // C shim over the Debian OpenSSL package: HTTPS for chartcast-load's publishers.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // C shim over the Debian SQLite package: the history database.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // C shim over the Debian hiredis package: the Redis client of several instances.
        .systemLibrary(
            name: "CHiredis",
            pkgConfig: "hiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),
        // Pure Swift: scales, ChartProxy, chart store, gestures, selection. No I/O.
        .target(name: "ChartEngine"),
        // The demo dashboard's charts and seed data, engine-only, shared by the server and tests, and
        // the one seeded generator (SplitMix64) of the demo, the soak, the benches and the tests.
        .target(name: "ChartCastDemo", dependencies: ["ChartEngine"]),
        // JSON reader/writer and every protocol v1 message, encode and decode. No I/O.
        .target(name: "ChartCastProtocol", dependencies: ["ChartEngine"]),
        // Write-body parsers and validators (JSON, CSV, line protocol, gzip). No I/O, no threads;
        // it imports CZlib for gzip bodies (WebSockets does for permessage-deflate).
        .target(name: "ChartCastIngest", dependencies: ["CZlib", "ChartEngine", "ChartCastProtocol"]),
        // The history store: one SQLite database, a storage thread with grouped commits, chunked
        // points, M4 reads, retention; the only module that imports CSQLite.
        .target(name: "ChartCastStorage", dependencies: ["CSQLite", "ChartEngine", "ChartCastProtocol"]),
        // Several instances as one dashboard: the Redis client, its connections and threads (the
        // stream log, presence, leases); the only module that imports CHiredis.
        .target(name: "ChartCastCluster", dependencies: ["CHiredis", "ChartEngine", "ChartCastProtocol"]),
        // The library product: re-exports the server facade (ChartCastServer) and adds the dashboard
        // DSL (Sources/ChartCast/DSL) with its define/publish overloads (Sources/ChartCast/Server).
        .target(name: "ChartCast", dependencies: ["ChartEngine", "ChartCastProtocol", "ChartCastServer"]),
        // Sessions, fan-out, feeds, HTTP endpoints.
        .target(name: "ChartCastServer", dependencies: ["WebSockets", "ChartEngine", "ChartCastProtocol", "ChartCastDemo", "ChartCastIngest",
                                                    "ChartCastStorage", "ChartCastCluster"],
                swiftSettings: hotPathSettings),
        // Headless viewers and drivers for load tests.
        // Linux's epoll for the load tester's raw WebSocket client (glibc's; Swift's Glibc module lacks the header).
        .systemLibrary(name: "CEpoll"),
        .target(name: "LoadTesting", dependencies: ["WebSockets", "ChartEngine", "ChartCastDemo", "ChartCastProtocol", "ChartCastIngest",
                                                "ChartCastStorage", "COpenSSL", "CEpoll"]),
        .executableTarget(name: "chartcast", dependencies: ["ChartCastServer", "ChartCastProtocol"]),
        .executableTarget(name: "chartcast-load", dependencies: ["LoadTesting"]),
        .executableTarget(name: "chartcast-bench", dependencies: ["ChartEngine", "ChartCastDemo", "ChartCastIngest", "ChartCastStorage",
                                                              "ChartCastServer"]),
        // libFuzzer's driver entry point (declaration only; linked by -sanitize=fuzzer).
        .systemLibrary(name: "CFuzzer"),
        // Fuzz targets for the parsers. Builds in both modes: plain, it replays inputs through the
        // checks; with `-Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING` (scripts/fuzz.sh,
        // into .build/fuzz) it runs libFuzzer. See Sources/chartcast-fuzz/FuzzMain.swift.
        .executableTarget(name: "chartcast-fuzz", dependencies: ["CFuzzer", "ChartEngine", "ChartCastProtocol", "ChartCastIngest"]),
        // Shared by the tests: raw loopback sockets and HTTP, free ports, polling, and a
        // blocking WebSocket client over the project's own lws client.
        .target(name: "TestSupport", dependencies: ["WebSockets"], path: "Tests/TestSupport"),
        .testTarget(name: "WebSocketsTests", dependencies: ["WebSockets", "TestSupport"]),
        .testTarget(name: "ChartEngineTests", dependencies: ["ChartEngine", "ChartCastDemo", "TestSupport"]),
        .testTarget(name: "ChartCastProtocolTests", dependencies: ["ChartCastProtocol", "ChartCastDemo"]),
        .testTarget(name: "ChartCastTests", dependencies: ["ChartCast", "ChartCastProtocol", "ChartEngine", "TestSupport"]),
        .testTarget(name: "ChartCastIngestTests", dependencies: ["ChartCastIngest", "ChartEngine", "ChartCastDemo"]),
        .testTarget(name: "ChartCastClusterTests", dependencies: ["ChartCastCluster", "ChartCastProtocol", "ChartEngine", "TestSupport"]),
        .testTarget(name: "ChartCastStorageTests", dependencies: ["ChartCastStorage", "ChartCastProtocol", "ChartEngine", "ChartCastDemo",
                                                                  "TestSupport"]),
        .testTarget(name: "ChartCastServerTests", dependencies: ["ChartCastServer", "ChartCastDemo", "ChartEngine", "WebSockets",
                                                                 "ChartCastProtocol", "ChartCastIngest", "ChartCastStorage", "ChartCastCluster",
                                                                 "TestSupport"]),
        .testTarget(name: "LoadTestingTests", dependencies: ["LoadTesting", "ChartCastServer", "ChartCastDemo", "ChartCastProtocol",
                                                             "ChartEngine", "ChartCastIngest", "TestSupport"]),
    ]
)
