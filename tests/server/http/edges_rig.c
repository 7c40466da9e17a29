/*
 * edges_rig.c: servers with any configuration and raw sockets for
 * test_edges.c; see edges_rig.h.
 */
#include "edges_rig.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

void edges_config(http_config *cfg)
{
    http_config_default(cfg);
    cfg->port = 0;
    cfg->access_log = "off";
}

test_server *edges_start(http_config *cfg)
{
    return ts_start_config(cfg);
}

int edges_send_slow_odds(const test_server *ts, long samples)
{
    char body[512], req[1024];
    int fd = edges_connect(ts, "127.0.0.1");

    snprintf(body, sizeof body,
             "{\"sides\": [{\"name\": \"red\", \"units\": [{\"name\": "
             "\"R1\"}, {\"name\": \"R2\"}, {\"name\": \"R3\"}]}, {\"name\": "
             "\"blue\", \"units\": [{\"name\": \"B1\", \"quality\": 1}, "
             "{\"name\": \"B2\"}]}], \"odds\": {\"method\": \"sample\", "
             "\"samples\": %ld}}",
             samples);
    snprintf(req, sizeof req,
             "POST /v1/odds/scrud HTTP/1.1\r\nHost: x\r\n"
             "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
             strlen(body), body);
    if (fd >= 0 && !edges_send_str(fd, req)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

double edges_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int edges_connect(const test_server *ts, const char *src)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    if (inet_pton(AF_INET, src, &a.sin_addr) != 1 ||
        bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    a.sin_port = htons((uint16_t)ts->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

bool edges_send(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        data += n;
        len -= (size_t)n;
    }
    return true;
}

bool edges_send_str(int fd, const char *text)
{
    return edges_send(fd, text, strlen(text));
}

/* Reads what is there within the time left: >0 bytes, 0 closed, -1 the
 * time ran out. */
static ssize_t recv_until(int fd, char *buf, size_t cap, double end)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    double left = end - edges_now();
    ssize_t n;

    if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
        return -1;
    n = recv(fd, buf, cap, 0);
    return n < 0 ? 0 : n; /* a reset is a close */
}

static void parse(char *head, const char *body, size_t body_len, http_resp *out)
{
    char *p;

    memset(out, 0, sizeof *out);
    sscanf(head, "HTTP/1.%*d %d", &out->status);
    out->head = strdup(head);
    out->body = malloc(body_len + 1);
    ck_assert_ptr_nonnull(out->body);
    memcpy(out->body, body, body_len);
    out->body[body_len] = '\0';
    ts_header(out, "Content-Type", out->content_type, sizeof out->content_type);
    ts_header(out, "Location", out->location, sizeof out->location);
    ts_header(out, "Allow", out->allow, sizeof out->allow);
    if ((p = strchr(out->content_type, ';')) != NULL)
        *p = '\0';
    out->json = body_len ? json_loadb(out->body, body_len, 0, NULL) : NULL;
}

int edges_read_one(int fd, double timeout, http_resp *out)
{
    double end = edges_now() + timeout;
    char head[8192], *body;
    size_t n = 0, len = 0, got = 0;
    char cl[32];
    ssize_t k;

    memset(out, 0, sizeof *out);
    while (n + 1 < sizeof head) {
        if ((k = recv_until(fd, head + n, 1, end)) <= 0)
            return -1;
        n++;
        if (n >= 4 && memcmp(head + n - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    head[n] = '\0';
    out->head = head; /* for ts_header, borrowed for now */
    if (ts_header(out, "Content-Length", cl, sizeof cl) > 0)
        len = strtoul(cl, NULL, 10);
    out->head = NULL;
    body = malloc(len + 1);
    ck_assert_ptr_nonnull(body);
    while (got < len) {
        if ((k = recv_until(fd, body + got, len - got, end)) <= 0) {
            free(body);
            return -1;
        }
        got += (size_t)k;
    }
    head[n - 4] = '\0';
    parse(head, body, len, out);
    free(body);
    return 0;
}

void edges_read_to_close(int fd, double timeout, edges_end *out)
{
    double start = edges_now(), end = start + timeout;
    char buf[4096];
    ssize_t k;

    memset(out, 0, sizeof *out);
    while ((k = recv_until(fd, buf, sizeof buf, end)) > 0) {
        size_t room = sizeof out->head - 1 - out->n_bytes;
        if (out->n_bytes < sizeof out->head - 1)
            memcpy(out->head + out->n_bytes, buf,
                   (size_t)k < room ? (size_t)k : room);
        out->n_bytes += (size_t)k;
    }
    out->head[out->n_bytes < sizeof out->head ? out->n_bytes
                                              : sizeof out->head - 1] = '\0';
    out->is_closed = k == 0;
    out->after = edges_now() - start;
}

bool edges_wait_stats(test_server *ts, double timeout,
                      bool (*ok)(const http_stats *st, int arg), int arg)
{
    double end = edges_now() + timeout;
    http_stats st;

    for (;;) {
        http_stats_read(ts->srv, &st);
        if (ok(&st, arg))
            return true;
        if (edges_now() > end)
            return false;
        usleep(5 * 1000);
    }
}

bool edges_n_pending_is(const http_stats *st, int n)
{
    return st->n_pending == n;
}

bool edges_n_connections_is(const http_stats *st, int n)
{
    return st->n_connections == n;
}
