/*
 * notify.h: the poster of channel posts (docs/discord.md, "Channel
 * posts"): one thread that sends every combat and battle record of a
 * campaign with a Discord webhook to that webhook, off the request path.
 *
 * The posts themselves are rows of the database (db.h, "channel posts"),
 * made in each combat's own transaction, so the poster never delays or
 * fails a combat and loses nothing when the service stops.  The poster
 * is woken by the writer's commit listener, sends the oldest post of each
 * campaign in turn (a campaign's posts arrive in order), and settles each
 * one: delivered, or failed once it is plainly refused (a 4xx), after
 * max_attempts tries (5xx, no answer, 429), or dropped when more than
 * backlog posts of a campaign wait.  Waits between tries: exponential
 * backoff, or what a 429 or the rate-limit headers ask for.
 */
#ifndef UMPIRE_NOTIFY_H
#define UMPIRE_NOTIFY_H

#include <stdbool.h>

#include "db.h"
#include "err.h"

typedef struct notify_config {
    const char *api_base;   /* Discord's API (notify_discord_check_base);
                             * borrowed until notify_start returns */
    int timeout_ms;         /* one try at most, connecting included */
    int max_attempts;       /* tries of a post before it fails */
    int backoff_ms;         /* the wait after a first failed try, doubled
                             * after each further one */
    int backoff_max_ms;     /* the longest such wait */
    int max_retry_after_ms; /* a 429 asking for a longer wait fails the post
                             * instead */
    int backlog;            /* posts of a campaign waiting at most: the
                             * oldest beyond it are dropped, as failures */
    bool is_logging;        /* posts given up on are logged to stderr */
} notify_config;

/* The defaults: https://discord.com/api, 5 s, 5 tries, 1 s doubling up to
 * 60 s, 429s of up to 300 s, a backlog of 100, logging on. */
void notify_config_default(notify_config *cfg);

typedef struct notify notify;

/*
 * Starts the poster over d (borrowed: it must outlive the poster) and
 * listens to d's commits (db_add_commit_listener: one poster per
 * database).  Posts left waiting by an earlier run are sent too.  *out is
 * new (notify_stop).  ERR_INVALID for a bad cfg (field named),
 * ERR_INTERNAL when libcurl or the thread will not start.
 */
err_code notify_start(db *d, const notify_config *cfg, notify **out,
                      err_info *e);

/*
 * Stops listening to d's commits and stops the poster: a try under way
 * ends (within timeout_ms), no other starts; posts not delivered stay
 * waiting in the database for the next start.  NULL ok.
 */
void notify_stop(notify *n);

#endif
