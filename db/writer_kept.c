/*
 * writer_kept.c: what SQLite's one writer keeps between its statements;
 * see writer_kept.h.
 */
#include "writer_kept.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

writer_kept *db_kept_if(db_conn *c)
{
    writer_kept **k = db_conn_kept(c);

    return k != NULL ? *k : NULL;
}

writer_kept *db_kept(db_conn *c)
{
    writer_kept **k = db_conn_kept(c);

    if (k == NULL || (*k == NULL && (*k = calloc(1, sizeof **k)) == NULL))
        return NULL;
    return *k;
}

void db_kept_forget(db_conn *c)
{
    writer_kept **k = db_conn_kept(c);

    if (k != NULL) {
        free(*k);
        *k = NULL;
    }
}

void db_keys_keep_combat(db_conn *c, const char *combat_id, long long row)
{
    writer_kept *k = db_kept(c);

    if (k != NULL && row > 0) {
        snprintf(k->combat_id, sizeof k->combat_id, "%s", combat_id);
        k->combat_row = row;
    }
}

bool db_keys_hooks_kept(db_conn *c, const char *campaign_id, bool *has)
{
    const writer_kept *k = db_kept_if(c);

    if (k == NULL || k->hooks_campaign[0] == '\0' ||
        strcmp(k->hooks_campaign, campaign_id) != 0)
        return false;
    *has = k->has_hooks;
    return true;
}

void db_keys_hooks_keep(db_conn *c, const char *campaign_id, bool has)
{
    writer_kept *k = db_kept(c);

    if (k != NULL) {
        snprintf(k->hooks_campaign, sizeof k->hooks_campaign, "%s",
                 campaign_id);
        k->has_hooks = has;
    }
}

void db_keys_hooks_forget(db_conn *c)
{
    writer_kept *k = db_kept_if(c);

    if (k != NULL)
        k->hooks_campaign[0] = '\0';
}

void db_keys_job_start(db_conn *c)
{
    writer_kept *k = db_kept_if(c);

    if (k != NULL) {
        k->counted_campaign[0] = '\0';
        k->counted_version = 0;
    }
}

void db_keys_version_counted(db_conn *c, const char *campaign_id,
                             long long version)
{
    writer_kept *k = db_kept(c);

    if (k != NULL) {
        snprintf(k->counted_campaign, sizeof k->counted_campaign, "%s",
                 campaign_id);
        k->counted_version = version > 0 ? version : 0;
    }
}

bool db_keys_version_is_counted(db_conn *c, const char *campaign_id)
{
    const writer_kept *k = db_kept_if(c);

    return k != NULL && campaign_id[0] != '\0' &&
           strcmp(k->counted_campaign, campaign_id) == 0;
}

bool db_keys_counted_version(db_conn *c, const char *campaign_id,
                             long long *version)
{
    const writer_kept *k = db_kept_if(c);

    if (!db_keys_version_is_counted(c, campaign_id) || k->counted_version <= 0)
        return false;
    *version = k->counted_version;
    return true;
}
