/*
 * discord.c: the reply time of each Discord command (bench/README.md,
 * "Discord").  Starts the service in this process on a free loopback port
 * with a fresh database and a Discord application of its own (a key pair
 * made here), makes a campaign through the API, links a channel, and then
 * sends N signed interactions of each command, one at a time over one
 * kept-alive connection, as Discord would: the time from the first byte
 * sent to the last byte of the answer, p50 and p99 per command.  Writes
 * are durable (synchronous=FULL), so each combat pays its fsync.
 *
 *   build/bench-discord [N]      (N interactions per command, 200 unless said)
 */
#define _GNU_SOURCE
#include "discord_verify.h"
#include "http.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define APP "1100000000000000001"

static unsigned char sk[crypto_sign_SECRETKEYBYTES];
static int fd = -1, port;
static long long next_id = 1500000000000000001LL;
static char umpire[128], player[128], cid[64];

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what)
{
    fprintf(stderr, "bench-discord: %s\n", what);
    exit(1);
}

static void connect_once(void)
{
    struct sockaddr_in a;
    int one = 1;

    fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        die("cannot connect");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Sends a request (headers without the blank line, body) and reads the
 * whole answer; its body (new) and status. */
static char *roundtrip(const char *head, const char *body, int *status)
{
    static char buf[1 << 20];
    size_t n = 0, blen = strlen(body), need = 0;
    char *req = NULL, *end, *cl;
    int len;

    len = asprintf(&req, "%sContent-Length: %zu\r\n\r\n%s", head, blen, body);
    if (len < 0 || send(fd, req, (size_t)len, MSG_NOSIGNAL) != len)
        die("send failed");
    free(req);
    for (;;) {
        ssize_t got = recv(fd, buf + n, sizeof buf - n - 1, 0);
        if (got <= 0)
            die("the connection closed");
        n += (size_t)got;
        buf[n] = '\0';
        if ((end = strstr(buf, "\r\n\r\n")) == NULL)
            continue;
        cl = strcasestr(buf, "Content-Length:");
        need = (size_t)(end + 4 - buf) + (cl ? strtoul(cl + 15, NULL, 10) : 0);
        if (n >= need)
            break;
    }
    *status = atoi(buf + 9);
    return strndup(end + 4, need - (size_t)(end + 4 - buf));
}

static json_t *api(const char *method, const char *path, const char *token,
                   const char *body)
{
    char head[512];
    int status;
    char *text;
    json_t *j;

    snprintf(head, sizeof head,
             "%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
             "application/json\r\n%s%s%s",
             method, path, token ? "Authorization: Bearer " : "",
             token ? token : "", token ? "\r\n" : "");
    text = roundtrip(head, body ? body : "", &status);
    if (status >= 300) {
        fprintf(stderr, "%s %s: %d %s\n", method, path, status, text);
        die("the API refused the setup");
    }
    j = json_loads(text, 0, NULL);
    free(text);
    return j;
}

/* One interaction of type with data (JSON text), signed; the answer. */
static json_t *interact(int type, const char *user, const char *data,
                        double *ms)
{
    unsigned char sig[crypto_sign_BYTES];
    char ts[24], hex[2 * crypto_sign_BYTES + 1], head[512], *body = NULL,
                                                            *msg = NULL, *text;
    int status, n;
    double t0;
    json_t *j;

    n = asprintf(&body,
                 "{\"id\":\"%lld\",\"application_id\":\"" APP "\",\"type\":%d,"
                 "\"token\":\"t\",\"version\":1,\"guild_id\":"
                 "\"1200000000000000001\",\"channel_id\":"
                 "\"1300000000000000001\",\"member\":{\"user\":{\"id\":\"%s\","
                 "\"username\":\"u\"}},\"data\":%s}",
                 next_id++, type, user, data);
    if (n < 0)
        die("out of memory");
    t0 = now_ms();
    snprintf(ts, sizeof ts, "%lld", (long long)time(NULL));
    if (asprintf(&msg, "%s%s", ts, body) < 0)
        die("out of memory");
    crypto_sign_detached(sig, NULL, (unsigned char *)msg, strlen(msg), sk);
    sodium_bin2hex(hex, sizeof hex, sig, sizeof sig);
    snprintf(head, sizeof head,
             "POST /v1/discord/interactions HTTP/1.1\r\nHost: localhost\r\n"
             "Content-Type: application/json\r\nX-Signature-Ed25519: %s\r\n"
             "X-Signature-Timestamp: %s\r\n",
             hex, ts);
    text = roundtrip(head, body, &status);
    *ms = now_ms() - t0;
    if (status != 200)
        die(text);
    j = json_loads(text, 0, NULL);
    free(text);
    free(body);
    free(msg);
    return j;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The first custom_id holding part in a reply's components, or NULL. */
static const char *component(const json_t *list, const char *part)
{
    const json_t *c;
    const char *id;
    size_t i;

    json_array_foreach(list, i, c)
    {
        id = json_string_value(json_object_get(c, "custom_id"));
        if (id && strstr(id, part))
            return id;
        if ((id = component(json_object_get(c, "components"), part)))
            return id;
    }
    return NULL;
}

static const char *data_of(const char *fmt, ...)
{
    static char buf[4096];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

/* Runs n interactions of one kind and prints p50 and p99. */
/* The SCS units of the bench back to full strength. */
static void restore_scs(void)
{
    static const char *const units[] = {"R4", "R5", "B4"};
    char path[160];
    size_t i;

    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "/v1/campaigns/%s/units/%s", cid, units[i]);
        json_decref(api("PATCH", path, umpire,
                        "{\"scs\":{\"steps_lost\":0},\"note\":\"bench\"}"));
    }
}

static void report(const char *name, double *ms, int n, int bad)
{
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    printf("| %-28s | %5d | %7.2f | %7.2f | %7.2f |%s\n", name, n, ms[n / 2],
           ms[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1], ms[n - 1],
           bad ? " refused!" : "");
}

static void measure(const char *name, int n, int type, const char *user,
                    const char *data, const char *press_part)
{
    double *ms = calloc((size_t)n, sizeof *ms);
    double *pressed = calloc((size_t)n, sizeof *pressed);
    char label[64];
    int i, bad = 0;

    for (i = 0; i < n; i++) {
        json_t *r;
        if (strncmp(name, "/scs", 4) == 0)
            restore_scs(); /* untimed: the steps lost come back */
        r = interact(type, user, data, &ms[i]);
        int rt = (int)json_integer_value(json_object_get(r, "type"));
        /* Ephemeral: refused, except the private answers of link and
         * claim. */
        if (json_integer_value(
                json_object_get(json_object_get(r, "data"), "flags")) == 64 &&
            strstr(name, "/link") == NULL && strstr(name, "/claim") == NULL &&
            bad++ == 0)
            fprintf(stderr, "%s: %s\n", name,
                    json_string_value(json_object_get(
                        json_object_get(r, "data"), "content")));
        if (press_part != NULL) {
            /* Press the new battle's button: measured as "press". */
            const char *id = component(
                json_object_get(json_object_get(r, "data"), "components"),
                press_part);
            json_t *p;
            if (id == NULL)
                die("no button to press");
            p = interact(
                3, "1400000000000000001",
                data_of("{\"custom_id\":\"%s\",\"component_type\":2}", id),
                &pressed[i]);
            if (json_integer_value(json_object_get(p, "type")) != 7)
                bad++;
            json_decref(p);
        }
        if (rt != 1 && rt != 4 && rt != 8)
            bad++;
        json_decref(r);
    }
    report(name, ms, n, bad);
    if (press_part != NULL) {
        snprintf(label, sizeof label, "press %s", press_part + 1);
        report(label, pressed, n, 0);
    }
    free(ms);
    free(pressed);
}

static void setup(void)
{
    char path[128], body[512];
    json_t *j;
    int i, s;

    j = api("POST", "/v1/campaigns", NULL,
            "{\"name\":\"bench\",\"sides\":[{\"name\":\"red\"},"
            "{\"name\":\"blue\"}],\"options\":{\"scrud\":{"
            "\"eliminate_below\":-100,\"defeats_per_elimination\":0}}}");
    snprintf(cid, sizeof cid, "%s",
             json_string_value(json_object_get(j, "id")));
    snprintf(umpire, sizeof umpire, "%s",
             json_string_value(json_object_get(j, "umpire_token")));
    snprintf(
        player, sizeof player, "%s",
        json_string_value(json_object_get(
            json_array_get(json_object_get(j, "sides"), 0), "player_token")));
    json_decref(j);
    snprintf(path, sizeof path, "/v1/campaigns/%s/units", cid);
    for (s = 0; s < 2; s++)
        for (i = 0; i < 10; i++) {
            snprintf(body, sizeof body,
                     "{\"name\":\"%c%d\",\"side\":\"%s\",\"scrud\":{},"
                     "\"edna\":{\"start\":100},\"matrix\":{},\"scs\":{"
                     "\"attack\":4,\"defense\":3,\"steps\":20,\"reduced\":{"
                     "\"attack\":2,\"defense\":1}},\"civ\":{"
                     "\"class\":\"infantry\",\"era\":2}}",
                     s ? 'B' : 'R', i, s ? "blue" : "red");
            json_decref(api("POST", path, umpire, body));
        }
}

int main(int argc, char **argv)
{
    static const char *U = "1400000000000000001", *P = "1400000000000000002";
    int n = argc > 1 ? atoi(argv[1]) : 200;
    unsigned char pk[crypto_sign_PUBLICKEYBYTES];
    char dir[] = "/tmp/umpire-bench-XXXXXX", dbp[128], hex[65], combat[64];
    http_config cfg;
    http_server *srv;
    err_info e;
    json_t *j;
    double t;

    if (sodium_init() < 0 || mkdtemp(dir) == NULL || n < 1)
        die("cannot start");
    crypto_sign_keypair(pk, sk);
    sodium_bin2hex(hex, sizeof hex, pk, sizeof pk);
    snprintf(dbp, sizeof dbp, "%s/umpire.db", dir);
    http_config_default(&cfg);
    cfg.port = 0;
    cfg.db_path = dbp;
    cfg.access_log = "off";
    err_clear(&e);
    if (discord_verify_config_key(&cfg.discord, hex, &e) ||
        discord_verify_config_app(&cfg.discord, APP, &e) ||
        http_start(&cfg, &srv, &e))
        die(e.message);
    port = http_port(srv);
    connect_once();
    setup();
    json_decref(interact(2, U,
                         data_of("{\"name\":\"link\",\"type\":1,"
                                 "\"options\":[{\"name\":\"token\","
                                 "\"type\":3,\"value\":\"%s\"}]}",
                                 umpire),
                         &t));
    json_decref(interact(2, P,
                         data_of("{\"name\":\"claim\",\"type\":1,"
                                 "\"options\":[{\"name\":\"token\","
                                 "\"type\":3,\"value\":\"%s\"}]}",
                                 player),
                         &t));
    printf("Reply time of each Discord command, %d interactions each, one "
           "at a time (ms)\n\n",
           n);
    printf("| command | n | p50 | p99 | max |\n| --- | --- | --- | --- | --- "
           "|\n");
    measure("PING", n, 1, U, "{}", NULL);
    measure("autocomplete (units)", n, 4, U,
            "{\"name\":\"scrud\",\"type\":1,\"options\":[{\"name\":\"side_a\","
            "\"type\":3,\"value\":\"R1, R\",\"focused\":true}]}",
            NULL);
    measure("/link", n, 2, U,
            data_of("{\"name\":\"link\",\"type\":1,\"options\":[{\"name\":"
                    "\"token\",\"type\":3,\"value\":\"%s\"}]}",
                    umpire),
            NULL);
    measure("/claim", n, 2, P,
            data_of("{\"name\":\"claim\",\"type\":1,\"options\":[{\"name\":"
                    "\"token\",\"type\":3,\"value\":\"%s\"}]}",
                    player),
            NULL);
    measure("/scrud 2 v 1", n, 2, U,
            "{\"name\":\"scrud\",\"type\":1,\"options\":[{\"name\":\"side_a\","
            "\"type\":3,\"value\":\"R1, R2\"},{\"name\":\"side_b\",\"type\":3,"
            "\"value\":\"B1\"}]}",
            NULL);
    measure("/scrud 10 v 10", n, 2, U,
            "{\"name\":\"scrud\",\"type\":1,\"options\":[{\"name\":\"side_a\","
            "\"type\":3,\"value\":\"R0, R1, R2, R3, R4, R5, R6, R7, R8, R9\"},"
            "{\"name\":\"side_b\",\"type\":3,\"value\":\"B0, B1, B2, B3, B4, "
            "B5, B6, B7, B8, B9\"}]}",
            NULL);
    measure("/edna 2 units", n, 2, U,
            "{\"name\":\"edna\",\"type\":1,\"options\":[{\"name\":\"units\","
            "\"type\":3,\"value\":\"R3, B3\"}]}",
            NULL);
    measure("/scs 2 v 1", n, 2, U,
            "{\"name\":\"scs\",\"type\":1,\"options\":[{\"name\":"
            "\"attackers\",\"type\":3,\"value\":\"R4, R5 x1/2\"},{\"name\":"
            "\"defenders\",\"type\":3,\"value\":\"B4 x2\"},{\"name\":"
            "\"table\",\"type\":3,\"value\":\"example-2d6\"}]}",
            NULL);
    measure("/unit", n, 2, P,
            "{\"name\":\"unit\",\"type\":1,\"options\":[{\"name\":\"unit\","
            "\"type\":3,\"value\":\"R1\"}]}",
            NULL);
    measure("/commitment", n, 2, P, "{\"name\":\"commitment\",\"type\":1}",
            NULL);
    j = api("GET", data_of("/v1/campaigns/%s/combats", cid), umpire, NULL);
    snprintf(combat, sizeof combat, "%s",
             json_string_value(json_object_get(
                 json_array_get(json_object_get(j, "items"), 0), "id")));
    json_decref(j);
    measure("/check", n, 2, P,
            data_of("{\"name\":\"check\",\"type\":1,\"options\":[{\"name\":"
                    "\"combat\",\"type\":3,\"value\":\"%s\"}]}",
                    combat),
            NULL);
    measure("/ledger (verified)", n < 50 ? n : 50, 2, P,
            "{\"name\":\"ledger\",\"type\":1}", NULL);
    measure("/matrix (open)", n, 2, U,
            "{\"name\":\"matrix\",\"type\":1,\"options\":[{\"name\":"
            "\"attacker\",\"type\":3,\"value\":\"R6\"},{\"name\":\"defender\","
            "\"type\":3,\"value\":\"B6\"},{\"name\":\"line\",\"type\":3,"
            "\"value\":\"R6 v B6\"},{\"name\":\"turn\",\"type\":4,\"value\":1}"
            ",{\"name\":\"note\",\"type\":3,\"value\":\"open\"}]}",
            ":abandon");
    measure("/civ (open)", n, 2, U,
            "{\"name\":\"civ\",\"type\":1,\"options\":[{\"name\":\"attacker\","
            "\"type\":3,\"value\":\"R7\"},{\"name\":\"defender\",\"type\":3,"
            "\"value\":\"B7\"},{\"name\":\"current_era\",\"type\":4,\"value\":"
            "2},{\"name\":\"turn\",\"type\":4,\"value\":1}]}",
            ":abandon");
    j = api("GET", data_of("/v1/campaigns/%s/ledger/verify", cid), umpire,
            NULL);
    printf("\nThe ledger held %lld entries at the end.\n",
           (long long)json_integer_value(
               json_object_get(json_object_get(j, "ledger"), "length")));
    json_decref(j);
    close(fd);
    http_stop(srv);
    unlink(dbp);
    snprintf(dbp, sizeof dbp, "%s/umpire.db-wal", dir);
    unlink(dbp);
    snprintf(dbp, sizeof dbp, "%s/umpire.db-shm", dir);
    unlink(dbp);
    rmdir(dir);
    return 0;
}
