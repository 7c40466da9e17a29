/*
 * events_hub.h: live campaign events (docs/events.md): the producer that
 * writes the campaign event log (db.h, migration 10) into the event
 * streams of resources/events.c, through their pump (http_stream.h),
 * which it starts and owns.
 *
 * The hub wakes on every commit (a commit listener of the database
 * writer) and reads the log's new events once, for every stream: each
 * stream that is live (caught up) gets those of its campaign, as its
 * viewer may see them (fog of war, fog.h).  A stream that is behind (just
 * opened with a Last-Event-ID, or whose client reads slower than events
 * come) reads its campaign's events from where it is, a batch at a time,
 * as its buffer makes room, until it is caught up.  Every read is on the
 * pump's thread, never on an HTTP worker.  A token revoked (reissued)
 * ends the streams opened with it, as its requests stop working.
 *
 * An event as sent (text/event-stream):
 *   id: <seq>\nevent: <combat|battle|unit|ledger>\ndata: <JSON>\n\n
 */
#ifndef UMPIRE_EVENTS_HUB_H
#define UMPIRE_EVENTS_HUB_H

#include "db.h"
#include "err.h"
#include "http_stream.h"

typedef struct events_hub events_hub;

/* What one stream shows: its campaign, its viewer, where it stands. */
typedef struct events_sub events_sub;

/*
 * Starts the pump of event streams over d (borrowed: it must outlive the
 * hub), max_streams open at most, a keep-alive comment after keepalive_ms
 * without an event, a stream cut whose client takes under 64 KiB in
 * stall_ms while half its buffer or more waits (0: never), and listens
 * to d's commits.
 * *out is new (events_hub_stop).
 */
err_code events_hub_start(db *d, int max_streams, int keepalive_ms,
                          int stall_ms, events_hub **out, err_info *e);

/* The pump (borrowed), NULL for NULL. */
http_streams *events_hub_streams(events_hub *h);

/* Stops listening to commits and stops the pump (every stream left is
 * freed): only once libmicrohttpd has stopped.  NULL allowed. */
void events_hub_stop(events_hub *h);

/* A subscriber for token's campaign, as token's holder sees it, that
 * has seen every event up to seq after: new (events_hub_sub_free, or
 * its stream's once handed to http_stream_open), NULL when out of
 * memory. */
events_sub *events_hub_sub_new(const db_token *token, long long after);
void events_hub_sub_free(events_sub *sub);

#endif
