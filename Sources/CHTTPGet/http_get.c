// One GET with libcurl's multi interface, so that a caller's cancellation is heard within a poll
// slice, not at libcurl's once-a-second progress call. One easy handle per call: nothing is shared
// between threads but curl_global_init, which runs once.
//
// libcurl is opened with dlopen on the first GET, not linked: linked, every start of gpick-library
// and gpick-avatar loaded it with the dozen libraries behind it (TLS, LDAP, Kerberos, SSH, RTMP),
// about 15 ms of a 50 ms avatar, for a feature most runs never use.
#include "http_get.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void *library;
static CURLcode global_code = CURLE_OK;

// The function `name` of libcurl (loaded by global_init, before any call).
#define CURLFN(name) ((__typeof__(&name))dlsym(library, #name))

static void global_init(void) {
    library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library) global_code = CURLFN(curl_global_init)(CURL_GLOBAL_DEFAULT);
}

typedef struct {
    gpick_http_body_fn body;
    void *context;
    size_t received;
    int stopped;
} transfer;

static size_t on_write(char *data, size_t size, size_t count, void *user) {
    transfer *t = user;
    size_t n = size * count;
    if (!t->body(t->context, (const unsigned char *)data, n)) {
        t->stopped = 1;
        return 0; // libcurl ends the transfer with CURLE_WRITE_ERROR
    }
    t->received += n;
    return n;
}

// libcurl (7.88) opens its sockets without close-on-exec: a child that another thread spawns
// meanwhile would hold the connection open after this GET hung up, and the server would go on
// sending. Opened here with SOCK_CLOEXEC, atomically.
static curl_socket_t open_socket(void *unused, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)unused;
    (void)purpose;
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

static gpick_http_outcome outcome_of(CURLcode code) {
    switch (code) {
    case CURLE_OK: return GPICK_HTTP_DONE;
    case CURLE_HTTP_RETURNED_ERROR: return GPICK_HTTP_STATUS;
    case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_RESOLVE_PROXY: case CURLE_COULDNT_CONNECT:
        return GPICK_HTTP_UNREACHABLE;
    case CURLE_OPERATION_TIMEDOUT: return GPICK_HTTP_TIMEOUT;
    case CURLE_PEER_FAILED_VERIFICATION: case CURLE_SSL_CONNECT_ERROR: case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE: case CURLE_SSL_ISSUER_ERROR:
        return GPICK_HTTP_TLS;
    case CURLE_TOO_MANY_REDIRECTS: return GPICK_HTTP_REDIRECTS;
    case CURLE_UNSUPPORTED_PROTOCOL: return GPICK_HTTP_UNSUPPORTED;
    case CURLE_URL_MALFORMAT: return GPICK_HTTP_MALFORMED;
    default: return GPICK_HTTP_OTHER;
    }
}

void gpick_http_get(const char *url, long idle_timeout_s, gpick_http_body_fn body, gpick_http_wanted_fn wanted,
                    void *context, gpick_http_result *result) {
    memset(result, 0, sizeof *result);
    pthread_once(&global_once, global_init);
    if (!library) {
        result->outcome = GPICK_HTTP_MISSING;
        snprintf(result->message, sizeof result->message, "libcurl.so.4 cannot be loaded");
        return;
    }
    if (global_code != CURLE_OK) {
        result->outcome = GPICK_HTTP_OTHER;
        snprintf(result->message, sizeof result->message, "%s", CURLFN(curl_easy_strerror)(global_code));
        return;
    }
    CURL *easy = CURLFN(curl_easy_init)();
    CURLM *multi = CURLFN(curl_multi_init)();
    if (!easy || !multi) {
        if (easy) CURLFN(curl_easy_cleanup)(easy);
        if (multi) CURLFN(curl_multi_cleanup)(multi);
        result->outcome = GPICK_HTTP_OTHER;
        snprintf(result->message, sizeof result->message, "out of memory");
        return;
    }
    transfer t = { .body = body, .context = context };
    char error[CURL_ERROR_SIZE] = "";
    long idle = idle_timeout_s > 0 ? idle_timeout_s : 1;
    CURLFN(curl_easy_setopt)(easy, CURLOPT_URL, url);
    CURLFN(curl_easy_setopt)(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    CURLFN(curl_easy_setopt)(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    CURLFN(curl_easy_setopt)(easy, CURLOPT_FOLLOWLOCATION, 1L);
    CURLFN(curl_easy_setopt)(easy, CURLOPT_MAXREDIRS, 10L);
    CURLFN(curl_easy_setopt)(easy, CURLOPT_FAILONERROR, 1L);
    CURLFN(curl_easy_setopt)(easy, CURLOPT_USERAGENT, "gpick");
    // Threads: no SIGALRM for DNS timeouts (the threaded resolver needs none).
    CURLFN(curl_easy_setopt)(easy, CURLOPT_NOSIGNAL, 1L);
    CURLFN(curl_easy_setopt)(easy, CURLOPT_CONNECTTIMEOUT, idle);
    // "Nothing came for N s": under 1 byte a second for N seconds, waiting for headers included.
    CURLFN(curl_easy_setopt)(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    CURLFN(curl_easy_setopt)(easy, CURLOPT_LOW_SPEED_TIME, idle);
    CURLFN(curl_easy_setopt)(easy, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    CURLFN(curl_easy_setopt)(easy, CURLOPT_WRITEFUNCTION, on_write);
    CURLFN(curl_easy_setopt)(easy, CURLOPT_WRITEDATA, &t);
    CURLFN(curl_easy_setopt)(easy, CURLOPT_ERRORBUFFER, error);
    CURLFN(curl_multi_add_handle)(multi, easy);

    CURLcode code = CURLE_OK;
    int running = 1, cancelled = 0;
    while (running) {
        if (CURLFN(curl_multi_perform)(multi, &running) != CURLM_OK) { code = CURLE_FAILED_INIT; break; }
        if (!running) break;
        if (!wanted(context)) { cancelled = 1; break; }
        CURLFN(curl_multi_poll)(multi, NULL, 0, 20, NULL);
    }
    int left;
    CURLMsg *message;
    while ((message = CURLFN(curl_multi_info_read)(multi, &left)))
        if (message->msg == CURLMSG_DONE) code = message->data.result;

    CURLFN(curl_easy_getinfo)(easy, CURLINFO_RESPONSE_CODE, &result->status);
    result->received = t.received;
    if (cancelled) result->outcome = GPICK_HTTP_CANCELLED;
    else if (t.stopped) result->outcome = GPICK_HTTP_STOPPED;
    else result->outcome = outcome_of(code);
    snprintf(result->message, sizeof result->message, "%s", error[0] ? error : CURLFN(curl_easy_strerror)(code));
    CURLFN(curl_multi_remove_handle)(multi, easy);
    CURLFN(curl_easy_cleanup)(easy);
    CURLFN(curl_multi_cleanup)(multi);
}
