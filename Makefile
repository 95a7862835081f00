# gpick — build, test, demo, bench, install. Every install step lives here (a new machine has nothing).
SHELL := /bin/bash
PREFIX ?= /usr/local
SWIFT ?= swift
BIN := .build/release/gpick
LIBRARY_BIN := .build/release/gpick-library
AVATAR_BIN := .build/release/gpick-avatar
OUT ?= out/demo

# Debian 12 packages: GStreamer development files and plugins, plus the tools the tests decode with.
# (The release binary links the Swift runtime statically: it starts faster and runs without Swift.)
# gstreamer1.0-gl and -x: the window preview's sinks (glimagesink; xvimagesink, ximagesink) and
# textoverlay. binutils (readelf), mount, make and apt (apt-cache): programs the tests run. A test
# (PackageClosureTests) checks that every element and program in use comes from this list.
# python3, time and hyperfine: the bench (`make bench`) and its report's unit tests.
# gstreamer1.0-pipewire and -libcamera: the camera sources; pipewire, wireplumber and dbus-daemon:
# the private PipeWire (with a test camera node) the tests start.
# libsqlite3-dev: the media library's index (GRDB; sqlite3: a test holds its lock); libvips-dev: still images and thumbnails
# (gpick-library loads it when it first needs it); libvips-tools (vipsthumbnail) and
# ffmpegthumbnailer: the thumbnail bench's reference tools. fonts-dejavu-core: also the font of
# `gpick library sheet`'s badges (DejaVu Sans Bold, which has ▶ and ×), drawn by libvips' pango.
# python3-selenium and chromium-driver: the picker's page is tested in a real headless Chromium.
# libexif-dev: the EXIF block (date, camera, software) of every still gpick writes; libde265-dev:
# the HEVC tiles of a HEIF too large to decode whole. libcurl4-openssl-dev: photos at http(s) URLs.
# libgstrtspserver-1.0-dev: `gpick serve` (gst-rtsp-server); gstreamer1.0-rtsp: its rtspclientsink,
# which `gpick publish rtsp://` sends with; python3-gi and gir1.2-gst-rtsp-server-1.0: the RTSP
# server (gst-rtsp-server in record mode) that it is tested against. srt-tools (srt-live-transmit), nginx and
# libnginx-mod-rtmp: the SRT listener and the RTMP server `gpick publish` is tested against.
# weston: its headless backend is the Wayland compositor the window preview is tested under.
# python3-pip: installs axe-selenium-python from PyPI (Debian has no package of it): Deque's
# axe-core accessibility engine, which the page tests run on the picker and the avatar editor.
# gdb: a test whose process hangs reports that process's threads' stacks; the crash test has
# gpick crash for real through it.
# libjpeg62-turbo-dev: the headers of libjpeg, which gpick's MJPEG decoder (gpickjpegdec) opens.
# dpkg-dev, lintian, mmdebstrap: `make deb` (dpkg-shlibdeps), its check, and the clean Debian 12
# root `make package-check` installs the package in; systemd-container: systemd-nspawn, which
# boots that root so its systemd runs gpick's services.
APT_PACKAGES := pkg-config libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libglib2.0-dev \
	gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad \
	gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-plugins-base-apps \
	gstreamer1.0-gl gstreamer1.0-x \
	libyaml-dev libimage-exiftool-perl ffmpeg procps psmisc util-linux mount binutils make apt \
	xvfb xdotool xterm tmux chromium fonts-dejavu-core curl \
	python3 time hyperfine \
	gstreamer1.0-pipewire gstreamer1.0-libcamera pipewire wireplumber dbus-daemon \
	libsqlite3-dev sqlite3 libvips-dev libvips-tools ffmpegthumbnailer python3-selenium chromium-driver python3-pip \
	libexif-dev libde265-dev libcurl4-openssl-dev libgstrtspserver-1.0-dev gstreamer1.0-rtsp python3-gi gir1.2-gst-rtsp-server-1.0 srt-tools nginx libnginx-mod-rtmp libcairo2-dev libpango1.0-dev libpng-dev zlib1g-dev fonts-noto-color-emoji fonts-droid-fallback librsvg2-bin \
	weston gdb dpkg-dev lintian mmdebstrap systemd-container libjpeg62-turbo-dev

# From PyPI, with axe-core 3.1.1 inside: the newest release pip offers for Debian 12's Python 3.11.
AXE_SELENIUM_VERSION := 2.1.6

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup apt-packages build debug test tsan tsan-build demo release-gpick docs bench install deb package-check clean

# Idempotent: installs only what dpkg does not already have.
setup:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "setup: all Debian packages present"; fi
	@# Debian's python (the tests run /usr/bin/python3, which has Debian's selenium); --no-deps:
	@# its only dependencies, selenium and pytest, are Debian's or unused.
	@/usr/bin/python3 -c 'import axe_selenium_python' 2>/dev/null || { echo "installing: axe-selenium-python $(AXE_SELENIUM_VERSION)"; \
		$(SUDO) /usr/bin/python3 -m pip install -q --break-system-packages --no-deps --root-user-action=ignore axe-selenium-python==$(AXE_SELENIUM_VERSION); }

# The list above, for the tests that check it.
apt-packages:
	@echo $(APT_PACKAGES)

RELEASE_BUILD := $(SWIFT) build -c release --static-swift-stdlib

# Release binaries are stripped, their symbols and debug info kept beside them in BIN.debug
# (objcopy --only-keep-debug), which the binary names in its .gnu_debuglink: gdb, and anything
# else that symbolises a crash report, finds it there (or under /usr/lib/debug once installed).
# Checked each time: no debug info left in the binary, and the link in place.
# A binary already stripped (the build had nothing to do) keeps the debug file it has.
define strip-keeping-debug
	if readelf -S $(1) | grep -q ' .debug_info'; then \
		objcopy --only-keep-debug $(1) $(1).debug && objcopy --strip-all --add-gnu-debuglink=$(1).debug $(1); fi
	@readelf -S $(1) | grep -q ' .gnu_debuglink' || { echo "$(1): no .gnu_debuglink after stripping" >&2; exit 1; }
	@! readelf -S $(1) | grep -q ' .debug_info' || { echo "$(1): debug info left after stripping" >&2; exit 1; }
endef

build: setup
	$(RELEASE_BUILD) --product gpick
	$(RELEASE_BUILD) --product gpick-library
	$(RELEASE_BUILD) --product gpick-avatar
	$(call strip-keeping-debug,$(BIN))
	$(call strip-keeping-debug,$(LIBRARY_BIN))
	$(call strip-keeping-debug,$(AVATAR_BIN))

# C pixel loops (CImaging) at -O2 in the debug build as well: the tests time flips and
# placeholders. Given here, not in Package.swift, where SwiftPM would refuse it to dependants.
DEBUG_FLAGS := -Xcc -O2

debug: setup
	$(SWIFT) build --build-tests $(DEBUG_FLAGS)

# Swift Testing runs the suites' tests concurrently; most of them wait on a live 30 fps clock.
# Eight at a time: with no bound about 250 ran at once (a load average over 50 on 2 cores), a
# gpick that fails at once took 15 s to say so, and motion was compared seconds behind its
# frames; eight finish the whole run sooner (141 s against 166) at a load average near 5.
# Results also go to an xunit file: a loaded machine has been seen to lose console lines.
# Each test leaves its folder in /tmp/gpick-tests for a look after a failure; folders of runs
# more than an hour old go first (a folder of tens of thousands slows every test's own).
TEST_WIDTH ?= 8
test: debug
	@rm -f .build/test-results*.xml
	@touch .build/test-started
	@find /tmp/gpick-tests -mindepth 1 -maxdepth 1 -mmin +60 -exec rm -rf {} + 2>/dev/null || true
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test --skip-build --xunit-output .build/test-results.xml \
		|| { python3 Tests/failures.py .build/test-results-swift-testing.xml; exit 1; }
	PYTHONPATH=bench:bench/tests python3 -m unittest discover -s bench/tests -t bench/tests

# ThreadSanitizer over the in-process session, flip and recording tests. Tests/TSan is a package
# of its own over the same test files, so the instrumented build holds GpickKit and its imports
# only (about 1.7 min to build on 2 cores instead of 3.7 for the whole tree, and 20 s to run).
# The soak tests start the debug gpick-soak. Any report fails it. tsan-build touches only
# Tests/TSan/.build, so it can run beside a build of the main package (CI does).
tsan: tsan-build
	$(SWIFT) build --product gpick-soak $(DEBUG_FLAGS)
	cd Tests/TSan && TSAN_OPTIONS="halt_on_error=1 exitcode=66" $(SWIFT) test --skip-build --sanitize=thread

tsan-build: setup
	cd Tests/TSan && $(SWIFT) build --build-tests --sanitize=thread $(DEBUG_FLAGS)

# The demo runs gpick alone: the other two binaries (about 2 min more to build) are not needed.
demo: release-gpick
	@mkdir -p $(OUT)
	$(BIN) snap --source test --width 1280 --height 720 -o $(OUT)/still.jpg
	$(BIN) record --source test --audio test --width 1280 --height 720 --duration 3 -o $(OUT)/clip.mp4
	$(BIN) inspect $(OUT)/clip.mp4
	@echo "demo: still and 3 s clip written to $(OUT)/still.jpg and $(OUT)/clip.mp4"

release-gpick: setup
	$(RELEASE_BUILD) --product gpick
	$(call strip-keeping-debug,$(BIN))

# The API documentation of the libraries (DocC, through swift-docc-plugin), as static pages in
# out/docs: open out/docs/documentation/gpickkit/index.html through any web server. The symbol
# graphs come from the debug build, with its flags: after `make test` nothing is compiled again
# (about 45 s instead of 2.5 min), and the debug build stays as it is.
DOC_TARGETS := GpickKit GpickPicker GpickAvatar GpickLibrary GpickImages GpickWeb GpickTerminal GpickFormats GpickScript GstCore GpickBase
docs: setup
	@mkdir -p out/docs
	$(SWIFT) package $(DEBUG_FLAGS) --allow-writing-to-directory out/docs generate-documentation \
		$(foreach t,$(DOC_TARGETS),--target $(t)) --enable-experimental-combined-documentation \
		--output-path out/docs --transform-for-static-hosting

# Every target in bench/RESULTS.md; about 70 min on an idle machine, 45 of them the soak (S1).
# `bench/run.sh --help`: options; `--only SECTION,…` runs some.
bench: build
	bench/run.sh

install: build
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/gpick
	install -D -m 0755 $(LIBRARY_BIN) $(DESTDIR)$(PREFIX)/libexec/gpick/gpick-library
	install -D -m 0755 $(AVATAR_BIN) $(DESTDIR)$(PREFIX)/libexec/gpick/gpick-avatar
	install -D -m 0644 $(BIN).debug $(DESTDIR)/usr/lib/debug$(PREFIX)/bin/gpick.debug
	install -D -m 0644 $(LIBRARY_BIN).debug $(DESTDIR)/usr/lib/debug$(PREFIX)/libexec/gpick/gpick-library.debug
	install -D -m 0644 $(AVATAR_BIN).debug $(DESTDIR)/usr/lib/debug$(PREFIX)/libexec/gpick/gpick-avatar.debug
	install -d $(DESTDIR)$(PREFIX)/share/gpick/pipelines
	install -m 0644 pipelines/*.yaml $(DESTDIR)$(PREFIX)/share/gpick/pipelines/
	install -d $(DESTDIR)/lib/systemd/system
	for unit in packaging/systemd/*.service; do \
		sed 's|/usr/bin/gpick|$(PREFIX)/bin/gpick|' $$unit > $(DESTDIR)/lib/systemd/system/$$(basename $$unit); done
	install -D -m 0644 packaging/systemd/gpick.sysusers $(DESTDIR)/usr/lib/sysusers.d/gpick.conf

# The Debian package (out/gpick_VERSION_ARCH.deb, and gpick-dbgsym beside it); lintian must
# find no error in it.
deb: setup
	packaging/deb/build.sh
	lintian --fail-on error out/gpick_*.deb

# The package installed, used and purged on a clean Debian 12 root (see packaging/deb/check.sh).
package-check: deb
	packaging/deb/check.sh

clean:
	rm -rf .build Tests/TSan/.build out
