/*
 * events_rig.c: the events stream's client over a raw socket; see
 * events_rig.h.
 */
#include "events_rig.h"
#include "edges_rig.h"

#include <check.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Appends len bytes of data to *buf (*len of *cap used). */
static void grow_append(char **buf, size_t *len, size_t *cap, const char *data,
                        size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (c < *len + n + 1)
            c *= 2;
        *buf = realloc(*buf, c);
        ck_assert_ptr_nonnull(*buf);
        *cap = c;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
}

/* Reads what arrives within the time left into c->raw: false when
 * nothing did (the time ran out, or the server closed: is_ended). */
static bool receive(events_client *c, double end)
{
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    double left = end - edges_now();
    char buf[8192];
    ssize_t n;

    if (c->is_ended || left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
        return false;
    n = recv(c->fd, buf, sizeof buf, 0);
    if (n <= 0) {
        c->is_ended = true;
        return false;
    }
    grow_append(&c->raw, &c->raw_len, &c->raw_cap, buf, (size_t)n);
    return true;
}

/* Moves the whole chunks of c->raw into c->text; the last chunk (size 0)
 * ends the stream. */
static void dechunk(events_client *c)
{
    size_t at = 0;

    for (;;) {
        char *eol = c->raw_len > at ? strstr(c->raw + at, "\r\n") : NULL;
        size_t size, start;
        if (eol == NULL)
            break;
        size = strtoul(c->raw + at, NULL, 16);
        start = (size_t)(eol - c->raw) + 2;
        if (c->raw_len < start + size + 2)
            break;
        if (size == 0) {
            c->is_ended = true;
            at = c->raw_len;
            break;
        }
        grow_append(&c->text, &c->text_len, &c->text_cap, c->raw + start, size);
        at = start + size + 2;
    }
    memmove(c->raw, c->raw + at, c->raw_len - at);
    c->raw_len -= at;
    if (c->raw)
        c->raw[c->raw_len] = '\0';
}

/* Reads the response's head; a refusal's body as JSON too. */
static void read_head(events_client *c, double end)
{
    char *sep, cl[32] = "";
    http_resp h = {0};
    size_t n;

    while ((sep = c->raw ? strstr(c->raw, "\r\n\r\n") : NULL) == NULL)
        ck_assert_msg(receive(c, end), "no response head within 5 s");
    n = (size_t)(sep - c->raw);
    ck_assert_uint_lt(n, sizeof c->head);
    memcpy(c->head, c->raw, n);
    c->head[n] = '\0';
    sscanf(c->head, "HTTP/1.%*d %d", &c->status);
    memmove(c->raw, sep + 4, c->raw_len - n - 4);
    c->raw_len -= n + 4;
    c->raw[c->raw_len] = '\0';
    if (c->status == 200)
        return;
    h.head = c->head;
    if (ts_header(&h, "Content-Length", cl, sizeof cl) > 0)
        while (c->raw_len < strtoul(cl, NULL, 10) && receive(c, end))
            ;
    c->problem = json_loads(c->raw, 0, NULL);
}

int events_open(events_client *c, test_server *ts, const char *campaign_id,
                const char *query, const char *token, const char *extra)
{
    char req[1024];

    memset(c, 0, sizeof *c);
    c->fd = edges_connect(ts, "127.0.0.1");
    ck_assert_int_ge(c->fd, 0);
    snprintf(req, sizeof req,
             "GET /v1/campaigns/%s/events%s%s HTTP/1.1\r\n"
             "Host: localhost\r\nAuthorization: Bearer %s\r\n"
             "Accept: text/event-stream\r\n%s\r\n",
             campaign_id, query ? "?" : "", query ? query : "", token,
             extra ? extra : "");
    ck_assert(edges_send_str(c->fd, req));
    read_head(c, edges_now() + 5.0);
    return c->status;
}

/* Takes the block that ends at text[len] apart into out. */
static void parse_block(char *text, events_block *out)
{
    char *line, *save = NULL;

    memset(out, 0, sizeof *out);
    out->id = -1;
    for (line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == ':')
            snprintf(out->comment, sizeof out->comment, "%s", line + 1);
        else if (strncmp(line, "id: ", 4) == 0)
            out->id = strtoll(line + 4, NULL, 10);
        else if (strncmp(line, "event: ", 7) == 0)
            snprintf(out->kind, sizeof out->kind, "%s", line + 7);
        else if (strncmp(line, "data: ", 6) == 0) {
            ck_assert_msg(out->data == NULL, "one data line per event");
            out->data = strdup(line + 6);
        } else if (strncmp(line, "retry: ", 7) == 0)
            out->has_retry = true;
        else
            ck_abort_msg("not a line of text/event-stream: %s", line);
    }
    if (out->data)
        out->json = json_loads(out->data, 0, NULL);
}

bool events_next(events_client *c, double timeout, events_block *out)
{
    double end = edges_now() + timeout;
    char *sep;

    for (;;) {
        dechunk(c);
        if ((sep = c->text ? strstr(c->text, "\n\n") : NULL) != NULL) {
            size_t n = (size_t)(sep - c->text) + 2;
            *sep = '\0';
            parse_block(c->text, out);
            memmove(c->text, c->text + n, c->text_len - n);
            c->text_len -= n;
            c->text[c->text_len] = '\0';
            return true;
        }
        if (c->is_ended || !receive(c, end))
            return false;
    }
}

bool events_next_event(events_client *c, double timeout, events_block *out)
{
    double end = edges_now() + timeout;

    while (events_next(c, end - edges_now(), out)) {
        if (out->kind[0])
            return true;
        events_block_cleanup(out);
    }
    return false;
}

bool events_wait_end(events_client *c, double timeout)
{
    double end = edges_now() + timeout;

    while (!c->is_ended && edges_now() < end) {
        receive(c, end);
        dechunk(c);
    }
    return c->is_ended;
}

void events_block_cleanup(events_block *b)
{
    free(b->data);
    json_decref(b->json);
    memset(b, 0, sizeof *b);
}

void events_close(events_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    json_decref(c->problem);
    free(c->raw);
    free(c->text);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}
