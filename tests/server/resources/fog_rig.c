/*
 * fog_rig.c: the campaign of the fog of war suite; see fog_rig.h.
 */
#include "fog_rig.h"

#include "rig.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

const char *const fog_rig_levels[] = {"full", "status", "name", "hidden"};

static json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static void unit(fog_rig_world *w, const char *name, const char *side,
                 const char *systems)
{
    char body[512];
    json_t *j;

    snprintf(body, sizeof body, "{\"name\":\"%s\",\"side\":\"%s\",%s}", name,
             side, systems);
    j = rig_call(201, "POST", w->c.umpire, body, "/v1/campaigns/%s/units",
                 w->c.id);
    if (strcmp(side, "blue") == 0)
        json_array_append(w->blue_ids, get(j, "id"));
    json_decref(j);
}

/* POSTs body to the campaign's what; keeps the answer's id in id. */
static void post(fog_rig_world *w, const char *what, const char *body,
                 char id[64])
{
    json_t *j = rig_call(201, "POST", w->c.umpire, body, "/v1/campaigns/%s/%s",
                         w->c.id, what);

    snprintf(id, 64, "%s", str(j, "id"));
    json_decref(j);
}

static void act(fog_rig_world *w, const char *battle, const char *body)
{
    json_decref(rig_call(200, "POST", w->c.umpire, body,
                         "/v1/campaigns/%s/battles/%s/actions", w->c.id,
                         battle));
}

void fog_rig_build(fog_rig_world *w)
{
    static const char *const sides[] = {"red", "blue", NULL};
    static const char *const scs =
        "\"scs\":{\"attack\":6,\"defense\":5,\"reduced\":{\"attack\":3,"
        "\"defense\":3}}";
    json_t *j;

    memset(w, 0, sizeof *w);
    w->blue_ids = json_array();
    /* One defeat eliminates: the SCRUD combat's summary names blue's
     * unit eliminated. */
    ts_campaign(rig_ts, &w->c, "{\"defeats_per_elimination\":1}", sides);
    unit(w, "Red Foot", "red", "\"scrud\":{},\"edna\":{}");
    unit(w, "Bleu Foot", "blue", "\"scrud\":{\"quality\":1},\"edna\":{}");
    unit(w, "Red Guns", "red", scs);
    unit(w, "Bleu Guns", "blue", scs);
    unit(w, "Red Line A", "red", "\"matrix\":{}");
    unit(w, "Red Line B", "red", "\"matrix\":{}");
    unit(w, "Bleu Line A", "blue", "\"matrix\":{\"quality\":1}");
    unit(w, "Bleu Line B", "blue", "\"matrix\":{\"quality\":-1}");
    unit(w, "Red Pikes", "red",
         "\"civ\":{\"class\":\"infantry\",\"era\":3,\"bonus\":1}");
    unit(w, "Bleu Horse", "blue", "\"civ\":{\"class\":\"cavalry\",\"era\":2}");
    unit(w, "Bleu Lost", "blue", "\"scrud\":{}");
    post(w, "combats/edna",
         "{\"dice\":{\"source\":\"entered\"},\"units\":[{\"unit\":\"Red "
         "Foot\",\"dice\":[2,3]},{\"unit\":\"Bleu Foot\",\"dice\":[6,6]}]}",
         w->combat[1]);
    post(w, "combats/scrud",
         "{\"dice\":{\"source\":\"entered\"},\"sides\":[{\"side\":\"red\","
         "\"units\":[{\"unit\":\"Red Foot\",\"die\":5}]},{\"side\":\"blue\","
         "\"units\":[{\"unit\":\"Bleu Foot\",\"die\":2}]}]}",
         w->combat[0]);
    j = rig_call(200, "GET", w->c.umpire, NULL, "/v1/campaigns/%s/combats/%s",
                 w->c.id, w->combat[0]);
    RIG_IS_TRUE(json_array_size(get(json_array_get(get(j, "sides"), 1),
                                    "eliminated")) == 1);
    json_decref(j);
    post(w, "combats/scs",
         "{\"table\":\"example-2d6\",\"attackers\":[{\"unit\":\"Red Guns\"}],"
         "\"defenders\":[{\"unit\":\"Bleu Guns\"}]}",
         w->combat[2]);
    post(w, "battles",
         "{\"turn\":1,\"attacker\":{\"side\":\"red\",\"units\":[\"Red Line "
         "A\",\"Red Line B\"]},\"defender\":{\"side\":\"blue\",\"units\":["
         "\"Bleu Line A\",\"Bleu Line B\"]},\"line\":[{\"attacker\":[\"Red "
         "Line A\"],\"defender\":[\"Bleu Line A\"]},{\"attacker\":[\"Red Line "
         "B\"],\"defender\":[\"Bleu Line B\"]}]}",
         w->battle[0]);
    act(w, w->battle[0], "{\"action\":\"roll\",\"combat\":0}");
    act(w, w->battle[0], "{\"action\":\"accept\",\"combat\":0}");
    act(w, w->battle[0], "{\"action\":\"roll\",\"combat\":1}");
    act(w, w->battle[0], "{\"action\":\"accept\",\"combat\":1}");
    j = rig_call(200, "GET", w->c.umpire, NULL, "/v1/campaigns/%s/battles/%s",
                 w->c.id, w->battle[0]);
    snprintf(w->combat[3], sizeof w->combat[3], "%s", str(j, "combat_id"));
    json_decref(j);
    post(w, "battles",
         "{\"system\":\"civ\",\"turn\":2,\"current_era\":3,\"attacker\":{"
         "\"side\":\"red\",\"technologies\":5,\"units\":[\"Red Pikes\"]},"
         "\"defender\":{\"side\":\"blue\",\"technologies\":5,\"units\":["
         "\"Bleu Horse\"]}}",
         w->battle[1]);
    act(w, w->battle[1], "{\"action\":\"phase\"}");
    json_decref(rig_call(200, "PATCH", w->c.umpire,
                         "{\"eliminated\":true,\"note\":\"lost in the fog\"}",
                         "/v1/campaigns/%s/units/%s", w->c.id,
                         json_string_value(json_array_get(w->blue_ids, 5))));
}

void fog_rig_free(fog_rig_world *w)
{
    json_decref(w->blue_ids);
}

/* Sets the campaign's fog: off (level -1, others "hidden": the switch
 * alone turns it off) or on at a level. */
void fog_rig_set_fog(const fog_rig_world *w, int level)
{
    char body[128];
    json_t *j, *fog;

    snprintf(body, sizeof body,
             "{\"options\":{\"fog\":{\"enabled\":%s,\"others\":\"%s\"}}}",
             level < 0 ? "false" : "true",
             fog_rig_levels[level < 0 ? FOG_HIDDEN : level]);
    j = rig_call(200, "PATCH", w->c.umpire, body, "/v1/campaigns/%s", w->c.id);
    fog = get(get(j, "options"), "fog");
    RIG_IS_TRUE(json_is_true(get(fog, "enabled")) == (level >= 0));
    RIG_EQ_STR(str(fog, "others"),
               fog_rig_levels[level < 0 ? FOG_HIDDEN : level]);
    json_decref(j);
}
