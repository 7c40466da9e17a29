/*
 * notify_rig.c: a stand-in for Discord, and an umpire server posting to
 * it; see notify_rig.h.
 *
 * The receiver runs a thread per connection, so a slow answer (a delay
 * in the script) holds only its own connection; the delays wait on a
 * condition that rcv_stop signals, so a stop is never held up by them.
 */
#include "notify_rig.h"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#define RCV_MAX 64 /* requests recorded */

struct receiver {
    struct MHD_Daemon *daemon;
    int port;
    rcv_step steps[16];
    size_t n_steps;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* a request came, or the stop */
    rcv_request reqs[RCV_MAX];
    int n_reqs;
    bool is_stopping;
};

/* A request's body as it comes in. */
typedef struct upload {
    char *body;
    size_t len;
} upload;

double nrig_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits on r->cond until the stop or the time deadline (nrig_now). */
static void wait_until(receiver *r, double deadline)
{
    struct timespec ts;

    ts.tv_sec = (time_t)deadline;
    ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
    pthread_cond_timedwait(&r->cond, &r->lock, &ts);
}

/* Records the request; the step that answers it. */
static rcv_step record(receiver *r, struct MHD_Connection *conn,
                       const char *url, const char *method, upload *up)
{
    static const rcv_step none = {204, NULL, NULL, 0};
    const char *ct =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
    rcv_step step = none;
    int i;

    pthread_mutex_lock(&r->lock);
    i = r->n_reqs;
    if (i < RCV_MAX) {
        rcv_request *q = &r->reqs[i];
        snprintf(q->method, sizeof q->method, "%s", method);
        snprintf(q->path, sizeof q->path, "%s", url);
        snprintf(q->content_type, sizeof q->content_type, "%s", ct ? ct : "");
        q->body = up->body ? up->body : strdup("");
        up->body = NULL;
        q->at = nrig_now();
        r->n_reqs++;
    }
    if (r->n_steps > 0)
        step = r->steps[(size_t)i < r->n_steps ? (size_t)i : r->n_steps - 1];
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    return step;
}

/* Adds "Name: value" lines to resp. */
static void add_headers(struct MHD_Response *resp, const char *headers)
{
    char *copy, *line, *save = NULL;

    if (headers == NULL || (copy = strdup(headers)) == NULL)
        return;
    for (line = strtok_r(copy, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        *colon = '\0';
        MHD_add_response_header(resp, line, colon + 1 + (colon[1] == ' '));
    }
    free(copy);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *data,
                                  size_t *data_size, void **con_cls)
{
    receiver *r = cls;
    upload *up = *con_cls;
    struct MHD_Response *resp;
    enum MHD_Result ret;
    rcv_step step;

    (void)version;
    if (up == NULL) {
        *con_cls = up = calloc(1, sizeof *up);
        return up ? MHD_YES : MHD_NO;
    }
    if (*data_size > 0) {
        char *b = realloc(up->body, up->len + *data_size + 1);
        if (b == NULL)
            return MHD_NO;
        memcpy(b + up->len, data, *data_size);
        up->len += *data_size;
        b[up->len] = '\0';
        up->body = b;
        *data_size = 0;
        return MHD_YES;
    }
    step = record(r, conn, url, method, up);
    if (step.delay_ms > 0) {
        double deadline = nrig_now() + step.delay_ms / 1000.0;
        pthread_mutex_lock(&r->lock);
        while (!r->is_stopping && nrig_now() < deadline)
            wait_until(r, deadline);
        pthread_mutex_unlock(&r->lock);
    }
    resp = MHD_create_response_from_buffer(step.body ? strlen(step.body) : 0,
                                           (void *)(step.body ? step.body : ""),
                                           MHD_RESPMEM_MUST_COPY);
    if (resp == NULL)
        return MHD_NO;
    if (step.body)
        MHD_add_response_header(resp, "Content-Type", "application/json");
    add_headers(resp, step.headers);
    ret = MHD_queue_response(conn, (unsigned)step.status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    upload *up = *con_cls;

    (void)cls;
    (void)conn;
    (void)toe;
    if (up != NULL) {
        free(up->body);
        free(up);
    }
    *con_cls = NULL;
}

receiver *rcv_start(const rcv_step *steps, size_t n_steps)
{
    receiver *r = calloc(1, sizeof *r);
    struct sockaddr_in a;
    const union MHD_DaemonInfo *info;

    ck_assert_ptr_nonnull(r);
    ck_assert_uint_le(n_steps, sizeof r->steps / sizeof r->steps[0]);
    if (n_steps > 0)
        memcpy(r->steps, steps, n_steps * sizeof *steps);
    r->n_steps = n_steps;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cond, NULL);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    r->daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0,
        NULL, NULL, on_request, r, MHD_OPTION_SOCK_ADDR, &a,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, r, MHD_OPTION_END);
    ck_assert_msg(r->daemon != NULL, "the receiver would not start");
    info = MHD_get_daemon_info(r->daemon, MHD_DAEMON_INFO_BIND_PORT);
    ck_assert_ptr_nonnull(info);
    r->port = info->port;
    return r;
}

int rcv_port(const receiver *r)
{
    return r->port;
}

void rcv_stop(receiver *r)
{
    int i;

    if (r == NULL)
        return;
    pthread_mutex_lock(&r->lock);
    r->is_stopping = true;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    MHD_stop_daemon(r->daemon);
    for (i = 0; i < r->n_reqs; i++)
        free(r->reqs[i].body);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->cond);
    free(r);
}

int rcv_wait(receiver *r, int n, int timeout_ms)
{
    double deadline = nrig_now() + timeout_ms / 1000.0;
    int got;

    pthread_mutex_lock(&r->lock);
    while (r->n_reqs < n && nrig_now() < deadline)
        wait_until(r, deadline);
    got = r->n_reqs;
    pthread_mutex_unlock(&r->lock);
    return got;
}

void rcv_get(receiver *r, int i, rcv_request *out)
{
    pthread_mutex_lock(&r->lock);
    ck_assert_int_lt(i, r->n_reqs);
    *out = r->reqs[i];
    out->body = strdup(r->reqs[i].body);
    pthread_mutex_unlock(&r->lock);
    ck_assert_ptr_nonnull(out->body);
}

void rcv_request_cleanup(rcv_request *q)
{
    if (q == NULL)
        return;
    free(q->body);
    q->body = NULL;
}

int rcv_dead_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    ck_assert_int_ge(fd, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd); /* bound, never listening: connections are refused */
    return ntohs(a.sin_port);
}

/* ---- the umpire server ---- */

void nrig_config(notify_config *cfg, int port)
{
    static char base[64];

    notify_config_default(cfg);
    snprintf(base, sizeof base, "http://127.0.0.1:%d/api", port);
    cfg->api_base = base; /* copied by notify_start */
    cfg->timeout_ms = 300;
    cfg->max_attempts = 3;
    cfg->backoff_ms = 20;
    cfg->backoff_max_ms = 200;
    cfg->is_logging = false;
}

/* Starts ts's server on its database with the poster set as ncfg says. */
static void start(test_server *ts, const notify_config *ncfg)
{
    http_config cfg;
    err_info e;

    http_config_default(&cfg);
    cfg.port = 0;
    cfg.db_path = ts->db_path;
    cfg.access_log = "off";
    cfg.notify = *ncfg;
    err_clear(&e);
    if (http_start(&cfg, &ts->srv, &e) != ERR_OK)
        ck_abort_msg("http_start: %s", e.message);
    ts->port = http_port(ts->srv);
}

test_server *nrig_server(const notify_config *ncfg)
{
    test_server *ts = calloc(1, sizeof *ts);

    ck_assert_ptr_nonnull(ts);
    snprintf(ts->dir, sizeof ts->dir, "/tmp/umpire-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(ts->dir));
    snprintf(ts->db_path, sizeof ts->db_path, "%s/umpire.db", ts->dir);
    start(ts, ncfg);
    return ts;
}

void nrig_restart(test_server *ts, const notify_config *cfg)
{
    http_stop(ts->srv);
    ts->srv = NULL;
    start(ts, cfg);
}

void nrig_campaign(test_server *ts, test_campaign *c)
{
    static const char *const sides[] = {"red", "blue", NULL};
    static const char *const units[][2] = {
        {"R1", "red"}, {"R2", "red"}, {"B1", "blue"}, {"B2", "blue"}};
    char path[160];
    json_t *j;
    size_t i;

    ts_campaign(ts, c, NULL, sides);
    snprintf(path, sizeof path, "/v1/campaigns/%s/units", c->id);
    for (i = 0; i < sizeof units / sizeof units[0]; i++)
        json_decref(ts_call(ts, 201, "POST", path, c->umpire,
                            "{\"name\":\"%s\",\"side\":\"%s\"}", units[i][0],
                            units[i][1]));
    snprintf(path, sizeof path, "/v1/campaigns/%s/webhook", c->id);
    j = ts_call(ts, 201, "PUT", path, c->umpire, "{\"url\":\"%s\"}", NRIG_URL);
    json_decref(j);
}

void nrig_combat(test_server *ts, const test_campaign *c, int max_ms,
                 char id[64])
{
    char path[160];
    double t0 = nrig_now(), took;
    json_t *j;

    /* An EDNA test that always passes: a unit can take any number. */
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/edna", c->id);
    j = ts_call(ts, 201, "POST", path, c->umpire,
                "{\"note\":\"@everyone at the ford\",\"units\":[{\"unit\":"
                "\"R1\",\"modifier\":-20}]}");
    took = (nrig_now() - t0) * 1000.0;
    ck_assert_msg(took <= max_ms, "the combat took %.0f ms, over %d", took,
                  max_ms);
    snprintf(id, 64, "%s", json_string_value(json_object_get(j, "id")));
    ck_assert_msg(id[0] != '\0', "the combat has no id");
    json_decref(j);
}

json_t *nrig_webhook(test_server *ts, const test_campaign *c)
{
    char path[128];
    json_t *j, *w;

    snprintf(path, sizeof path, "/v1/campaigns/%s", c->id);
    j = ts_call(ts, 200, "GET", path, c->umpire, NULL);
    w = json_object_get(j, "webhook");
    ck_assert_msg(w != NULL, "the campaign has no member \"webhook\"");
    w = json_is_null(w) ? NULL : json_incref(w);
    json_decref(j);
    return w;
}

json_t *nrig_wait_settled(test_server *ts, const test_campaign *c, long long n,
                          int timeout_ms)
{
    double deadline = nrig_now() + timeout_ms / 1000.0;

    for (;;) {
        json_t *w = nrig_webhook(ts, c);
        ck_assert_ptr_nonnull(w);
        if ((json_integer_value(json_object_get(w, "delivered")) +
                     json_integer_value(json_object_get(w, "failures")) >=
                 n &&
             json_integer_value(json_object_get(w, "pending")) == 0) ||
            nrig_now() >= deadline)
            return w;
        json_decref(w);
        usleep(10 * 1000);
    }
}
