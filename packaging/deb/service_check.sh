#!/bin/bash
# service_check.sh ROOT WORK: gpick-serve@ and gpick-record@ as systemd runs them, on the root
# where package-check installed gpick. The root is booted with systemd-nspawn (its own systemd
# as PID 1, the host's network), and for each:
# - `systemctl start` returns once gpick has said READY=1: the RTSP stream answers then (serve);
# - when the camera stalls (the test source's stall-after: no error, no frame), gpick stops
#   feeding the watchdog; systemd stops it and starts it again: serve (stopped with SIGABRT)
#   serves again, and the journal says that was the watchdog's signal, never that gpick
#   crashed; record (stopped with SIGTERM, its WatchdogSignal) has finished its part with every
#   frame before the stall, and goes on after its parts;
# - `systemctl stop` ends it with status 0.
# A drop-in shortens WatchdogSec and RestartSec, as a user tunes an instance. The units'
# groups (video, render) must exist: the package's sysusers file makes render, which a root
# without udev lacks, and without it a unit cannot start at all (status 216/GROUP).
set -euo pipefail
root=$1 work=$2
unit=gpick-serve@check
record=gpick-record@rec
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=rtsp://127.0.0.1:$port/cam
parts=/var/lib/gpick/rec
mkdir -p "$root/etc/gpick"
# 240 frames at 30 fps: 8 s of frames, then none; 150: 5 s.
echo "GPICK_ARGS=\"--source test:smpte?stall-after=240 --port $port --width 320 --height 240\"" > "$root/etc/gpick/check.conf"
echo "GPICK_ARGS=\"--source test:smpte?stall-after=150 --width 320 --height 240 --split 2 --keep 1h -o $parts/cam.mp4\"" > "$root/etc/gpick/rec.conf"
for u in "$unit" "$record"; do
	mkdir -p "$root/etc/systemd/system/$u.service.d"
	printf '[Service]\nWatchdogSec=2\nRestartSec=1\n' > "$root/etc/systemd/system/$u.service.d/check.conf"
done

systemd-nspawn --quiet --directory="$root" --boot --register=no --keep-unit --machine=gpick-check > "$work/boot.log" 2>&1 &
nspawn=$!
init=""
inside() { nsenter --target="$init" --mount --uts --ipc --pid -- /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
fail() {
	echo "package-check: $*" >&2
	[ -n "$init" ] && inside journalctl -u "$unit" -u "$record" --no-pager -o short-monotonic 2>&1 | tail -40 >&2
	exit 1
}
# restarted UNIT: waits until systemd has restarted UNIT at least once and it runs again.
restarted() {
	for _ in $(seq 600); do
		restarts=$(inside systemctl show -p NRestarts --value "$1")
		if [ "${restarts:-0}" -ge 1 ] &&
			[ "$(inside systemctl show -p ActiveState --value "$1")" = active ]; then return 0; fi
		sleep 0.1
	done
	fail "the stalled $1 was not restarted within 60 s"
}
# watchdog_said UNIT LINE: this boot's journal of UNIT has systemd's watchdog timeout and gpick's
# LINE, and gpick never said it crashed.
watchdog_said() {
	inside journalctl -b -u "$1" --no-pager -o cat > "$work/journal-$1.txt"
	grep -q "Watchdog timeout" "$work/journal-$1.txt" || fail "$1: the restart was not the watchdog's"
	grep -qx "$2" "$work/journal-$1.txt" || fail "$1: gpick did not say \"$2\""
	if grep -q "crashed" "$work/journal-$1.txt"; then fail "$1: gpick said it crashed"; fi
}
# stopped UNIT: systemctl stop ends it with status 0.
stopped() {
	inside systemctl stop "$1"
	local status
	status=$(inside systemctl show -p ExecMainStatus --value "$1")
	[ "$status" = 0 ] || fail "systemctl stop $1: gpick exited with status $status"
}
shutdown() {
	[ -n "$init" ] && inside systemctl poweroff > /dev/null 2>&1 || true
	for _ in $(seq 300); do kill -0 "$nspawn" 2>/dev/null || return 0; sleep 0.1; done
	kill -9 "$nspawn" 2>/dev/null || true
	wait "$nspawn" 2>/dev/null || true
}
trap shutdown EXIT
for _ in $(seq 300); do
	init=$(pgrep -P "$nspawn" -x systemd || true)
	[ -n "$init" ] && break
	sleep 0.1
done
[ -n "$init" ] || { cat "$work/boot.log" >&2; fail "the root's systemd did not start"; }
for _ in $(seq 300); do inside test -S /run/systemd/private && break; sleep 0.1; done
booted=$(timeout 120 nsenter --target="$init" --mount --pid -- systemctl is-system-running --wait || true)
case $booted in running | degraded) ;; *) fail "the root's systemd did not come up: ${booted:-no answer}" ;; esac

# Type=notify: start returns when gpick has said READY=1, and by then the stream is up.
inside systemctl start "$unit" || fail "systemctl start $unit failed"
gst-discoverer-1.0 -t 10 "$url" > "$work/discover1.txt" 2>&1 || true
grep -qi 'h\.264' "$work/discover1.txt" || { cat "$work/discover1.txt" >&2; fail "READY=1 came, but $url did not answer"; }

# The loop recording starts beside it (another camera's service), and stalls after 5 s.
inside systemctl start "$record" || fail "systemctl start $record failed"

# The stall: the watchdog fires, systemd restarts gpick, and the new one serves again.
restarted "$unit"
gst-discoverer-1.0 -t 10 "$url" > "$work/discover2.txt" 2>&1 || true
grep -qi 'h\.264' "$work/discover2.txt" || { cat "$work/discover2.txt" >&2; fail "the restarted $unit does not serve $url"; }
watchdog_said "$unit" "gpick: error: stopped by SIGABRT from process 1: the watchdog's signal (gpick feeds it only while the camera's frames flow)"
stopped "$unit"

# The recording: restarted, it goes on after its parts. The first run's parts hold its 150
# frames, 60, 60 and the 30 before the stall (finished whole on the watchdog's SIGTERM); then
# the new run's, numbered on.
restarted "$record"
watchdog_said "$record" "gpick: terminated; finishing $parts/cam.mp4"
stopped "$record"
inside gpick recordings list "$parts" --json > "$work/parts.json" || fail "gpick recordings list $parts failed"
python3 - "$work/parts.json" <<'PY' || { cat "$work/parts.json" >&2; fail "$record's parts are not whole and numbered on"; }
import json, sys
parts = [e for e in map(json.loads, filter(str.strip, open(sys.argv[1]))) if e.get("event") == "part"]
files = [p["file"] for p in parts]
assert len(parts) >= 4, files
assert files == ["cam-%03d.mp4" % n for n in range(1, len(files) + 1)], files
assert [p["frames"] for p in parts[:3]] == [60, 60, 30], parts[:3]
assert all(p["frames"] >= 1 for p in parts), parts
PY
