/*
 * notify_http.c: one JSON POST at a time through libcurl; see
 * notify_http.h.
 *
 * The easy handle is kept between posts, so its connection to Discord is
 * reused.  libcurl's global state is made once per process
 * (curl_global_init is not safe to race) and never torn down: other
 * libraries (OpenSSL) may share it until the process ends.
 */
#include "notify_http.h"

#include "version.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

struct notify_http {
    CURL *curl;
    struct curl_slist *headers;
    bool is_http_allowed;
};

static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init(void)
{
    global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

err_code notify_http_new(bool is_http_allowed, notify_http **out, err_info *e)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    notify_http *h;

    *out = NULL;
    pthread_once(&once, global_init);
    if (global_rc != CURLE_OK)
        return err_set(e, ERR_INTERNAL, NULL, "libcurl would not start: %s",
                       curl_easy_strerror(global_rc));
    h = calloc(1, sizeof *h);
    if (h == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    h->is_http_allowed = is_http_allowed;
    h->curl = curl_easy_init();
    /* No "Expect: 100-continue": the body is small, and a round trip is
     * saved. */
    h->headers = curl_slist_append(NULL, "Content-Type: application/json");
    if (h->headers)
        h->headers = curl_slist_append(h->headers, "Expect:");
    if (h->curl == NULL || h->headers == NULL) {
        notify_http_free(h);
        return err_set(e, ERR_NOMEM, NULL, "libcurl: out of memory");
    }
    *out = h;
    return ERR_OK;
}

void notify_http_free(notify_http *h)
{
    if (h == NULL)
        return;
    curl_slist_free_all(h->headers);
    if (h->curl)
        curl_easy_cleanup(h->curl);
    free(h);
}

/* A number of seconds ("1", "0.25"), or -1. */
static double seconds(const char *v, size_t n)
{
    char buf[32], *end;
    double d;

    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    d = strtod(buf, &end);
    return end != buf && *end == '\0' && d >= 0 ? d : -1;
}

/* Reads the headers the poster cares about, line by line. */
static size_t on_header(char *line, size_t size, size_t n_items, void *arg)
{
    notify_http_answer *a = arg;
    size_t len = size * n_items, name_len, v_len;
    const char *colon = memchr(line, ':', len), *v;

    if (len >= 5 && strncmp(line, "HTTP/", 5) == 0) {
        /* A new response (after a 1xx): forget the last one's. */
        a->retry_after = a->reset_after = -1;
        a->remaining = -1;
        a->is_global = false;
        return len;
    }
    if (colon == NULL)
        return len;
    name_len = (size_t)(colon - line);
    v = colon + 1;
    while (v < line + len && (*v == ' ' || *v == '\t'))
        v++;
    v_len = (size_t)(line + len - v);
    while (v_len > 0 && (v[v_len - 1] == '\r' || v[v_len - 1] == '\n' ||
                         v[v_len - 1] == ' '))
        v_len--;
#define IS(h) (name_len == sizeof h - 1 && strncasecmp(line, h, name_len) == 0)
    if (IS("Retry-After"))
        a->retry_after = seconds(v, v_len);
    else if (IS("X-RateLimit-Reset-After"))
        a->reset_after = seconds(v, v_len);
    else if (IS("X-RateLimit-Remaining"))
        a->remaining = seconds(v, v_len) >= 0 ? (long)seconds(v, v_len) : -1;
    else if (IS("X-RateLimit-Global"))
        a->is_global = v_len == 4 && strncasecmp(v, "true", 4) == 0;
#undef IS
    return len;
}

/* Keeps the body's start; the rest is read and dropped. */
static size_t on_body(char *data, size_t size, size_t n_items, void *arg)
{
    notify_http_answer *a = arg;
    size_t len = size * n_items, have = strlen(a->body);
    size_t room = sizeof a->body - 1 - have;

    memcpy(a->body + have, data, len < room ? len : room);
    a->body[have + (len < room ? len : room)] = '\0';
    return len;
}

void notify_http_post(notify_http *h, const char *url, const char *json,
                      long timeout_ms, notify_http_answer *out)
{
    char errbuf[CURL_ERROR_SIZE] = "";
    CURL *c = h->curl;
    long status = 0;
    CURLcode rc;

    memset(out, 0, sizeof *out);
    out->retry_after = out->reset_after = -1;
    out->remaining = -1;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR,
                     h->is_http_allowed ? "http,https" : "https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "umpire/" UMPIRE_VERSION);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->headers);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(json));
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, out);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    rc = curl_easy_perform(c);
    if (rc == CURLE_OK &&
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK)
        out->status = (int)status;
    else
        snprintf(out->error, sizeof out->error, "%s",
                 errbuf[0] ? errbuf : curl_easy_strerror(rc));
    /* The handle must not keep pointers to this call's buffers. */
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
}
