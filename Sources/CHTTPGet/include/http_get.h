#ifndef GPICK_HTTP_GET_H
#define GPICK_HTTP_GET_H

#include <stddef.h>

/// Why a GET ended, in terms the caller words for users; libcurl's own codes stay in the C file.
typedef enum {
    GPICK_HTTP_DONE = 0,          ///< the whole body came
    GPICK_HTTP_STOPPED,           ///< the body callback had enough (or too much)
    GPICK_HTTP_CANCELLED,         ///< `wanted` said no
    GPICK_HTTP_STATUS,            ///< the server answered 4xx/5xx (`status`)
    GPICK_HTTP_UNREACHABLE,       ///< no such host, or nothing answers at its port
    GPICK_HTTP_TIMEOUT,           ///< nothing came for `idle_timeout_s`
    GPICK_HTTP_TLS,               ///< the certificate or the TLS handshake failed
    GPICK_HTTP_REDIRECTS,         ///< more than 10 redirects
    GPICK_HTTP_UNSUPPORTED,       ///< a redirect to a scheme other than http(s)
    GPICK_HTTP_MALFORMED,         ///< not a well-formed URL
    GPICK_HTTP_OTHER,             ///< anything else: `message` says what
    GPICK_HTTP_MISSING            ///< libcurl (Debian's libcurl4) cannot be loaded
} gpick_http_outcome;

typedef struct {
    gpick_http_outcome outcome;
    long status;                  ///< the last HTTP status (0 if none came)
    size_t received;              ///< body bytes handed to the callback
    char message[256];            ///< libcurl's own words, for the details
} gpick_http_result;

/// Takes the bytes (returns 1 to go on, 0 to stop the transfer).
typedef int (*gpick_http_body_fn)(void *context, const unsigned char *bytes, size_t count);
/// Asked every 20 ms or so: 0 cancels the transfer.
typedef int (*gpick_http_wanted_fn)(void *context);

/// One GET of an http(s) URL, blocking the calling thread: redirects followed (http and https
/// only), TLS verified, proxies from the environment, no signals. Gives up when nothing arrives
/// for `idle_timeout_s` seconds, connecting included.
void gpick_http_get(const char *url, long idle_timeout_s, gpick_http_body_fn body, gpick_http_wanted_fn wanted,
                    void *context, gpick_http_result *result);

#endif
