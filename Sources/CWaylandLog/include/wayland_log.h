#pragma once

/// Called with the text of a protocol error that ended a Wayland connection of this process.
typedef void (*gpick_wayland_error_report)(const char *message);

/// Watches libwayland-client's log for protocol errors, once libwayland-client is loaded (a
/// Wayland sink loads it): a compositor that ends a client's connection says why only there.
/// Returns 0 when libwayland-client is not loaded. Every line still reaches stderr.
int gpick_wayland_watch_errors(gpick_wayland_error_report report);
