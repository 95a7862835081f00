#!/bin/bash
# `make package-check`: the package on a clean Debian 12, as a user without Swift gets it.
# mmdebstrap makes a root of Debian 12's packages alone (no compiler, no Swift, no -dev
# package), with systemd as its init, as an installed Debian has; in it, `apt-get install
# ./gpick_*.deb` must resolve everything, `gpick doctor` must find every command ready for the
# test source, snap, record, serve and the terminal picker must work, gpick-serve@ and
# gpick-record@ must run under the root's own systemd (booted with systemd-nspawn; see
# service_check.sh), and `apt-get purge gpick` must leave none of the package's files behind.
# The root is a folder under /tmp, removed at the end; /proc and /dev are mounted in it for the
# chroot's steps only.
set -euo pipefail
cd "$(dirname "$0")/../.."
deb=$(ls out/gpick_*_"$(dpkg --print-architecture)".deb)
work=$(mktemp -d /tmp/gpick-package-check.XXXXXX)
root=$work/root
mounted=()
cleanup() {
	for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
step() { echo "package-check: $*"; }
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

step "a clean Debian 12 root (mmdebstrap, variant apt, with systemd)"
mmdebstrap --quiet --variant=apt --mode=root --include=systemd,systemd-sysv,dbus bookworm "$root" >/dev/null
mount_root() {
	for m in proc dev dev/pts; do
		case $m in
			proc) mount -t proc proc "$root/proc" ;;
			dev) mount --bind /dev "$root/dev" ;;
			dev/pts) mount --bind /dev/pts "$root/dev/pts" ;;
		esac
		mounted=("$root/$m" "${mounted[@]}")
	done
}
unmount_root() {
	for m in "${mounted[@]}"; do umount "$m"; done
	mounted=()
}
mount_root
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
for tool in swift swiftc cc gcc clang; do
	if in_root sh -c "command -v $tool" >/dev/null; then echo "package-check: the clean root has $tool" >&2; exit 1; fi
done
if in_root dpkg-query -W -f '${Package}\n' | grep -q -- '-dev$'; then echo "package-check: the clean root has -dev packages" >&2; exit 1; fi
in_root find / -xdev -path /proc -prune -o -print 2>/dev/null | sort > "$work/before"

step "apt-get install ./$(basename "$deb")"
cp "$deb" "$root/tmp/"
in_root apt-get update -q > "$work/update.log" 2>&1 || { tail -20 "$work/update.log"; exit 1; }
in_root apt-get install -y -q "./tmp/$(basename "$deb")" > "$work/install.log" 2>&1 ||
	{ tail -30 "$work/install.log"; exit 1; }
in_root dpkg -L gpick | sort > "$work/files"

step "the services' units (systemd-analyze verify, an instance of each)"
for unit in gpick-serve gpick-publish gpick-record; do
	cp "$root/lib/systemd/system/$unit@.service" "$work/$unit@check.service"
	sed -i "s|ExecStart=/usr/bin/gpick|ExecStart=$root/usr/bin/gpick|; s|EnvironmentFile=/etc/gpick/%i.conf|EnvironmentFile=-/etc/gpick/%i.conf|" "$work/$unit@check.service"
	systemd-analyze verify --man=no "$work/$unit@check.service" 2>&1 | { ! grep .; } ||
		{ echo "package-check: $unit@.service does not verify" >&2; exit 1; }
done

step "gpick doctor: every command ready for the test source"
in_root gpick doctor > "$work/doctor.txt" 2>&1 || { cat "$work/doctor.txt"; exit 1; }
if grep -v '^ok \|^-- \|^GStreamer ' "$work/doctor.txt" | grep -q .; then cat "$work/doctor.txt"; exit 1; fi
grep -q '^ok  *snap' "$work/doctor.txt" && grep -q '^ok  *record mp4' "$work/doctor.txt" && grep -q '^ok  *serve rtsp' "$work/doctor.txt"

step "snap, record, serve and the terminal picker on the test source"
in_root mkdir -p /tmp/out
in_root gpick snap --source test -o /tmp/out/a.jpg
in_root gpick record --source test --duration 1 -o /tmp/out/a.mp4
[ "$(in_root gpick inspect /tmp/out/a.mp4 --json | grep -c '"frames":30')" -ge 1 ] || { in_root gpick inspect /tmp/out/a.mp4 --json; exit 1; }
in_root gpick serve --source test --port 0 --duration 2 --json > "$work/serve.json"
grep -q '"event":"started".*"url":"rtsp://127.0.0.1:' "$work/serve.json"
grep -q '"event":"finished".*"frames":[1-9]' "$work/serve.json"
python3 packaging/deb/pick_in_root.py "$root" > "$work/pick.txt" || { cat "$work/pick.txt"; exit 1; }

step "gpick-serve@ and gpick-record@ under the root's systemd (systemd-nspawn --boot)"
# The container mounts its own /proc and /dev.
unmount_root
packaging/deb/service_check.sh "$root" "$work"
mount_root

step "apt-get purge gpick"
in_root apt-get purge -y -q gpick > "$work/purge.log" 2>&1 || { tail -20 "$work/purge.log"; exit 1; }
# A folder another installed package also owns (systemd's unit folder, zsh's completions) stays.
left=$(while read -r f; do
	if [ "$f" != / ] && [ "$f" != /. ] && [ -e "$root$f" ] && ! grep -qx "$f" "$work/before" &&
		! in_root dpkg-query -S "$f" >/dev/null 2>&1; then echo "$f"; fi
done < "$work/files")
if [ -n "$left" ]; then echo "package-check: left behind by purge:" >&2; echo "$left" >&2; exit 1; fi
step "passed ($(du -h "$deb" | cut -f1) package, $(wc -l < "$work/files") files)"
