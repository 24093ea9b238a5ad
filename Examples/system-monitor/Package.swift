// swift-tools-version:5.9
// An example of a program that embeds ChartCast: it serves a dashboard of this machine's CPU,
// memory, load and network, read from /proc every second.
//
//   cd Examples/system-monitor && swift run system-monitor --port 8080
//
// It depends on ChartCast by path; another package would use the same line with its own path
// (or `.package(url: "<repository>", branch: "main")`).
import PackageDescription

let package = Package(
    name: "system-monitor",
    dependencies: [
        .package(name: "ChartCast", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "system-monitor", dependencies: [.product(name: "ChartCast", package: "ChartCast")]),
    ]
)
