/*
 * discord_reply.c: answers within Discord's limits; see discord_reply.h.
 */
#include "discord_reply.h"

#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kept free in every embed for the field that says what was left out. */
#define NOTE_RESERVE 300

/* UTF-16 units of the character whose UTF-8 starts with byte c (0 for a
 * continuation byte). */
static size_t units_of(unsigned char c)
{
    if ((c & 0xc0) == 0x80)
        return 0;
    return c >= 0xf0 ? 2 : 1;
}

size_t discord_reply_len(const char *s)
{
    size_t n = 0;

    for (; s && *s; s++)
        n += units_of((unsigned char)*s);
    return n;
}

char *discord_reply_cut(const char *s, size_t max)
{
    static const char ellipsis[] = "\xe2\x80\xa6"; /* U+2026, one unit */
    size_t n = 0, i;
    char *out;

    if (s == NULL)
        s = "";
    if (discord_reply_len(s) <= max)
        return strdup(s);
    /* Whole characters while they leave room for the ellipsis. */
    for (i = 0; s[i]; i++) {
        size_t u = units_of((unsigned char)s[i]);
        if (u && n + u > max - 1)
            break;
        n += u;
    }
    /* i is the first byte of the first character left out. */
    out = malloc(i + sizeof ellipsis);
    if (out == NULL)
        return NULL;
    memcpy(out, s, i);
    memcpy(out + i, ellipsis, sizeof ellipsis);
    return out;
}

/* s cut to max as a new JSON string (a dash when s is empty); sets
 * *is_cut when it was shortened; adds its length to *len. */
static json_t *cut_string(const char *s, size_t max, bool *is_cut,
                          size_t *len)
{
    char *c = discord_reply_cut(s && *s ? s : "-", max);
    json_t *j;

    if (c == NULL)
        return json_string("-");
    if (strcmp(c, s && *s ? s : "-") != 0 && is_cut)
        *is_cut = true;
    /* A text cut short elsewhere (a column copied into a buffer) may end
     * inside a character: that character goes. */
    while ((j = json_string(c)) == NULL && c[0] != '\0') {
        size_t n = strlen(c);
        while (n > 0 && (c[n - 1] & 0xc0) == 0x80)
            n--;
        c[n > 0 ? n - 1 : 0] = '\0';
    }
    *len += discord_reply_len(c);
    free(c);
    return j ? j : json_string("-");
}

void discord_reply_embed_init(discord_embed *em, const char *title,
                              int color, const char *footer,
                              const char *where)
{
    memset(em, 0, sizeof *em);
    em->where = where;
    em->obj = json_object();
    if (title != NULL)
        json_object_set_new(em->obj, "title",
                            cut_string(title, DISCORD_REPLY_TITLE_MAX,
                                       &em->is_cut, &em->total));
    json_object_set_new(em->obj, "color", json_integer(color & 0xffffff));
    if (footer != NULL)
        json_object_set_new(
            em->obj, "footer",
            json_pack("{s:o}", "text",
                      cut_string(footer, DISCORD_REPLY_FOOTER_MAX, &em->is_cut,
                                 &em->total)));
    em->budget = em->total + NOTE_RESERVE < DISCORD_REPLY_EMBED_MAX
                     ? DISCORD_REPLY_EMBED_MAX - em->total - NOTE_RESERVE
                     : 0;
}

void discord_reply_embed_title(discord_embed *em, const char *title)
{
    size_t len = 0;
    json_t *t = cut_string(title, DISCORD_REPLY_TITLE_MAX, &em->is_cut, &len);

    if (json_object_get(em->obj, "title") != NULL || len > em->budget) {
        json_decref(t);
        return;
    }
    json_object_set_new(em->obj, "title", t);
    em->total += len;
    em->budget -= len;
}

void discord_reply_embed_text(discord_embed *em, const char *text)
{
    size_t max = em->budget < DISCORD_REPLY_DESCRIPTION_MAX
                     ? em->budget
                     : DISCORD_REPLY_DESCRIPTION_MAX;
    size_t len = 0;

    if (max < 2 || text == NULL || text[0] == '\0')
        return;
    json_object_set_new(em->obj, "description",
                        cut_string(text, max, &em->is_cut, &len));
    em->total += len;
    em->budget -= len;
}

bool discord_reply_embed_field(discord_embed *em, const char *name,
                               const char *value, bool is_inline)
{
    bool is_cut = false;
    size_t len = 0;
    json_t *n, *v, *fields;

    n = cut_string(name, DISCORD_REPLY_FIELD_NAME_MAX, &is_cut, &len);
    v = cut_string(value, DISCORD_REPLY_FIELD_VALUE_MAX, &is_cut, &len);
    /* One field stays free for the note on what was left out. */
    if (em->n_fields + 1 >= DISCORD_REPLY_FIELDS_MAX || len > em->budget) {
        json_decref(n);
        json_decref(v);
        em->n_dropped++;
        return false;
    }
    fields = json_object_get(em->obj, "fields");
    if (fields == NULL) {
        fields = json_array();
        json_object_set_new(em->obj, "fields", fields);
    }
    json_array_append_new(fields, json_pack("{s:o, s:o, s:b}", "name", n,
                                            "value", v, "inline", is_inline));
    em->is_cut |= is_cut;
    em->n_fields++;
    em->total += len;
    em->budget -= len;
    return true;
}

json_t *discord_reply_embed_take(discord_embed *em)
{
    json_t *o = em->obj;
    char note[NOTE_RESERVE];
    json_t *fields;
    size_t len = 0;

    if (o != NULL && (em->n_dropped || em->is_cut)) {
        if (em->n_dropped)
            snprintf(note, sizeof note, "%zu more not shown. %s",
                     em->n_dropped, em->where ? em->where : "");
        else
            snprintf(note, sizeof note, "Shortened for Discord. %s",
                     em->where ? em->where : "");
        fields = json_object_get(o, "fields");
        if (fields == NULL) {
            fields = json_array();
            json_object_set_new(o, "fields", fields);
        }
        json_array_append_new(
            fields,
            json_pack("{s:s, s:o, s:b}", "name", "Full report", "value",
                      cut_string(note, NOTE_RESERVE - 20, NULL, &len),
                      "inline", false));
    }
    em->obj = NULL;
    return o;
}

void discord_reply_embed_cleanup(discord_embed *em)
{
    if (em == NULL)
        return;
    json_decref(em->obj);
    em->obj = NULL;
}

json_t *discord_reply_message(int type, const char *content, json_t *embed,
                              json_t *components, bool is_ephemeral)
{
    json_t *data = json_object();
    size_t len = 0;

    if (content != NULL)
        json_object_set_new(data, "content",
                            cut_string(content, DISCORD_REPLY_CONTENT_MAX,
                                       NULL, &len));
    if (embed != NULL)
        json_object_set_new(data, "embeds", json_pack("[o]", embed));
    else if (type == DISCORD_REPLY_UPDATE)
        json_object_set_new(data, "embeds", json_array());
    if (components != NULL)
        json_object_set_new(data, "components", components);
    else if (type == DISCORD_REPLY_UPDATE)
        json_object_set_new(data, "components", json_array());
    json_object_set_new(data, "allowed_mentions",
                        json_pack("{s:[]}", "parse"));
    if (is_ephemeral)
        json_object_set_new(data, "flags",
                            json_integer(DISCORD_REPLY_EPHEMERAL));
    return json_pack("{s:i, s:o}", "type", type, "data", data);
}

json_t *discord_reply_notice(const char *fmt, ...)
{
    char text[DISCORD_REPLY_CONTENT_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return discord_reply_message(DISCORD_REPLY_MESSAGE, text, NULL, NULL,
                                 true);
}

json_t *discord_reply_choices(json_t *choices)
{
    while (json_array_size(choices) > DISCORD_REPLY_CHOICES_MAX)
        json_array_remove(choices, DISCORD_REPLY_CHOICES_MAX);
    return json_pack("{s:i, s:{s:o}}", "type", DISCORD_REPLY_CHOICES, "data",
                     "choices", choices);
}

json_t *discord_reply_choice(const char *name, const char *value)
{
    size_t len = 0;

    /* A value is what the option will hold: never cut, left out. */
    if (discord_reply_len(value) > DISCORD_REPLY_CHOICE_MAX || !value[0])
        return NULL;
    return json_pack("{s:o, s:o}", "name",
                     cut_string(name, DISCORD_REPLY_CHOICE_MAX, NULL, &len),
                     "value",
                     cut_string(value, DISCORD_REPLY_CHOICE_MAX, NULL, &len));
}

void discord_reply_send(http_request *r, json_t *reply)
{
    http_reply_json(r, 200, reply);
}

void discord_reply_md(char *out, size_t n, const char *s)
{
    text_md(out, n, s ? s : "");
}
