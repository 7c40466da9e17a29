/*
 * http_reply.h: the responses of http.h turned into HTTP: rendered as a
 * report when asked (report.h), given their headers (security, CORS,
 * caching), and queued on libmicrohttpd, or written straight to the
 * socket when libmicrohttpd can no longer queue one.  Used by http.c only.
 *
 * Whatever a handler left, what goes out has a status from 100 to 599: a
 * response that cannot be made becomes problem_fallback's fixed 500.
 */
#ifndef UMPIRE_HTTP_REPLY_H
#define UMPIRE_HTTP_REPLY_H

#include <stdbool.h>

#include <microhttpd.h>

#include "http.h"

/* Queues r's response on its connection (MHD_YES), or MHD_NO when not
 * even the fallback could be made or queued. */
enum MHD_Result http_reply_queue(http_request *r);

/*
 * Writes r's response, with Connection: close, straight to its socket, and
 * reads off what the client has already sent (so that closing does not
 * reset the connection before the answer is read).  For a request
 * refused while its body arrives, when libmicrohttpd queues nothing: the
 * access handler then returns MHD_NO and libmicrohttpd closes the
 * connection.  True when the whole response was written.
 */
bool http_reply_send_raw(http_request *r);

/* Forgets r's response (made in a writer job whose transaction failed). */
void http_reply_reset(http_request *r);

#endif
