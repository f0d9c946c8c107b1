// The live view's HTTP + WebSocket server over libwebsockets (see CLiveServer.h for the threading
// rules). Protocol 0 serves the files and vets every WebSocket upgrade (token, subprotocol, client
// count); the accepted subprotocols share one callback that queues, writes and receives.
#include "CLiveServer.h"

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>
#include <time.h>

/// One queued message, with LWS_PRE bytes of headroom before it for lws_write.
typedef struct pv_message {
    struct pv_message *next;
    size_t length;
    int binary;
    unsigned char bytes[];
} pv_message;

typedef struct pv_client {
    struct pv_client *next;
    uint64_t id;
    struct lws *wsi;
    char peer[64];
    // Guarded by the server's mutex:
    pv_message *control, *control_tail;  // text messages, in order, never dropped
    int control_count;
    pv_message **units;  // ring of waiting units (each a list of messages)
    int unit_capacity, unit_first, unit_count;
    pv_message *current;  // the rest of the unit being written
    uint64_t dropped;
    double stalled_since;  // when data began to wait without a write since; 0: nothing waits
    int wants_write;
    int closing, close_status;
    char close_reason[96];
    int cut_off;  // the server is closing it; the reason is reported once
    // The service thread's own:
    unsigned char *rx;
    size_t rx_length;
} pv_client;

/// Per-connection data lws allocates for every protocol.
typedef struct {
    pv_client *client;           // WebSocket connections
    const pv_server_file *file;  // an HTTP response being written
    size_t sent;
} pv_session;

struct pv_server {
    pv_server_options options;
    struct lws_context *context;
    struct lws_vhost *vhost;
    struct lws_protocols *protocols;
    pthread_t thread;
    atomic_int stopping;
    pthread_mutex_t mutex;
    pv_client *clients;  // guarded by mutex
    int client_count;
    uint64_t next_id;
    lws_sorted_usec_list_t tick;
    // Copies of the options' strings and files, owned by the server.
    char *host, *token, *csp;
    char **subprotocols;
    pv_server_file *files;
};

static const int control_limit = 256;
static const char *http_protocol_name = "periphery-http";

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *copy_string(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

static pv_message *make_message(const unsigned char *bytes, size_t length, int binary) {
    pv_message *m = malloc(sizeof(pv_message) + LWS_PRE + length);
    if (!m) return NULL;
    m->next = NULL;
    m->length = length;
    m->binary = binary;
    if (length) memcpy(m->bytes + LWS_PRE, bytes, length);
    return m;
}

static void free_messages(pv_message *m) {
    while (m) {
        pv_message *next = m->next;
        free(m);
        m = next;
    }
}

static void free_client(pv_client *c) {
    free_messages(c->control);
    free_messages(c->current);
    for (int i = 0; c->units && i < c->unit_count; i++) free_messages(c->units[(c->unit_first + i) % c->unit_capacity]);
    free(c->units);
    free(c->rx);
    free(c);
}

static void emit(pv_server *s, int kind, uint64_t client, const char *peer, const char *path, const char *text,
                 const unsigned char *data, size_t length, int binary, uint64_t dropped) {
    if (!s->options.callback) return;
    pv_server_event e = {kind, client, peer ? peer : "", path ? path : "", text ? text : "", data, length, binary, dropped};
    s->options.callback(s->options.context, &e);
}

/// The client with `id`; the mutex must be held.
static pv_client *find_client(pv_server *s, uint64_t id) {
    for (pv_client *c = s->clients; c; c = c->next)
        if (c->id == id) return c;
    return NULL;
}

/// Constant-time comparison, so that the time taken says nothing about the token.
static int token_matches(const char *given, const char *token) {
    size_t a = strlen(given), b = strlen(token);
    unsigned char diff = (unsigned char)(a != b);
    for (size_t i = 0; i < b; i++) diff |= (unsigned char)((i < a ? given[i] : 0) ^ token[i]);
    return diff == 0;
}

/// Whether the request carries the token, as `?token=` or `Authorization: Bearer`.
static int authorized(pv_server *s, struct lws *wsi) {
    if (!s->token) return 1;
    char buffer[512];
    const char *arg = lws_get_urlarg_by_name(wsi, "token=", buffer, sizeof buffer);
    if (arg && token_matches(arg, s->token)) return 1;
    int n = lws_hdr_copy(wsi, buffer, sizeof buffer, WSI_TOKEN_HTTP_AUTHORIZATION);
    if (n > 7 && strncasecmp(buffer, "Bearer ", 7) == 0 && token_matches(buffer + 7, s->token)) return 1;
    return 0;
}

static void peer_of(struct lws *wsi, char *peer, size_t size) {
    peer[0] = 0;
    if (!lws_get_peer_simple(wsi, peer, size)) snprintf(peer, size, "unknown");
}

/// The first of `offered` (a Sec-WebSocket-Protocol list) that the server accepts, or NULL; `bad`
/// is set when the list names the HTTP protocol, which must never carry a WebSocket.
static const char *accepted_subprotocol(pv_server *s, char *offered, int *bad) {
    *bad = 0;
    const char *chosen = NULL;
    for (char *save = NULL, *name = strtok_r(offered, ", \t", &save); name; name = strtok_r(NULL, ", \t", &save)) {
        if (strcmp(name, http_protocol_name) == 0) *bad = 1;
        for (int i = 0; i < s->options.subprotocol_count && !chosen; i++)
            if (strcmp(name, s->subprotocols[i]) == 0) chosen = s->subprotocols[i];
    }
    return chosen;
}

static const char *reason_phrase(unsigned int status) {
    switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    default: return "Service Unavailable";
    }
}

/// Answers with `status` and a one-line text body, logs the refusal (the path has no query, so no
/// token), and closes. Written whole, by hand: lws's own error pages link a stylesheet and, during
/// an upgrade, say HTTP/1.0, which WebSocket clients reject as a response.
static int refuse(pv_server *s, struct lws *wsi, unsigned int status, const char *why, const char *path) {
    char peer[64];
    peer_of(wsi, peer, sizeof peer);
    emit(s, PV_SERVER_REFUSED, 0, peer, path, why, NULL, 0, 0, 0);
    unsigned char buffer[LWS_PRE + 768];
    char *start = (char *)buffer + LWS_PRE;
    int n = snprintf(start, 768,
                     "HTTP/1.1 %u %s\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: %zu\r\n%s"
                     "cache-control: no-store\r\nconnection: close\r\n\r\n%u %s\n",
                     status, reason_phrase(status), strlen(why) + 5, status == 401 ? "www-authenticate: Bearer\r\n" : "", status, why);
    if (n > 0 && n < 768) lws_write(wsi, (unsigned char *)start, (size_t)n, LWS_WRITE_HTTP_HEADERS);
    return -1;
}

static int serve_file(pv_server *s, struct lws *wsi, pv_session *session, const char *path, int head_only) {
    const pv_server_file *file = NULL;
    for (int i = 0; i < s->options.file_count; i++)
        if (strcmp(s->files[i].path, path) == 0) file = &s->files[i];
    if (!file) return refuse(s, wsi, HTTP_STATUS_NOT_FOUND, "not found", path);
    unsigned char headers[LWS_PRE + 2048], *start = headers + LWS_PRE, *p = start, *end = headers + sizeof headers - 1;
    if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, file->content_type, file->length, &p, end)) return 1;
    const char *csp = s->csp ? s->csp : "default-src 'none'";
    if (lws_add_http_header_by_name(wsi, (const unsigned char *)"content-security-policy:", (const unsigned char *)csp, (int)strlen(csp), &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"x-content-type-options:", (const unsigned char *)"nosniff", 7, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:", (const unsigned char *)"no-store", 8, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"referrer-policy:", (const unsigned char *)"no-referrer", 11, &p, end))
        return 1;
    if (lws_finalize_write_http_header(wsi, start, &p, end)) return 1;
    if (head_only) return lws_http_transaction_completed(wsi) ? -1 : 0;
    session->file = file;
    session->sent = 0;
    lws_callback_on_writable(wsi);
    return 0;
}

static int write_file(struct lws *wsi, pv_session *session) {
    const pv_server_file *file = session->file;
    if (!file) return 0;
    unsigned char buffer[LWS_PRE + 16384];
    size_t n = file->length - session->sent;
    if (n > 16384) n = 16384;
    int final = session->sent + n == file->length;
    if (n) memcpy(buffer + LWS_PRE, file->body + session->sent, n);
    if (lws_write(wsi, buffer + LWS_PRE, n, final ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n) return 1;
    session->sent += n;
    if (!final) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    session->file = NULL;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/// On the service thread, after a wake-up or a tick: asks to write for clients with data waiting and
/// cuts off clients that have taken nothing for too long. Events go out after the mutex is released.
static void service_clients(pv_server *s) {
    enum { most = 64 };
    struct { uint64_t id; uint64_t dropped; char peer[64]; } cut[most];
    int cuts = 0;
    double now = now_seconds();
    pthread_mutex_lock(&s->mutex);
    for (pv_client *c = s->clients; c; c = c->next) {
        if (!c->cut_off && c->stalled_since > 0 && now - c->stalled_since > s->options.stall_timeout_s) {
            c->cut_off = 1;
            lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
            if (cuts < most) {
                cut[cuts].id = c->id;
                cut[cuts].dropped = c->dropped;
                memcpy(cut[cuts].peer, c->peer, sizeof c->peer);
                cuts++;
            }
            continue;
        }
        if (c->wants_write) {
            c->wants_write = 0;
            lws_callback_on_writable(c->wsi);
        }
    }
    pthread_mutex_unlock(&s->mutex);
    char why[96];
    snprintf(why, sizeof why, "took nothing for %.1f s while data waited", s->options.stall_timeout_s);
    for (int i = 0; i < cuts; i++) emit(s, PV_SERVER_CUT_OFF, cut[i].id, cut[i].peer, NULL, why, NULL, 0, 0, cut[i].dropped);
}

static void on_tick(lws_sorted_usec_list_t *sul) {
    pv_server *s = lws_container_of(sul, pv_server, tick);
    service_clients(s);
    lws_sul_schedule(s->context, 0, &s->tick, on_tick, 250 * LWS_US_PER_MS);
}

/// Takes the next waiting message of `c`: a control message first, else the next of its unit.
/// The mutex must be held.
static pv_message *take_next(pv_server *s, pv_client *c) {
    pv_message *m = c->control;
    if (m) {
        c->control = m->next;
        if (!c->control) c->control_tail = NULL;
        c->control_count--;
        return m;
    }
    if (!c->current && c->unit_count > 0) {
        c->current = c->units[c->unit_first];
        c->unit_first = (c->unit_first + 1) % c->unit_capacity;
        c->unit_count--;
    }
    m = c->current;
    if (m) c->current = m->next;
    return m;
}

/// Writes what waits for `c` while the socket takes it: up to a frame's messages per writable
/// callback, not one, so that a frame costs each client one turn of the service loop (every turn
/// wakes a thread beside the engine's pools). lws_send_pipe_choked stops it before lws would have
/// to buffer.
static int write_waiting(pv_server *s, struct lws *wsi, pv_client *c) {
    for (int written = 0; written < 16; written++) {
        pthread_mutex_lock(&s->mutex);
        if (c->closing) {
            int status = c->close_status;
            char reason[96];
            memcpy(reason, c->close_reason, sizeof reason);
            pthread_mutex_unlock(&s->mutex);
            lws_close_reason(wsi, (enum lws_close_status)status, (unsigned char *)reason, strlen(reason));
            return -1;
        }
        pv_message *m = take_next(s, c);
        pthread_mutex_unlock(&s->mutex);
        if (!m) break;
        int n = lws_write(wsi, m->bytes + LWS_PRE, m->length, m->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
        int failed = n < (int)m->length;
        free(m);
        if (failed) return -1;
        if (lws_send_pipe_choked(wsi)) break;
    }
    pthread_mutex_lock(&s->mutex);
    int more = c->control || c->current || c->unit_count > 0;
    c->stalled_since = more ? now_seconds() : 0;
    pthread_mutex_unlock(&s->mutex);
    if (more) lws_callback_on_writable(wsi);
    return 0;
}

static int receive(pv_server *s, struct lws *wsi, pv_client *c, const void *in, size_t length) {
    if (c->rx_length + length > s->options.max_message_bytes) {
        char why[96];
        snprintf(why, sizeof why, "a client message longer than %zu bytes", s->options.max_message_bytes);
        emit(s, PV_SERVER_CUT_OFF, c->id, c->peer, NULL, why, NULL, 0, 0, c->dropped);
        lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, (unsigned char *)"message too large", 17);
        return -1;
    }
    unsigned char *grown = realloc(c->rx, c->rx_length + length + 1);
    if (!grown) return -1;
    c->rx = grown;
    memcpy(c->rx + c->rx_length, in, length);
    c->rx_length += length;
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi) > 0) return 0;
    emit(s, PV_SERVER_MESSAGE, c->id, c->peer, NULL, NULL, c->rx, c->rx_length, lws_frame_is_binary(wsi), 0);
    c->rx_length = 0;
    return 0;
}

static int http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    pv_server *s = lws_context_user(lws_get_context(wsi));
    pv_session *session = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP: {
        const char *path = in ? (const char *)in : "/";
        int head_only = lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0;
        if (!head_only && lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0) return refuse(s, wsi, 405, "only GET and HEAD are served", path);
        if (!authorized(s, wsi)) return refuse(s, wsi, HTTP_STATUS_UNAUTHORIZED, "missing or wrong token", path);
        return serve_file(s, wsi, session, path, head_only);
    }
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return session ? write_file(wsi, session) : 0;
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: {
        char path[256] = "/";
        lws_hdr_copy(wsi, path, sizeof path, WSI_TOKEN_GET_URI);
        if (!authorized(s, wsi)) return refuse(s, wsi, HTTP_STATUS_UNAUTHORIZED, "missing or wrong token", path);
        char offered[256] = "";
        if (lws_hdr_copy(wsi, offered, sizeof offered, WSI_TOKEN_PROTOCOL) < 0) offered[0] = 0;
        int bad;
        if (!accepted_subprotocol(s, offered, &bad) || bad)
            return refuse(s, wsi, HTTP_STATUS_BAD_REQUEST, "no supported WebSocket subprotocol offered", path);
        pthread_mutex_lock(&s->mutex);
        int full = s->client_count >= s->options.max_clients;
        pthread_mutex_unlock(&s->mutex);
        if (full) return refuse(s, wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, "too many clients", path);
        return 0;
    }
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return 1;  // never a WebSocket on the HTTP protocol
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        service_clients(s);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static int websocket_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    pv_server *s = lws_context_user(lws_get_context(wsi));
    pv_session *session = user;
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED: {
        pv_client *c = calloc(1, sizeof *c);
        pv_message **units = calloc((size_t)s->options.queue_units, sizeof *units);
        if (!c || !units) {
            free(c);
            free(units);
            return -1;
        }
        c->units = units;
        c->unit_capacity = s->options.queue_units;
        c->wsi = wsi;
        // A modest kernel send buffer: what a client has not taken stays bounded, and one that stops
        // reading fills it within a few frames, so that the stall bound starts counting soon.
        int send_buffer = 256 * 1024;
        setsockopt(lws_get_socket_fd(wsi), SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof send_buffer);
        peer_of(wsi, c->peer, sizeof c->peer);
        pthread_mutex_lock(&s->mutex);
        c->id = ++s->next_id;
        c->next = s->clients;
        s->clients = c;
        s->client_count++;
        pthread_mutex_unlock(&s->mutex);
        session->client = c;
        emit(s, PV_SERVER_CONNECTED, c->id, c->peer, NULL, lws_get_protocol(wsi)->name, NULL, 0, 0, 0);
        return 0;
    }
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return session->client ? write_waiting(s, wsi, session->client) : 0;
    case LWS_CALLBACK_RECEIVE:
        return session->client ? receive(s, wsi, session->client, in, len) : -1;
    case LWS_CALLBACK_CLOSED: {
        pv_client *c = session->client;
        if (!c) return 0;
        session->client = NULL;
        pthread_mutex_lock(&s->mutex);
        for (pv_client **p = &s->clients; *p; p = &(*p)->next)
            if (*p == c) {
                *p = c->next;
                break;
            }
        s->client_count--;
        uint64_t dropped = c->dropped;
        int was_cut = c->cut_off;
        pthread_mutex_unlock(&s->mutex);
        if (!was_cut) emit(s, PV_SERVER_DISCONNECTED, c->id, c->peer, NULL, "closed", NULL, 0, 0, dropped);
        free_client(c);
        return 0;
    }
    default:
        return 0;
    }
}

int pv_server_send_text(pv_server *s, uint64_t client, const unsigned char *text, size_t length) {
    pv_message *m = make_message(text, length, 0);
    if (!m) return -1;
    pthread_mutex_lock(&s->mutex);
    pv_client *c = find_client(s, client);
    int status = 0;
    if (!c || c->closing || c->cut_off) {
        free(m);
        status = -1;
    } else if (c->control_count >= control_limit) {
        free(m);
        c->closing = 1;
        c->close_status = LWS_CLOSE_STATUS_POLICY_VIOLATION;
        snprintf(c->close_reason, sizeof c->close_reason, "too many protocol messages waiting");
        c->wants_write = 1;
        status = -1;
    } else {
        if (c->control_tail) c->control_tail->next = m;
        else c->control = m;
        c->control_tail = m;
        c->control_count++;
        if (c->stalled_since == 0) c->stalled_since = now_seconds();
        c->wants_write = 1;
    }
    pthread_mutex_unlock(&s->mutex);
    lws_cancel_service(s->context);
    return status;
}

int pv_server_send_unit(pv_server *s, uint64_t client, const unsigned char *const *messages, const size_t *lengths, int count) {
    pv_message *first = NULL, *last = NULL;
    for (int i = 0; i < count; i++) {
        pv_message *m = make_message(messages[i], lengths[i], 1);
        if (!m) {
            free_messages(first);
            return -1;
        }
        if (last) last->next = m;
        else first = m;
        last = m;
    }
    if (!first) return 0;
    int dropped = 0;
    pthread_mutex_lock(&s->mutex);
    pv_client *c = find_client(s, client);
    if (!c || c->closing || c->cut_off) {
        pthread_mutex_unlock(&s->mutex);
        free_messages(first);
        return -1;
    }
    int size = s->options.queue_units;
    if (c->unit_count == size) {
        // The newest wins: the oldest waiting unit goes (never the one being written).
        free_messages(c->units[c->unit_first]);
        c->unit_first = (c->unit_first + 1) % size;
        c->unit_count--;
        c->dropped++;
        dropped = 1;
    }
    c->units[(c->unit_first + c->unit_count) % size] = first;
    c->unit_count++;
    if (c->stalled_since == 0) c->stalled_since = now_seconds();
    c->wants_write = 1;
    pthread_mutex_unlock(&s->mutex);
    return dropped;
}

void pv_server_wake(pv_server *s) {
    lws_cancel_service(s->context);
}

void pv_server_close_client(pv_server *s, uint64_t client, int status, const char *reason) {
    pthread_mutex_lock(&s->mutex);
    pv_client *c = find_client(s, client);
    if (c && !c->closing) {
        c->closing = 1;
        c->close_status = status;
        snprintf(c->close_reason, sizeof c->close_reason, "%s", reason ? reason : "");
        c->wants_write = 1;
    }
    pthread_mutex_unlock(&s->mutex);
    lws_cancel_service(s->context);
}

static void *service_main(void *argument) {
    pv_server *s = argument;
    lws_sul_schedule(s->context, 0, &s->tick, on_tick, 250 * LWS_US_PER_MS);
    while (!atomic_load(&s->stopping))
        if (lws_service(s->context, 0) < 0) break;
    lws_sul_cancel(&s->tick);
    lws_context_destroy(s->context);
    s->context = NULL;
    return NULL;
}

// libwebsockets logs through one process-wide function; the first error since a start began is
// kept for the message of a failed start (it names the cause; later ones only say that init
// failed), and nothing is printed.
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
static char first_error[256];

static void keep_log(int level, const char *line) {
    pthread_mutex_lock(&log_mutex);
    if (!first_error[0] && (level & LLL_ERR)) {
        snprintf(first_error, sizeof first_error, "%s", line);
        size_t n = strlen(first_error);
        while (n && (first_error[n - 1] == '\n' || first_error[n - 1] == '\r' || first_error[n - 1] == ' ')) first_error[--n] = 0;
    }
    pthread_mutex_unlock(&log_mutex);
}

static void start_error(char *error, size_t size, const char *what) {
    pthread_mutex_lock(&log_mutex);
    snprintf(error, size, "%s%s%s", what, first_error[0] ? ": " : "", first_error);
    pthread_mutex_unlock(&log_mutex);
}

static void free_server(pv_server *s) {
    free(s->protocols);
    free(s->host);
    free(s->token);
    free(s->csp);
    if (s->subprotocols)
        for (int i = 0; i < s->options.subprotocol_count; i++) free(s->subprotocols[i]);
    free(s->subprotocols);
    if (s->files)
        for (int i = 0; i < s->options.file_count; i++) {
            free((void *)s->files[i].path);
            free((void *)s->files[i].content_type);
            free((void *)s->files[i].body);
        }
    free(s->files);
    while (s->clients) {
        pv_client *next = s->clients->next;
        free_client(s->clients);
        s->clients = next;
    }
    pthread_mutex_destroy(&s->mutex);
    free(s);
}

static int copy_options(pv_server *s, const pv_server_options *o) {
    s->options = *o;
    s->host = copy_string(o->host);
    s->token = o->token && *o->token ? copy_string(o->token) : NULL;
    s->csp = copy_string(o->content_security_policy);
    s->subprotocols = calloc((size_t)o->subprotocol_count + 1, sizeof(char *));
    s->files = calloc((size_t)o->file_count + 1, sizeof(pv_server_file));
    s->protocols = calloc((size_t)o->subprotocol_count + 2, sizeof(struct lws_protocols));
    if (!s->host || !s->subprotocols || !s->files || !s->protocols) return -1;
    for (int i = 0; i < o->subprotocol_count; i++)
        if (!(s->subprotocols[i] = copy_string(o->subprotocols[i]))) return -1;
    for (int i = 0; i < o->file_count; i++) {
        unsigned char *body = malloc(o->files[i].length + 1);
        s->files[i].path = copy_string(o->files[i].path);
        s->files[i].content_type = copy_string(o->files[i].content_type);
        s->files[i].body = body;
        s->files[i].length = o->files[i].length;
        if (!body || !s->files[i].path || !s->files[i].content_type) return -1;
        memcpy(body, o->files[i].body, o->files[i].length);
    }
    if (s->options.queue_units < 1) s->options.queue_units = 1;
    if (s->options.max_clients < 1) s->options.max_clients = 1;
    return 0;
}

/// Whether `host:port` can be bound here, tried on a socket of our own first: libwebsockets, given
/// an address this machine does not have, waits for it to appear instead of failing, and would
/// then serve nothing while the run said it served.
static int bindable(const char *host, int port, char *error, size_t size) {
    struct addrinfo hints, *found = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    int status = getaddrinfo(host, service, &hints, &found);
    if (status || !found) {
        snprintf(error, size, "not an address: %s", gai_strerror(status));
        return 0;
    }
    int fd = socket(found->ai_family, SOCK_STREAM, 0), one = 1, ok = 0;
    if (fd >= 0) {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        ok = bind(fd, found->ai_addr, found->ai_addrlen) == 0;
        if (!ok) snprintf(error, size, "%s", strerror(errno));
        close(fd);
    } else {
        snprintf(error, size, "%s", strerror(errno));
    }
    freeaddrinfo(found);
    return ok;
}

int pv_server_start(const pv_server_options *o, pv_server **out, int *bound_port, char *error, size_t error_size) {
    *out = NULL;
    if (!bindable(o->host, o->port, error, error_size)) return -1;
    pv_server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    pthread_mutex_init(&s->mutex, NULL);
    if (copy_options(s, o)) {
        free_server(s);
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    s->protocols[0] = (struct lws_protocols){http_protocol_name, http_callback, sizeof(pv_session), 0, 0, NULL, 0};
    for (int i = 0; i < o->subprotocol_count; i++)
        s->protocols[i + 1] = (struct lws_protocols){s->subprotocols[i], websocket_callback, sizeof(pv_session), 4096, 0, NULL, 65536};

    pthread_mutex_lock(&log_mutex);
    first_error[0] = 0;
    pthread_mutex_unlock(&log_mutex);
    lws_set_log_level(LLL_ERR | LLL_WARN, keep_log);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    info.gid = -1;
    info.uid = -1;
    info.user = s;
    info.timeout_secs = (unsigned int)(o->handshake_timeout_s > 0 ? o->handshake_timeout_s : 5);
    // Room for the clients allowed, their HTTP requests, and the refused ones while they are answered.
    info.fd_limit_per_thread = (unsigned int)(s->options.max_clients + 64);
    s->context = lws_create_context(&info);
    if (!s->context) {
        start_error(error, error_size, "libwebsockets could not start");
        free_server(s);
        return -1;
    }
    memset(&info, 0, sizeof info);
    info.port = o->port;
    info.iface = strcmp(s->host, "0.0.0.0") == 0 ? NULL : s->host;
    info.protocols = s->protocols;
    info.vhost_name = "periphery";
    info.options = strchr(s->host, ':') ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6;
    info.keepalive_timeout = 5;
    info.timeout_secs = (unsigned int)(o->handshake_timeout_s > 0 ? o->handshake_timeout_s : 5);
    s->vhost = lws_create_vhost(s->context, &info);
    if (!s->vhost) {
        start_error(error, error_size, "the address cannot be bound (in use, or not this machine's)");
        lws_context_destroy(s->context);
        free_server(s);
        return -1;
    }
    *bound_port = lws_get_vhost_listen_port(s->vhost);
    if (*bound_port <= 0) {
        start_error(error, error_size, "the address cannot be bound");
        lws_context_destroy(s->context);
        free_server(s);
        return -1;
    }
    if (pthread_create(&s->thread, NULL, service_main, s)) {
        snprintf(error, error_size, "cannot start the server's thread");
        lws_context_destroy(s->context);
        free_server(s);
        return -1;
    }
    *out = s;
    return 0;
}

void pv_server_stop(pv_server *s) {
    if (!s) return;
    atomic_store(&s->stopping, 1);
    lws_cancel_service(s->context);
    pthread_join(s->thread, NULL);
    free_server(s);
}
