#!/bin/bash
# `make deb`: out/gpick_VERSION_ARCH.deb, and its debug symbols in out/gpick-dbgsym_VERSION_ARCH.deb,
# from the release binaries (static Swift runtime, stripped) that `make install` puts in place.
#
# - Depends: what dpkg-shlibdeps finds the binaries linked against, the libraries gpick opens
#   with dlopen (libvips, gst-rtsp-server, libcurl, libjpeg), and the packages of the
#   GStreamer plugins whose elements the core commands use (snap, record, live, the previews,
#   serve, publish over SRT, cameras, inspect), as `gpick doctor --json` names them per check.
# - Recommends: the plugins that only some commands use (MKV and WebM recordings, RTMP and RTSP
#   publishing, PipeWire and libcamera cameras, the preview window), and xdg-utils to open the
#   picker's page.
# - gpick in /usr/bin; gpick-library and gpick-avatar, which gpick hands the pick half's commands
#   to, in /usr/libexec/gpick, off the PATH.
# - Man pages: swift-argument-parser's generate-manual on each binary, one page per command named
#   as git's are (gpick-record(1), gpick-library-scan(1)); completions for bash, zsh and fish from
#   gpick's --generate-completion-script.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
version=$(sed -n 's/.*current = "\(.*\)".*/\1/p' Sources/GpickBase/Version.swift)
arch=$(dpkg --print-architecture)
out=$repo/out
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/gpick
dbg=$stage/gpick-dbgsym
mkdir -p "$out" "$root/DEBIAN" "$dbg/DEBIAN"

# The binaries, the pipeline files and the units, under /usr.
make --no-print-directory install DESTDIR="$root" PREFIX=/usr
mkdir -p "$dbg/usr/lib"
mv "$root/usr/lib/debug" "$dbg/usr/lib/"
bins=(usr/bin/gpick usr/libexec/gpick/gpick-library usr/libexec/gpick/gpick-avatar)

# Man pages, made by the binaries themselves. Each binary's root command is gpick; the helpers'
# pages are the real ones for the commands gpick hands them (library, thumb, pick, avatar), so
# they are made last and win there, and gpick's own page of each other command stays. A page
# is named as git's are, gpick-record.1 with "gpick-record" in its NAME (what man -k and
# lexgrog read), while its synopsis keeps the command as typed, "gpick record". Blank lines in
# help texts become paragraph breaks (groff warns about blank lines in mdoc).
swift build -c release --product generate-manual >/dev/null
mandir=$root/usr/share/man/man1
mkdir -p "$mandir"
pages=$stage/pages
for b in gpick gpick-library gpick-avatar; do
	rm -rf "$pages" && mkdir -p "$pages"
	.build/release/generate-manual ".build/release/$b" --multi-page --date "$(date -u -d "@$(git log -1 --format=%ct)" +%Y-%m-%d)" \
		--authors "gpick developers" --output-directory "$pages"
	for page in "$pages"/*.1; do
		name=$(basename "$page" .1)
		case "$b:$name" in gpick-*:gpick.library* | gpick-*:gpick.thumb* | gpick-*:gpick.pick* | gpick-*:gpick.avatar* | gpick:*) ;; *) continue ;; esac
		typed=${name//./ }
		python3 - "$page" "$typed" "${name//./-}" > "$mandir/${name//./-}.1" <<'PY'
import sys
page, typed, named = sys.argv[1:]
out, section = [], None
for line in open(page).read().split("\n"):
    if line.startswith(".Sh "):
        section = line[4:].strip()
    if line.startswith(".Dt "):
        words = line.split(" ")
        line = " ".join([words[0], words[1].replace(".", "-")] + words[2:])
    elif section == "NAME" and line.startswith(".Nm"):
        line = ".Nm " + named
    elif section != "NAME" and line.strip() == ".Nm":
        line = '.Nm "' + typed + '"'
    elif line.startswith(".Xr gpick."):
        words = line.split(" ")
        line = " ".join([words[0], words[1].replace(".", "-")] + words[2:])
    elif line.strip() == "":
        line = ".Pp"
    out.append(line)
while out and out[-1] == ".Pp":
    out.pop()
print("\n".join(out))
PY
	done
done
gzip -9n "$mandir"/*.1
mkdir -p "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d"
.build/release/gpick --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/gpick"
.build/release/gpick --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_gpick"
.build/release/gpick --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/gpick.fish"

# Documentation Debian asks every package for, and an example of a service's settings.
doc=$root/usr/share/doc/gpick
install -D -m 0644 packaging/deb/copyright "$doc/copyright"
install -D -m 0644 packaging/systemd/example.conf "$doc/examples/camera.conf"
printf 'gpick (%s) unstable; urgency=medium\n\n  * Built from %s.\n\n -- gpick developers <maintainers@gpick.invalid>  %s\n' \
	"$version" "$(git rev-parse --short HEAD)" "$(date -u -R -d "@$(git log -1 --format=%ct)")" | gzip -9n > "$doc/changelog.gz"

# Depends and Recommends.
shlibs=$(cd "$stage" && mkdir -p debian && touch debian/control &&
	dpkg-shlibdeps -O --warnings=0 "${bins[@]/#/gpick/}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
# Opened with dlopen on first use, so dpkg-shlibdeps does not see them: libvips (the pick half's
# images), gst-rtsp-server (serve), libcurl (images by URL) and libjpeg (gpickjpegdec, a camera's MJPEG).
dlopened=$(for so in libvips.so.42 libgstrtspserver-1.0.so.0 libcurl.so.4 libjpeg.so.62; do
	dpkg -S "$(readlink -f "$(ldconfig -p | awk -v s="$so" '$1 == s {print $NF; exit}')")" | cut -d: -f1
done | sort -u | paste -sd, | sed 's/,/, /g')
plugin_packages() {  # the Debian packages of the elements the named doctor checks use
	"$repo/.build/release/gpick" doctor --json | python3 -c '
import json, sys
want = set(sys.argv[1].split(","))
names = set()
for line in sys.stdin:
    e = json.loads(line)
    if e.get("event") == "check" and e.get("check") in want:
        names.update(e.get("elements", []))
print("\n".join(sorted(names)))' "$1" | while read -r element; do
		file=$(gst-inspect-1.0 "$element" 2>/dev/null | sed -n 's/^ *Filename *//p' | head -1)
		[ -n "$file" ] && dpkg -S "$(readlink -f "$file")" 2>/dev/null | cut -d: -f1
	done | sort -u | paste -sd, | sed 's/,/, /g'
}
core="snap,record mp4,live,preview terminal,preview http,serve rtsp,publish srt,camera sources,inspect"
some="record mkv,record webm,publish rtmp,publish rtsp,pipewire cameras,libcamera cameras,preview window"
depends=$(plugin_packages "$core")
recommends=$(comm -13 <(tr ',' '\n' <<<"$depends" | sed 's/^ *//' | sort) \
	<(plugin_packages "$some" | tr ',' '\n' | sed 's/^ *//' | sort) | paste -sd, | sed 's/,/, /g')
size=$(du -sk "$root/usr" "$root/lib" | awk '{s += $1} END {print s}')
cat > "$root/DEBIAN/control" <<EOF
Package: gpick
Version: $version
Architecture: $arch
Maintainer: gpick developers <maintainers@gpick.invalid>
Installed-Size: $size
Depends: $shlibs, $dlopened, $depends
Recommends: ${recommends:+$recommends, }xdg-utils
Section: video
Priority: optional
Description: camera toolkit: capture, stream and pick photos from the command line
 gpick takes photos, bursts, videos and live photos from a camera (V4L2,
 PipeWire, libcamera) or a test source, previews them in a window, a terminal
 or a browser, serves RTSP and publishes over SRT, RTMP or RTSP, and picks
 recent photos and videos from a media library in a browser or a terminal,
 printing their paths. Services for serving and publishing are included.
EOF
# Units are enabled by hand (one instance per camera): nothing to start on install. The groups
# they join are made on install if missing (what debhelper's dh_installsysusers writes).
cat > "$root/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ] && command -v systemd-sysusers > /dev/null; then
	systemd-sysusers ${DPKG_ROOT:+--root="$DPKG_ROOT"} gpick.conf
fi
EOF
chmod 0755 "$root/DEBIAN/postinst"
# xz at its highest level: 37 MB where the default makes 42.
dpkg-deb --root-owner-group -Zxz -z9 --build "$root" "$out/gpick_${version}_${arch}.deb" >/dev/null

dsize=$(du -sk "$dbg/usr" | awk '{print $1}')
cat > "$dbg/DEBIAN/control" <<EOF
Package: gpick-dbgsym
Version: $version
Architecture: $arch
Maintainer: gpick developers <maintainers@gpick.invalid>
Installed-Size: $dsize
Depends: gpick (= $version)
Section: debug
Priority: optional
Description: debug symbols for gpick
 The symbols and debug information of gpick's binaries, for symbolising a
 crash report (gdb finds them through each binary's .gnu_debuglink).
EOF
mkdir -p "$dbg/usr/share/doc"
ln -s gpick "$dbg/usr/share/doc/gpick-dbgsym"
dpkg-deb --root-owner-group -Zxz --build "$dbg" "$out/gpick-dbgsym_${version}_${arch}.deb" >/dev/null
ls -l "$out"/*.deb
