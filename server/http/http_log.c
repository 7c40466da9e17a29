/*
 * http_log.c: the access log; see http_log.h.
 */
#include "http_log.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

struct http_log {
    FILE *f;
    bool is_owned; /* a file it opened (not stderr) */
    pthread_mutex_t lock;
};

err_code http_log_open(const char *dest, http_log **out, err_info *e)
{
    http_log *log;

    *out = NULL;
    if (strcmp(dest, "off") == 0)
        return ERR_OK;
    if ((log = calloc(1, sizeof *log)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (strcmp(dest, "-") == 0) {
        log->f = stderr;
    } else if ((log->f = fopen(dest, "a")) == NULL) {
        free(log);
        return err_set(e, ERR_INVALID, "access_log",
                       "cannot open the access log %s", dest);
    } else {
        setvbuf(log->f, NULL, _IOLBF, 0);
        log->is_owned = true;
    }
    pthread_mutex_init(&log->lock, NULL);
    *out = log;
    return ERR_OK;
}

void http_log_close(http_log *log)
{
    if (log == NULL)
        return;
    if (log->is_owned)
        fclose(log->f);
    pthread_mutex_destroy(&log->lock);
    free(log);
}

/* The path as one log line can hold it: control characters, quotes and
 * backslashes escaped (libmicrohttpd has decoded %0a and the like). */
static void log_safe(const char *in, char *out, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;

    for (; *in && o + 5 < n; in++) {
        unsigned char c = (unsigned char)*in;
        if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
}

/* A share link's secret is a credential, stored only as a hash: its
 * paths (/share/{secret}, /v1/shared/{secret}) are logged with the
 * secret cut to its first 4 characters (docs/sharing.md). */
static void log_mask_secret(char *path)
{
    static const char *const prefixes[] = {"/share/", "/v1/shared/"};
    size_t i, n;

    for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        n = strlen(prefixes[i]);
        if (strncmp(path, prefixes[i], n) == 0 && strlen(path + n) > 4) {
            memcpy(path + n + 4, "...", 4);
            return;
        }
    }
}

void http_log_request(http_log *log, http_request *r, double ms)
{
    const union MHD_ConnectionInfo *ci;
    char addr[INET6_ADDRSTRLEN] = "-", at[DB_TIME_MAX], path[512];

    if (log == NULL)
        return;
    ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci && ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr,
                      addr, sizeof addr);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr,
                      addr, sizeof addr);
    }
    db_now(at);
    log_safe(r->path, path, sizeof path);
    log_mask_secret(path);
    pthread_mutex_lock(&log->lock);
    fprintf(log->f, "%s %s \"%s %s\" %d %zu %.3fms\n", at, addr, r->method,
            path, r->status, r->resp_len, ms);
    pthread_mutex_unlock(&log->lock);
}
