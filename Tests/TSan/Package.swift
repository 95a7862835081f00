// swift-tools-version:6.1
// ThreadSanitizer over the session, flip and (split) recording tests (`make tsan`). A package of its own
// so that the instrumented build holds GpickKit and what it imports, and nothing else: the
// picker, the library, the CLI and the other test modules are not compiled a second time. The
// test files are the main package's own (Support, Heap, StandIn and GpickKitTests are links).
import PackageDescription

let package = Package(
    name: "gpick-tsan",
    dependencies: [.package(name: "gpick", path: "../..")],
    targets: [
        .target(name: "GpickCameraStandIn", dependencies: [.product(name: "GpickKit", package: "gpick"), .product(name: "GstCore", package: "gpick")],
                path: "StandIn"),
        .target(name: "CTestHeap", path: "Heap"),
        .target(name: "GpickTestSupport", dependencies: [.product(name: "GpickKit", package: "gpick"), "GpickCameraStandIn", "CTestHeap"], path: "Support"),
        .testTarget(name: "GpickKitRaceTests", dependencies: [.product(name: "GpickKit", package: "gpick"), "GpickTestSupport"],
                    path: "GpickKitTests",
                    sources: ["SessionTests.swift", "FlipTests.swift", "SwitchTimelineTests.swift", "SplitRecordingSessionTests.swift"]),
    ]
)
