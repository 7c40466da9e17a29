/*
 * http_log.h: the access log, one line per request as it ends:
 *
 *   TIME ADDRESS "METHOD PATH" STATUS BYTES DURATIONms
 *
 * the path with control characters, quotes and backslashes escaped, and a
 * share link's secret cut to its first 4 characters (docs/sharing.md).
 * Lines from every worker thread, one at a time.
 */
#ifndef UMPIRE_HTTP_LOG_H
#define UMPIRE_HTTP_LOG_H

#include "err.h"
#include "http.h"

typedef struct http_log http_log;

/* Opens the log at dest: "off" (*out NULL: nothing logged), "-" (stderr)
 * or a file, appended to and line-buffered.  ERR_INVALID (field
 * "access_log") when the file cannot be opened. */
err_code http_log_open(const char *dest, http_log **out, err_info *e);

/* r's line, after ms milliseconds; nothing when log is NULL. */
void http_log_request(http_log *log, http_request *r, double ms);

/* Closes the log (a file it opened) and frees it; NULL allowed. */
void http_log_close(http_log *log);

#endif
