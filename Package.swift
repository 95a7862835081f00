// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "gpick",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "GstCore", targets: ["GstCore"]),
        .library(name: "GpickKit", targets: ["GpickKit"]),
        .library(name: "GpickWeb", targets: ["GpickWeb"]),
        .library(name: "GpickTerminal", targets: ["GpickTerminal"]),
        .library(name: "GpickFormats", targets: ["GpickFormats"]),
        .library(name: "GpickScript", targets: ["GpickScript"]),
        .library(name: "GpickLibrary", targets: ["GpickLibrary"]),
        .library(name: "GpickImages", targets: ["GpickImages"]),
        .executable(name: "gpick", targets: ["gpick"]),
        .executable(name: "gpick-library", targets: ["gpick-library"]),
        .executable(name: "gpick-avatar", targets: ["gpick-avatar"]),
        .library(name: "GpickPicker", targets: ["GpickPicker"]),
        .library(name: "GpickAvatar", targets: ["GpickAvatar"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The local web server's event loop and HTTP/1 codec.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        // `make docs`: the API documentation, with DocC.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // Layer 0: the C API, with static inline helpers for the macros Swift cannot import.
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-1.0 gstreamer-base-1.0 gstreamer-app-1.0 gstreamer-video-1.0 gstreamer-pbutils-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev", "libglib2.0-dev"])]
        ),
        // gst-rtsp-server (`gpick serve`), behind a tiny shim: its set-up calls are varargs and
        // signals. Opened with dlopen when first used (see the shim); its headers come with
        // Debian's libgstrtspserver-1.0-dev, under GStreamer's include folder.
        .target(name: "CRTSPServer", dependencies: ["CGStreamer"]),
        // libyaml, which pipeline files are read with.
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // Pixel work (placeholder blur, crossfade, the avatar's halo). It must be fast in the debug
        // build the tests run too: the Makefile builds that with `-Xcc -O2`. Not an unsafe flag
        // here: SwiftPM refuses a dependency that has one, and other packages depend on this one.
        .target(name: "CImaging"),
        // Layer 0 beside it: what every layer uses and nothing of GStreamer: typed errors, the one
        // funnel for libc calls, atomic files, threads and the one way off the cooperative pool.
        .systemLibrary(name: "CGpickBase"),
        .target(name: "GpickBase", dependencies: ["CGpickBase"]),
        // libexif, which writes the EXIF block of every still gpick takes.
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        // Byte-level containers (MP4 atoms, JPEG MakerNote, Motion Photo XMP, the metadata readers)
        // and the stills' EXIF.
        .target(name: "GpickFormats", dependencies: ["GpickBase", "CExif"]),
        // Layer 1: a small safe Swift core over GStreamer.
        .target(name: "GstCore", dependencies: ["CGStreamer", "GpickBase"]),
        // Beside GStreamer, not on it: gpick's local HTTP server (127.0.0.1, a token, the Host
        // header checked, assets by id; swift-nio's event loop and HTTP/1 codec) and MJPEG
        // streams; and the terminal's screen, keys and pictures (half blocks, sixel, kitty).
        // Previews, the picker and the avatar editor use them.
        .target(name: "GpickWeb", dependencies: [
            "GpickBase",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        .target(name: "GpickTerminal", dependencies: ["GpickBase"]),
        // Layer 2: the capture toolkit.
        // The pipeline files of pipelines/ are built in as well (Pipelines/files links there): a
        // program that depends on this package finds them with no checkout and no install.
        // libwayland-client's log, where a compositor's reason for ending a connection appears.
        .target(name: "CWaylandLog"),
        // V4L2's control ioctls (a camera's exposure, focus, white balance…), each a few lines of C.
        .target(name: "CV4L2"),
        // gpickjpegdec: a camera's MJPEG decoded with libjpeg-turbo, stopping at a damaged frame
        // (jpegdec decodes past it). libjpeg is opened with dlopen; its headers come with
        // Debian's libjpeg62-turbo-dev.
        .target(name: "CJPEGDecoder", dependencies: ["CGStreamer"]),
        .target(name: "CFramePool", dependencies: ["CGStreamer"]),
        // gpicky4mdec: a YUV4MPEG2 file read a frame at a time into pooled buffers.
        .target(name: "CRawVideo", dependencies: ["CGStreamer"]),
        .target(name: "GpickKit", dependencies: ["CV4L2", "CJPEGDecoder", "CFramePool", "CRawVideo", "GstCore", "GpickBase", "GpickFormats", "GpickTerminal", "GpickWeb", "CImaging", "CRTSPServer",
                                              "CWaylandLog", "CYAML"],
                resources: [
                    .embedInCode("Pipelines/files/audio-auto.yaml"),
                    .embedInCode("Pipelines/files/audio-test.yaml"),
                    .embedInCode("Pipelines/files/decode-frames.yaml"),
                    .embedInCode("Pipelines/files/live-clip-mov.yaml"),
                    .embedInCode("Pipelines/files/live-clip.yaml"),
                    .embedInCode("Pipelines/files/live-ring.yaml"),
                    .embedInCode("Pipelines/files/motion-clip.yaml"),
                    .embedInCode("Pipelines/files/motion-ring.yaml"),
                    .embedInCode("Pipelines/files/preview-http.yaml"),
                    .embedInCode("Pipelines/files/preview-terminal.yaml"),
                    .embedInCode("Pipelines/files/preview-window.yaml"),
                    .embedInCode("Pipelines/files/publish-rtmp.yaml"),
                    .embedInCode("Pipelines/files/publish-rtsp.yaml"),
                    .embedInCode("Pipelines/files/publish-srt.yaml"),
                    .embedInCode("Pipelines/files/record-mkv.yaml"),
                    .embedInCode("Pipelines/files/record-mp4.yaml"),
                    .embedInCode("Pipelines/files/record-webm.yaml"),
                    .embedInCode("Pipelines/files/serve-rtsp.yaml"),
                    .embedInCode("Pipelines/files/session.yaml"),
                    .embedInCode("Pipelines/files/source-file.yaml"),
                    .embedInCode("Pipelines/files/source-libcamera.yaml"),
                    .embedInCode("Pipelines/files/source-pipewire.yaml"),
                    .embedInCode("Pipelines/files/source-test.yaml"),
                    .embedInCode("Pipelines/files/source-v4l2.yaml"),
                    .embedInCode("Pipelines/files/still-jpeg.yaml"),
                    .embedInCode("Pipelines/files/still-png.yaml"),
                    .embedInCode("Pipelines/files/timelapse.yaml"),
                ]),
        // The script language (`gpick script`, `gpick session`), interpreted on a capture session.
        .target(name: "GpickScript", dependencies: ["GpickKit"]),
        // Layer 3: the CLI, which starts GStreamer as the executable loads.
        .target(name: "CGpickStartup", dependencies: ["CGStreamer", "CLibraryText"]),
        // Every executable's GLib log writer and stderr: libraries' own text stays off it unless asked for.
        .target(name: "CLibraryText", dependencies: ["CGLib"]),
        // What both executables say to the user: one error line, exit codes, JSON events, progress.
        .target(name: "GpickCLI", dependencies: ["CLibraryText", "GpickBase", "GpickKit", "GpickTerminal", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "gpick", dependencies: [
            "GpickBase", "GpickCLI", "GpickKit", "GpickScript", "CGpickStartup", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The pick half. libvips: still images (shrink-on-load, EXIF orientation, thumbnail fit/fill).
        // It loads ~100 shared libraries, so only gpick-library links it, never gpick (snap start-up).
        // No pkgConfig: it would link libvips (see shim.h); its headers are in /usr/include, GLib's
        // include paths come from CGLib.
        .systemLibrary(name: "CVips", providers: [.apt(["libvips-dev"])]),
        // The prefix gpick gives libvips (so that it loads no module itself), set as the process
        // loads, before any thread: the environment is never changed while threads run.
        .target(name: "CVipsPrefix"),
        // GLib alone (checksums), for the library, which needs nothing else of GStreamer's stack.
        .systemLibrary(name: "CGLib", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // The media library: roots, the SQLite index (GRDB), scanning, live-photo pairing, import.
        .target(name: "GpickLibrary", dependencies: [
            "CGLib", "CGpickBase", "GpickBase", "GpickFormats", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Images for the pick half: libvips, freedesktop thumbnails, ImageSource, contact sheets.
        // zlib's CRC-32: PNG chunks are checked before libvips decodes them.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libde265: a HEIF grid too large to decode whole is decoded tile by tile.
        .systemLibrary(name: "CDe265", pkgConfig: "libde265", providers: [.apt(["libde265-dev"])]),
        // libcurl, which fetches photos at http(s) URLs (a tiny shim: libcurl's options are C varargs).
        .target(name: "CHTTPGet"),
        // GstCore: video poster frames and the camera's frames as images, through its wrappers.
        .target(name: "GpickImages", dependencies: ["CDe265", "CGLib", "CHTTPGet", "CImaging", "CVips", "CVipsPrefix", "CZlib", "GpickBase", "GpickFormats",
                                                    "GpickKit", "GpickLibrary", "GstCore"]),
        // The picker (`gpick pick`): its page on gpick's web server, its camera cell, its results.
        .target(name: "GpickPicker", dependencies: ["GpickBase", "GpickImages", "GpickKit", "GpickLibrary", "GpickTerminal", "GpickWeb"],
                resources: [.embedInCode("Web/picker.js"), .embedInCode("Web/picker-grid.js"), .embedInCode("Web/picker.css")]),
        // What the pick half's executables share on the command line: SOURCE arguments, their main,
        // the browser, signals.
        .target(name: "GpickPickCLI", dependencies: [
            "CGpickBase", "GpickBase", "GpickCLI", "GpickImages", "GpickKit", "GpickLibrary", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // `gpick library …`, `gpick thumb …` and `gpick pick` run this executable, installed beside
        // gpick (as git and cargo run their subcommands), so gpick itself links neither libvips nor SQLite.
        .executableTarget(name: "gpick-library", dependencies: [
            "GpickBase", "GpickCLI", "GpickKit", "GpickLibrary", "GpickImages", "GpickPicker", "GpickPickCLI", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Avatars (`gpick avatar`): cairo and Pango draw them. They are linked only into
        // gpick-avatar, its own executable (as gpick-library is), so no other command pays their load.
        .systemLibrary(name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        // libpng's simplified API: a fast PNG encoder for avatars (cairo's own is slow).
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .target(name: "GpickAvatar", dependencies: ["CImaging", "CPangoCairo", "CPNG", "GpickBase", "GpickImages", "GpickLibrary", "GpickWeb"],
                resources: [.embedInCode("Editor/Web/avatar.js"), .embedInCode("Editor/Web/avatar.css")]),
        .executableTarget(name: "gpick-avatar", dependencies: [
            "GpickAvatar", "GpickBase", "GpickCLI", "GpickKit", "GpickImages", "GpickLibrary", "GpickPicker", "GpickPickCLI",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "gpick-sample", dependencies: ["GpickKit"], path: "samples/still-and-clip"),
        // The leak soak runs in a process of its own (tests share one process, and their fds).
        .executableTarget(name: "gpick-soak", dependencies: ["GpickKit"], path: "Tests/Soak"),
        // The media library's in-process bench (bench/run.sh, L3): a synthetic index, the picker's query timed.
        .executableTarget(name: "gpick-libbench", dependencies: ["GpickLibrary", .product(name: "GRDB", package: "GRDB.swift")],
                          path: "bench/libbench"),
        // ImageSource's in-process bench (bench/run.sh, L6): size() and the first progressive result.
        .executableTarget(name: "gpick-imagebench", dependencies: ["GpickBase", "GpickFormats", "GpickImages", "GpickBenchSupport"], path: "bench/imagebench"),
        // The avatar renderer's in-process bench (bench/run.sh, A1): a 500 px initials avatar drawn and encoded.
        .executableTarget(name: "gpick-avatarbench", dependencies: ["GpickAvatar", "GpickBenchSupport"], path: "bench/avatarbench"),
        // The camera section's in-process bench: choosing a mode (C1), decoding MJPEG as the camera stage does (C2).
        .executableTarget(name: "gpick-camerabench", dependencies: ["GpickBase", "GpickKit", "GstCore", "GpickBenchSupport", "GpickCameraStandIn"],
                          path: "bench/camerabench"),
        // A camera without the camera: a real camera's mode table advertised in v4l2src's place (tests and the camera bench).
        .target(name: "GpickCameraStandIn", dependencies: ["GpickKit", "GstCore"], path: "Tests/StandIn"),
        // What those two benches share: arguments, the clock, the printed summary.
        .target(name: "GpickBenchSupport", path: "bench/support"),
        // Shared test helpers: run the binary, decode outputs, read fds and memory.
        .target(name: "GpickTestSupport", dependencies: ["GpickKit", "GpickFormats", "GstCore", "GpickCameraStandIn", "CTestHeap"], path: "Tests/Support"),
        // malloc's count of the bytes in use, which Glibc's Swift module does not export.
        .target(name: "CTestHeap", path: "Tests/Heap"),
        .testTarget(name: "GpickBaseTests", dependencies: ["GpickBase"]),
        .testTarget(name: "GpickCLITests", dependencies: ["GpickBase", "GpickCLI"]),
        .testTarget(name: "GstCoreTests", dependencies: ["GstCore", "CGStreamer", "GpickTestSupport"]),
        .testTarget(name: "GpickFormatsTests", dependencies: ["GpickFormats", "GpickTestSupport"]),
        .testTarget(name: "GpickPickerTests", dependencies: ["GpickPicker", "GpickTerminal", "GpickTestSupport", "GpickWeb"]),
        .testTarget(name: "GpickScriptTests", dependencies: ["GpickScript"]),
        .testTarget(name: "GpickKitTests", dependencies: ["GpickKit", "GstCore", "CGStreamer", "GpickTerminal", "GpickWeb", "GpickTestSupport"]),
        .testTarget(name: "GpickLibraryTests", dependencies: ["GpickLibrary", "GpickTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "GpickImagesTests", dependencies: ["GpickImages", "GpickTestSupport", "CGLib"]),
        .testTarget(name: "GpickAvatarTests", dependencies: ["GpickAvatar", "GpickTestSupport", "CGLib"]),
        .testTarget(name: "CLITests", dependencies: ["GpickKit", "GpickWeb", "GpickTestSupport"]),
    ]
)
