// An HTTP + WebSocket server on one port over libwebsockets, for the live view (docs/guides/live.md).
//
// libwebsockets is not thread-safe: every lws call happens on the server's own service thread,
// except lws_cancel_service(), which the other threads call to wake it. Other threads hand their
// messages over through per-client queues under one mutex. Nothing here knows the Foxglove
// protocol: the caller answers client messages and composes what it sends.
#ifndef CLIVESERVER_H
#define CLIVESERVER_H

#include <stddef.h>
#include <stdint.h>

typedef struct pv_server pv_server;

/// A file served over HTTP, from memory.
typedef struct {
    const char *path;          // "/", "/app.js"
    const char *content_type;  // "text/html; charset=utf-8"
    const unsigned char *body;
    size_t length;
} pv_server_file;

enum {
    PV_SERVER_CONNECTED = 1,     // a WebSocket client was accepted; text: its subprotocol
    PV_SERVER_MESSAGE = 2,       // a whole client message: data, length, binary
    PV_SERVER_DISCONNECTED = 3,  // a client left; text: why, dropped: its dropped units
    PV_SERVER_REFUSED = 4,       // a request or handshake was refused; client 0, path, text: why
    PV_SERVER_CUT_OFF = 5,       // the server closed a client; text: why, dropped: its dropped units
};

/// What the server tells its owner, on the service thread. Pointers are valid during the call only.
typedef struct {
    int kind;
    uint64_t client;
    const char *peer;  // the client's address
    const char *path;  // the request's path, without its query (REFUSED)
    const char *text;
    const unsigned char *data;
    size_t length;
    int binary;
    uint64_t dropped;
} pv_server_event;

typedef void (*pv_server_callback)(void *context, const pv_server_event *event);

typedef struct {
    const char *host;  // an IPv4 or IPv6 address to bind, "0.0.0.0" for every interface
    int port;          // 0: a free port (see pv_server_start's bound_port)
    const char *token; // NULL: none needed; else every request and handshake must carry it
    const char *const *subprotocols;  // the WebSocket subprotocols accepted, the first one offered is echoed
    int subprotocol_count;
    const pv_server_file *files;
    int file_count;
    const char *content_security_policy;  // sent with every file
    int max_clients;          // WebSocket clients at once; more are refused (503)
    int handshake_timeout_s;  // for the request line, headers and handshake
    size_t max_message_bytes; // a longer client message closes the client (1009)
    double stall_timeout_s;   // a client that takes nothing for this long while data waits is cut off
    int queue_units;          // units waiting per client; the oldest goes when a new one comes
    pv_server_callback callback;
    void *context;
} pv_server_options;

/// Binds and starts the service thread. Returns 0, or -1 with a message in `error`.
int pv_server_start(const pv_server_options *options, pv_server **server, int *bound_port, char *error, size_t error_size);

/// Queues a text message for `client`, never dropped (protocol messages). Returns 0, or -1 when the
/// client is gone or its control queue is full (then it is cut off).
int pv_server_send_text(pv_server *server, uint64_t client, const unsigned char *text, size_t length);

/// Queues `count` binary messages for `client` as one unit: all of it is sent, in order, or none of
/// it. When `queue_units` units already wait, the oldest waiting one is dropped and counted.
/// Returns the number of units dropped (0 or 1), or -1 when the client is gone. The server is not
/// woken: call pv_server_wake once after the units of a frame for every client are queued.
int pv_server_send_unit(pv_server *server, uint64_t client, const unsigned char *const *messages, const size_t *lengths, int count);

/// Wakes the service thread to send what was queued.
void pv_server_wake(pv_server *server);

/// Closes `client` with a WebSocket close status and reason (after what was queued before).
void pv_server_close_client(pv_server *server, uint64_t client, int status, const char *reason);

/// Stops the service thread, closes every connection and frees the server. No other call may be
/// made with `server` once this has begun.
void pv_server_stop(pv_server *server);

#endif
