/*
 * discord_interaction.c: an interaction's JSON read; see
 * discord_interaction.h.
 */
#include "discord_interaction.h"

#include <stdlib.h>
#include <string.h>

/* A snowflake member of obj (decimal text, 1 to 20 digits) into out;
 * "" when absent and !required. */
static err_code snowflake(const json_t *obj, const char *key, bool required,
                          char out[DB_DISCORD_ID_MAX], err_info *e)
{
    const json_t *v = json_object_get(obj, key);
    const char *s;
    size_t n, i;

    out[0] = '\0';
    if (v == NULL || json_is_null(v)) {
        if (required)
            return err_set(e, ERR_INVALID, key, "an interaction has a %s",
                           key);
        return ERR_OK;
    }
    s = json_string_value(v);
    n = s ? strlen(s) : 0;
    for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        ;
    if (n == 0 || n > 20 || i < n)
        return err_set(e, ERR_INVALID, key, "%s is not a Discord id", key);
    memcpy(out, s, n + 1);
    return ERR_OK;
}

/* The command's options, flattened: a subcommand's (type 1 or 2) are
 * read in its place. */
static err_code read_options(discord_interaction *in, const json_t *opts,
                             int depth, err_info *e)
{
    size_t i;
    const json_t *o;

    if (opts == NULL)
        return ERR_OK;
    if (!json_is_array(opts) || depth > 2)
        return err_set(e, ERR_INVALID, "data.options",
                       "the command's options are not a list");
    json_array_foreach(opts, i, o) {
        const char *name = json_string_value(json_object_get(o, "name"));
        json_int_t type = json_integer_value(json_object_get(o, "type"));
        const json_t *v = json_object_get(o, "value");
        if (name == NULL)
            return err_set(e, ERR_INVALID, "data.options",
                           "an option has no name");
        if (type == 1 || type == 2) {
            err_code rc;
            if (type == 1)
                in->subcommand = name;
            rc = read_options(in, json_object_get(o, "options"),
                                       depth + 1, e);
            if (rc)
                return rc;
            continue;
        }
        if (in->n_options == DISCORD_INTERACTION_MAX)
            return err_set(e, ERR_LIMIT, "data.options",
                           "a command has at most 25 options");
        if (v == NULL || !(json_is_string(v) || json_is_number(v) ||
                           json_is_boolean(v)))
            return err_set(e, ERR_INVALID, "data.options",
                           "the option %s has no value", name);
        in->options[in->n_options].name = name;
        in->options[in->n_options].value = v;
        in->options[in->n_options].is_focused =
            json_is_true(json_object_get(o, "focused"));
        in->n_options++;
    }
    return ERR_OK;
}

/* A component's custom_id and a select's values. */
static err_code read_component(discord_interaction *in, const json_t *data,
                               err_info *e)
{
    const json_t *vals = json_object_get(data, "values"), *v;
    size_t i;

    in->custom_id = json_string_value(json_object_get(data, "custom_id"));
    if (in->custom_id == NULL || in->custom_id[0] == '\0' ||
        strlen(in->custom_id) > 100)
        return err_set(e, ERR_INVALID, "data.custom_id",
                       "a component has a custom_id of 1 to 100 characters");
    if (vals == NULL)
        return ERR_OK;
    if (!json_is_array(vals) || json_array_size(vals) > DISCORD_INTERACTION_MAX)
        return err_set(e, ERR_INVALID, "data.values",
                       "a select's values are a list of up to 25");
    json_array_foreach(vals, i, v) {
        if ((in->values[i] = json_string_value(v)) == NULL)
            return err_set(e, ERR_INVALID, "data.values",
                           "a select's values are strings");
        in->n_values = i + 1;
    }
    return ERR_OK;
}

/* The user: a member's in a guild, the user's in a direct message. */
static err_code read_user(discord_interaction *in, err_info *e)
{
    const json_t *member = json_object_get(in->doc, "member");
    const json_t *user = member ? json_object_get(member, "user")
                                : json_object_get(in->doc, "user");

    if (!json_is_object(user))
        return err_set(e, ERR_INVALID, "member.user",
                       "an interaction has a user");
    return snowflake(user, "id", true, in->user_id, e);
}

err_code discord_interaction_parse(const char *body, size_t len,
                                   discord_interaction *in, err_info *e)
{
    const json_t *data;
    json_int_t type;
    err_code rc;

    memset(in, 0, sizeof *in);
    in->name = "";
    in->subcommand = "";
    in->custom_id = "";
    in->doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(in->doc))
        return err_set(e, ERR_INVALID, NULL,
                       "the body is not an interaction (a JSON object)");
    type = json_integer_value(json_object_get(in->doc, "type"));
    if (type < DISCORD_INTERACTION_PING || type > DISCORD_INTERACTION_MODAL)
        return err_set(e, ERR_INVALID, "type",
                       "an interaction's type is 1 to 5");
    in->type = (int)type;
    if ((rc = snowflake(in->doc, "id", true, in->id, e)) ||
        (rc = snowflake(in->doc, "application_id", true, in->application_id,
                        e)))
        return rc;
    if (in->type == DISCORD_INTERACTION_PING)
        return ERR_OK;
    data = json_object_get(in->doc, "data");
    if (!json_is_object(data))
        return err_set(e, ERR_INVALID, "data", "an interaction has its data");
    if ((rc = snowflake(in->doc, "guild_id", false, in->guild_id, e)) ||
        (rc = snowflake(in->doc, "channel_id", false, in->channel_id, e)) ||
        (rc = read_user(in, e)))
        return rc;
    if (in->type == DISCORD_INTERACTION_COMPONENT ||
        in->type == DISCORD_INTERACTION_MODAL)
        return read_component(in, data, e);
    in->name = json_string_value(json_object_get(data, "name"));
    if (in->name == NULL)
        return err_set(e, ERR_INVALID, "data.name", "a command has a name");
    return read_options(in, json_object_get(data, "options"), 0, e);
}

void discord_interaction_cleanup(discord_interaction *in)
{
    if (in == NULL)
        return;
    if (in->job_free != NULL)
        in->job_free(in->job);
    in->job = NULL;
    in->job_free = NULL;
    json_decref(in->doc);
    in->doc = NULL;
    in->n_options = 0;
    in->n_values = 0;
}

void discord_interaction_free(void *in)
{
    discord_interaction_cleanup(in);
    free(in);
}

static const json_t *option(const discord_interaction *in, const char *name)
{
    size_t i;

    for (i = 0; i < in->n_options; i++)
        if (strcmp(in->options[i].name, name) == 0)
            return in->options[i].value;
    return NULL;
}

const char *discord_interaction_str(const discord_interaction *in,
                                    const char *name)
{
    return json_string_value(option(in, name));
}

bool discord_interaction_int(const discord_interaction *in, const char *name,
                             long long *out)
{
    const json_t *v = option(in, name);

    if (!json_is_integer(v))
        return false;
    *out = json_integer_value(v);
    return true;
}

bool discord_interaction_bool(const discord_interaction *in, const char *name,
                              bool *out)
{
    const json_t *v = option(in, name);

    if (!json_is_boolean(v))
        return false;
    *out = json_is_true(v);
    return true;
}

const discord_interaction_option *
discord_interaction_focused(const discord_interaction *in)
{
    size_t i;

    for (i = 0; i < in->n_options; i++)
        if (in->options[i].is_focused)
            return &in->options[i];
    return NULL;
}
