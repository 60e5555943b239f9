// A bare libzmq relay: the baseline ActionBus is measured against (scripts/perf/compare.sh).
//
//   relay proxy FRONTEND BACKEND          ROUTER (clients) <-> zmq_proxy <-> DEALER (workers)
//   relay worker BACKEND                   a DEALER that echoes every message it gets
//   relay client FRONTEND N WINDOW SIZE    a DEALER keeping WINDOW requests of SIZE bytes in
//                                          flight until N have returned; prints one JSON line
//   relay abp-flood ENDPOINT N             an ActionBus (ABP/5) client that sends N PERFORMs as
//                                          fast as they are taken and counts the ACCEPTEDs: with
//                                          no worker, it fills the coordinator's queue; prints
//                                          the acceptance rate over the first and last 10 000
//                                          (or more: a window is whole drains of ACCEPTEDs)
//   relay mdp-client ENDPOINT N WINDOW SERVICE BODY
//                                          a pipelined Majordomo (MDP/0.2, RFC 18) client: the
//                                          same loop against any MDP broker, ActionBus included
//
// The same shape as the bus (client -> router -> worker -> back), with none of its work:
// no decoding, no bookkeeping, no journal. Build: cc -O2 relay.c -lzmq -o relay
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fail(const char *what) {
    fprintf(stderr, "relay: %s: %s\n", what, zmq_strerror(zmq_errno()));
    exit(1);
}

static void set_hwm(void *socket) {
    int hwm = 100000;
    zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt(socket, ZMQ_RCVHWM, &hwm, sizeof hwm);
}

static int run_proxy(void *context, const char *frontend_endpoint, const char *backend_endpoint) {
    void *frontend = zmq_socket(context, ZMQ_ROUTER);
    void *backend = zmq_socket(context, ZMQ_DEALER);
    set_hwm(frontend);
    set_hwm(backend);
    if (zmq_bind(frontend, frontend_endpoint) != 0) fail("bind frontend");
    if (zmq_bind(backend, backend_endpoint) != 0) fail("bind backend");
    zmq_proxy(frontend, backend, NULL);
    return 0;
}

static _Noreturn void run_worker(void *context, const char *backend_endpoint) {
    void *socket = zmq_socket(context, ZMQ_DEALER);
    set_hwm(socket);
    if (zmq_connect(socket, backend_endpoint) != 0) fail("connect");
    zmq_msg_t frame;
    zmq_msg_init(&frame);
    for (;;) {
        // Echo every frame back as it came (the envelope included), as a multipart message.
        if (zmq_msg_recv(&frame, socket, 0) < 0) fail("recv");
        int more = zmq_msg_more(&frame);
        if (zmq_msg_send(&frame, socket, more ? ZMQ_SNDMORE : 0) < 0) fail("send");
    }
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int run_client(void *context, const char *frontend_endpoint, long total, long window, long size) {
    void *socket = zmq_socket(context, ZMQ_DEALER);
    set_hwm(socket);
    if (zmq_connect(socket, frontend_endpoint) != 0) fail("connect");
    if (size < 8) size = 8;
    char *payload = calloc(1, (size_t)size);
    uint64_t *latencies = malloc(sizeof(uint64_t) * (size_t)total);
    // Warm up: one round trip, so connection setup is not measured.
    uint64_t stamp = now_ns();
    memcpy(payload, &stamp, 8);
    if (zmq_send(socket, payload, (size_t)size, 0) < 0) fail("send");
    if (zmq_recv(socket, payload, (size_t)size, 0) < 0) fail("recv");

    long sent = 0, received = 0;
    uint64_t started = now_ns();
    while (received < total) {
        while (sent < total && sent - received < window) {
            stamp = now_ns();
            memcpy(payload, &stamp, 8);
            if (zmq_send(socket, payload, (size_t)size, 0) < 0) fail("send");
            sent++;
        }
        if (zmq_recv(socket, payload, (size_t)size, 0) < 0) fail("recv");
        memcpy(&stamp, payload, 8);
        latencies[received++] = now_ns() - stamp;
    }
    double seconds = (double)(now_ns() - started) / 1e9;
    qsort(latencies, (size_t)total, sizeof(uint64_t), compare_u64);
    printf("{\"requests\":%ld,\"seconds\":%.3f,\"throughput\":%.0f,\"p50Us\":%.1f,\"p99Us\":%.1f,\"p999Us\":%.1f,\"failures\":0}\n",
           total, seconds, (double)total / seconds, latencies[total / 2] / 1e3, latencies[total * 99 / 100] / 1e3,
           latencies[total * 999 / 1000] / 1e3);
    return 0;
}

// MDP/0.2 from a DEALER: "MDPC02", REQUEST (0x01), service, body; the broker answers
// "MDPC02", FINAL (0x03), service, body. Requests carry no id, so latency is not measured
// here: throughput only.
static int run_mdp_client(void *context, const char *endpoint, long total, long window, const char *service, const char *body) {
    void *socket = zmq_socket(context, ZMQ_DEALER);
    set_hwm(socket);
    if (zmq_connect(socket, endpoint) != 0) fail("connect");
    const unsigned char request = 0x01;
    long sent = 0, received = 0, failures = 0;
    char reply[4096];
    uint64_t started = 0;
    for (long warmup = 0; warmup <= 1; warmup++) {
        long goal = warmup == 0 ? (total < 1000 ? total : 1000) : total;
        sent = received = 0;
        if (warmup == 1) started = now_ns();
        while (received < goal) {
            while (sent < goal && sent - received < window) {
                zmq_send(socket, "MDPC02", 6, ZMQ_SNDMORE);
                zmq_send(socket, &request, 1, ZMQ_SNDMORE);
                zmq_send(socket, service, strlen(service), ZMQ_SNDMORE);
                if (zmq_send(socket, body, strlen(body), 0) < 0) fail("send");
                sent++;
            }
            int more = 1, frame = 0, size = 0;
            while (more) {
                size = zmq_recv(socket, reply, sizeof reply, 0);
                if (size < 0) fail("recv");
                size_t more_size = sizeof more;
                zmq_getsockopt(socket, ZMQ_RCVMORE, &more, &more_size);
                frame++;
            }
            // The last frame is the outcome JSON; a failure says so.
            if (frame != 4 || size < 0 || strstr(reply, "\"outcome\":\"success\"") == NULL) failures += warmup;
            received++;
        }
    }
    double seconds = (double)(now_ns() - started) / 1e9;
    printf("{\"requests\":%ld,\"seconds\":%.3f,\"throughput\":%.0f,\"failures\":%ld}\n", total, seconds, (double)total / seconds, failures);
    return failures > 0;
}

// Counts the request ids of every ACCEPTED waiting on `socket`; returns how many.
static long drain_accepted(void *socket, int flags) {
    long accepted = 0;
    zmq_msg_t frame;
    zmq_msg_init(&frame);
    while (zmq_msg_recv(&frame, socket, flags) >= 0) {
        // ABP/5 packs a message into one frame: the header, then each further frame (here each
        // accepted request id) as a u32 length and its bytes.
        const unsigned char *bytes = zmq_msg_data(&frame);
        size_t size = zmq_msg_size(&frame);
        if (size > 6 && bytes[5] == 0x11) {
            for (size_t at = 6; at + 4 <= size;) {
                size_t length = ((size_t)bytes[at] << 24) | ((size_t)bytes[at + 1] << 16) | ((size_t)bytes[at + 2] << 8) | bytes[at + 3];
                at += 4 + length;
                accepted++;
            }
        }
        while (zmq_msg_more(&frame)) zmq_msg_recv(&frame, socket, 0);
        flags = ZMQ_DONTWAIT;
    }
    zmq_msg_close(&frame);
    return accepted;
}

// Appends one field of an ABP packed record (or one frame of a packed message) at `at`: its length (u32, big-endian), its bytes.
static size_t pack_field(unsigned char *record, size_t at, const void *bytes, size_t length) {
    record[at] = (unsigned char)(length >> 24);
    record[at + 1] = (unsigned char)(length >> 16);
    record[at + 2] = (unsigned char)(length >> 8);
    record[at + 3] = (unsigned char)length;
    memcpy(record + at + 4, bytes, length);
    return at + 4 + length;
}

static int run_abp_flood(void *context, const char *endpoint, long total) {
    if (total < 2) fail("abp-flood needs at least 2 requests (a first and a last window)");
    void *socket = zmq_socket(context, ZMQ_DEALER);
    set_hwm(socket);
    zmq_setsockopt(socket, ZMQ_ROUTING_ID, "abp-flood", 9);
    if (zmq_connect(socket, endpoint) != 0) fail("connect");
    const unsigned char header[6] = {'A', 'B', 'U', 'S', 0x05, 0x01};
    const unsigned char timeout[4] = {0x00, 0x36, 0xEE, 0x80};  // 3 600 000 ms
    const char *input = "{\"text\":\"q\"}";
    const long window = total < 10000 ? total / 2 : 10000;
    long sent = 0, accepted = 0;
    // Each window is measured between two drains (acceptances arrive in batches): the first
    // from the start to the drain that reached `window`, the last from the drain before the
    // one that passed `total - window` to the end, with the count the drains saw. Timing a
    // threshold instead let one large batch cross it at the end, a window of almost no time.
    uint64_t started = now_ns(), first_window = 0, last_window_start = started, previous_drain = started;
    long first_count = 0, last_window_base = 0;
    char id[32];
    while (accepted < total) {
        while (sent < total && sent - accepted < 50000) {
            // One PERFORM per request (no batching, the simplest client there is), packed into
            // one frame: the header, then the request's record as a u32 length and its bytes,
            // the record's own fields each a u32 length and its bytes.
            int length = snprintf(id, sizeof id, "abp-flood:%ld", sent + 1);
            unsigned char record[256], message[6 + 4 + 256];
            size_t size = 0;
            size = pack_field(record, size, id, (size_t)length);
            size = pack_field(record, size, "Echo.say", 8);
            size = pack_field(record, size, "", 0);
            size = pack_field(record, size, timeout, 4);
            size = pack_field(record, size, "application/json", 16);
            size = pack_field(record, size, input, strlen(input));
            memcpy(message, header, 6);
            size_t message_size = pack_field(message, 6, record, size);
            if (zmq_send(socket, message, message_size, 0) < 0) fail("send");
            sent++;
            if (sent % 256 == 0) break;
        }
        long before = accepted;
        accepted += drain_accepted(socket, sent < total && sent - accepted < 50000 ? ZMQ_DONTWAIT : 0);
        uint64_t drained = now_ns();
        if (before < window && accepted >= window) {
            first_window = drained - started;
            first_count = accepted;
        }
        if (before <= total - window && accepted > before) {
            last_window_start = previous_drain;
            last_window_base = before;
        }
        if (accepted > before) previous_drain = drained;
    }
    uint64_t finished = now_ns();
    double first_rate = first_count / (first_window / 1e9);
    double last_rate = (total - last_window_base) / ((finished - last_window_start) / 1e9);
    printf("{\"requests\":%ld,\"seconds\":%.3f,\"firstRate\":%.0f,\"lastRate\":%.0f}\n", total,
           (finished - started) / 1e9, first_rate, last_rate);
    return 0;
}

int main(int argc, char **argv) {
    void *context = zmq_ctx_new();
    if (argc == 4 && strcmp(argv[1], "proxy") == 0) return run_proxy(context, argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "worker") == 0) run_worker(context, argv[2]);
    if (argc == 6 && strcmp(argv[1], "client") == 0)
        return run_client(context, argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]));
    if (argc == 4 && strcmp(argv[1], "abp-flood") == 0) return run_abp_flood(context, argv[2], atol(argv[3]));
    if (argc == 7 && strcmp(argv[1], "mdp-client") == 0)
        return run_mdp_client(context, argv[2], atol(argv[3]), atol(argv[4]), argv[5], argv[6]);
    fprintf(stderr, "usage: relay proxy FRONTEND BACKEND | relay worker BACKEND | relay client FRONTEND N WINDOW SIZE"
                    " | relay abp-flood ENDPOINT N | relay mdp-client ENDPOINT N WINDOW SERVICE BODY\n");
    return 2;
}
