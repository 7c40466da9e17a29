/*
 * discord_reply.h: answers to interactions, made for chat and always
 * within Discord's limits, so that Discord never refuses one: messages
 * (content 2,000 characters), embeds (title 256, description 4,096, 25
 * fields of 256 and 1,024, footer 2,048, 6,000 in all), autocomplete
 * choices (25 of 100), and mentions never parsed (allowed_mentions
 * empty: no name or note pings anyone).  Lengths count as Discord's
 * clients count them (UTF-16 units); text is cut on a character boundary
 * with an ellipsis, and an embed that cannot hold everything says so and
 * points to the full report.
 */
#ifndef UMPIRE_DISCORD_REPLY_H
#define UMPIRE_DISCORD_REPLY_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "http.h"

#define DISCORD_REPLY_CONTENT_MAX     2000
#define DISCORD_REPLY_TITLE_MAX       256
#define DISCORD_REPLY_DESCRIPTION_MAX 4096
#define DISCORD_REPLY_FIELDS_MAX      25
#define DISCORD_REPLY_FIELD_NAME_MAX  256
#define DISCORD_REPLY_FIELD_VALUE_MAX 1024
#define DISCORD_REPLY_FOOTER_MAX      2048
#define DISCORD_REPLY_EMBED_MAX       6000 /* an embed's text in all */
#define DISCORD_REPLY_CHOICES_MAX     25
#define DISCORD_REPLY_CHOICE_MAX      100 /* a choice's name or value */
#define DISCORD_REPLY_CUSTOM_ID_MAX   100
#define DISCORD_REPLY_LABEL_MAX       80 /* a button's label */

/* Response types (Discord's numbers). */
enum {
    DISCORD_REPLY_PONG = 1,
    DISCORD_REPLY_MESSAGE = 4,  /* CHANNEL_MESSAGE_WITH_SOURCE */
    DISCORD_REPLY_DEFERRED = 5, /* DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE */
    DISCORD_REPLY_UPDATE = 7,   /* UPDATE_MESSAGE (a component's) */
    DISCORD_REPLY_CHOICES = 8   /* APPLICATION_COMMAND_AUTOCOMPLETE_RESULT */
};

#define DISCORD_REPLY_EPHEMERAL 64 /* a message only its user sees */

/* s's length as Discord counts it (UTF-16 units of its UTF-8). */
size_t discord_reply_len(const char *s);
/* s cut to at most max units on a character boundary, ending with an
 * ellipsis when cut (new, free()); NULL when out of memory. */
char *discord_reply_cut(const char *s, size_t max);

/* An embed being built: fields go in the order given (the result first)
 * while they fit; those that do not are counted, and said. */
typedef struct discord_embed {
    json_t *obj;       /* owned until discord_reply_embed_take */
    size_t total;      /* characters counted against the 6,000 */
    size_t budget;     /* what fields and description may still use */
    size_t n_fields;   /* fields in */
    size_t n_dropped;  /* fields that did not fit */
    bool is_cut;       /* some text was shortened */
    const char *where; /* the full report's pointer (borrowed), or NULL */
} discord_embed;

/*
 * Starts an embed with its title (cut to 256; NULL: set later), color
 * (0xRRGGBB) and
 * footer (cut to 2,048; NULL for none).  where, when not NULL, says
 * where the full report is: it is added when something had to be cut.
 */
void discord_reply_embed_init(discord_embed *em, const char *title,
                              int color, const char *footer,
                              const char *where);
/* The title, when init had none (cut to 256). */
void discord_reply_embed_title(discord_embed *em, const char *title);
/* The description (cut to what is left, at most 4,096). */
void discord_reply_embed_text(discord_embed *em, const char *text);
/* A field (name cut to 256, value to 1,024; empty ones get a dash);
 * false when it no longer fits (it is counted as dropped). */
bool discord_reply_embed_field(discord_embed *em, const char *name,
                               const char *value, bool is_inline);
/* The embed (new), with a last field saying what was left out and where
 * the full report is; em is emptied. */
json_t *discord_reply_embed_take(discord_embed *em);
/* Frees an embed not taken (NULL allowed). */
void discord_reply_embed_cleanup(discord_embed *em);

/*
 * A response of type (DISCORD_REPLY_MESSAGE or _UPDATE) with content
 * (cut to 2,000; NULL for none), an embed and components (both stolen,
 * NULL for none), ephemeral or not; mentions are never parsed.  New.
 */
json_t *discord_reply_message(int type, const char *content, json_t *embed,
                              json_t *components, bool is_ephemeral);
/* An ephemeral message of one sentence (printf-style), new. */
json_t *discord_reply_notice(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* The autocomplete answer with choices (stolen; at most 25 kept). */
json_t *discord_reply_choices(json_t *choices);
/* A choice: its name cut to 100 (new); NULL when value is empty or
 * longer than 100 (a value is never cut: it is what the option takes). */
json_t *discord_reply_choice(const char *name, const char *value);

/* Answers r with reply (stolen): 200, application/json. */
void discord_reply_send(http_request *r, json_t *reply);

/* s made safe to show inside chat Markdown (text_md: marks escaped,
 * control characters spaced), into out of n bytes. */
void discord_reply_md(char *out, size_t n, const char *s);

#endif
