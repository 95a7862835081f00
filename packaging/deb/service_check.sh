#!/bin/bash
# service_check.sh ROOT WORK: gpick-serve@ as systemd runs it, on the root where package-check
# installed gpick. The root is booted with systemd-nspawn (its own systemd as PID 1, the
# host's network), and:
# - `systemctl start` returns once gpick has said READY=1, and the RTSP stream answers then;
# - when the camera stalls (the test source's stall-after: no error, no frame), gpick stops
#   feeding the watchdog; systemd stops it with SIGABRT, starts it again, and it serves again;
# - the journal says that was the watchdog, never that gpick crashed;
# - `systemctl stop` ends it with status 0.
# A drop-in shortens WatchdogSec and RestartSec, as a user tunes an instance. The unit's
# groups (video, render) must exist: the package's sysusers file makes render, which a root
# without udev lacks, and without it the unit cannot start at all (status 216/GROUP).
set -euo pipefail
root=$1 work=$2
unit=gpick-serve@check
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=rtsp://127.0.0.1:$port/cam
mkdir -p "$root/etc/gpick" "$root/etc/systemd/system/$unit.service.d"
# 240 frames at 30 fps: 8 s of frames, then none.
echo "GPICK_ARGS=\"--source test:smpte?stall-after=240 --port $port --width 320 --height 240\"" > "$root/etc/gpick/check.conf"
printf '[Service]\nWatchdogSec=2\nRestartSec=1\n' > "$root/etc/systemd/system/$unit.service.d/check.conf"

systemd-nspawn --quiet --directory="$root" --boot --register=no --keep-unit --machine=gpick-check > "$work/boot.log" 2>&1 &
nspawn=$!
init=""
inside() { nsenter --target="$init" --mount --uts --ipc --pid -- /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
fail() {
	echo "package-check: $*" >&2
	[ -n "$init" ] && inside journalctl -u "$unit" --no-pager -o short-monotonic 2>&1 | tail -30 >&2
	exit 1
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

# The stall: the watchdog fires, systemd restarts gpick, and the new one serves again.
restarted=""
for _ in $(seq 600); do
	if [ "$(inside systemctl show -p NRestarts --value "$unit")" -ge 1 ] &&
		[ "$(inside systemctl show -p ActiveState --value "$unit")" = active ]; then restarted=1; break; fi
	sleep 0.1
done
[ -n "$restarted" ] || fail "the stalled $unit was not restarted within 60 s"
gst-discoverer-1.0 -t 10 "$url" > "$work/discover2.txt" 2>&1 || true
grep -qi 'h\.264' "$work/discover2.txt" || { cat "$work/discover2.txt" >&2; fail "the restarted $unit does not serve $url"; }
inside journalctl -u "$unit" --no-pager -o cat > "$work/journal.txt"
grep -q "Watchdog timeout" "$work/journal.txt" || fail "the restart was not the watchdog's"
grep -qx "gpick: error: stopped by SIGABRT from process 1: the watchdog's signal (gpick feeds it only while the camera's frames flow)" \
	"$work/journal.txt" || fail "gpick did not say the watchdog stopped it"
if grep -q "crashed" "$work/journal.txt"; then fail "gpick said it crashed"; fi

inside systemctl stop "$unit"
status=$(inside systemctl show -p ExecMainStatus --value "$unit")
[ "$status" = 0 ] || fail "systemctl stop $unit: gpick exited with status $status"
