/*
 * discord_battle_view.c: a battle's message; see discord_battle_view.h.
 * Matrix: the combats of the line (dice, scores, who lost, reserves), the
 * next combat's buttons (roll, or accept with a select per army that may
 * commit a reserve). Civilization: the last phase (waves, dice, every
 * term of the totals, aircraft flown, damage, pieces destroyed), the
 * survivors, and the next phase's button with a select of the picking
 * army's wave and, for each army with aircraft left, a select of the
 * class they support; a choice of class updates the message, its
 * components then carrying it (discord_battle_view.h).  Both: abandon;
 * and once over, the result and the record to /check.
 */
#include "discord_battle_view.h"

#include "discord_reply.h"
#include "discord_report.h"
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MD (4 * 64 + 1)

static const json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(get(o, k));

    return s ? s : "";
}

static long long num(const json_t *o, const char *k)
{
    return json_integer_value(get(o, k));
}

static void add(text_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add(text_buf *b, const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    text_printf(b, "%s", line);
}

/* The names of a list, joined by sep, made safe for Markdown. */
static void names(text_buf *b, const json_t *list, const char *sep)
{
    char name[NAME_MD];
    const json_t *v;
    size_t i;

    json_array_foreach(list, i, v)
    {
        discord_reply_md(name, sizeof name, json_string_value(v));
        add(b, "%s%s", i ? sep : "", name);
    }
}

static json_t *button(const char *label, const char *custom_id, int style)
{
    return json_pack("{s:i, s:s, s:s, s:i}", "type", 2, "label", label,
                     "custom_id", custom_id, "style", style);
}

/* A string select of options (stolen), picking between min and max. */
static json_t *select_of(const char *custom_id, const char *placeholder,
                         json_t *options, int min, int max)
{
    return json_pack("{s:i, s:s, s:s, s:o, s:i, s:i}", "type", 3, "custom_id",
                     custom_id, "placeholder", placeholder, "options", options,
                     "min_values", min, "max_values", max);
}

static json_t *row(json_t *component)
{
    return json_pack("{s:i, s:[o]}", "type", 1, "components", component);
}

/* A select's options: the names of list (at most 25, each a value of at
 * most 100 characters). */
static json_t *options_of(const json_t *list, const char *key)
{
    json_t *opts = json_array();
    const json_t *v;
    size_t i;

    json_array_foreach(list, i, v)
    {
        const char *name = key ? str(v, key) : json_string_value(v);
        if (name == NULL || name[0] == '\0' ||
            discord_reply_len(name) > DISCORD_REPLY_CHOICE_MAX ||
            json_array_size(opts) == DISCORD_REPLY_CHOICES_MAX)
            continue;
        json_array_append_new(
            opts, json_pack("{s:s, s:s}", "label", name, "value", name));
    }
    return opts;
}

/* ---- Matrix ---- */

static void matrix_text(text_buf *b, const json_t *battle)
{
    const json_t *cb, *v;
    const char *k;
    size_t i;

    json_array_foreach(get(battle, "combats"), i, cb)
    {
        add(b, "%zu. ", i + 1);
        names(b, get(cb, "attacker"), " + ");
        add(b, " v ");
        names(b, get(cb, "defender"), " + ");
        if (!json_is_true(get(cb, "rolled"))) {
            add(b, ": to roll\n");
            continue;
        }
        add(b, ": dice");
        json_object_foreach((json_t *)get(cb, "dice"), k, v)
            add(b, " %lld", (long long)json_integer_value(v));
        add(b, ", scores %lld v %lld", num(get(cb, "scores"), "attacker"),
            num(get(cb, "scores"), "defender"));
        if (json_array_size(get(cb, "reserves")) > 0)
            add(b, " (reserves in)");
        if (str(cb, "loser")[0])
            add(b, ": the %s loses, %s", str(cb, "loser"), str(cb, "result"));
        else
            add(b, ": %s", str(cb, "result"));
        add(b, "%s\n", json_is_true(get(cb, "accepted")) ? ", accepted" : "");
    }
}

/* The battle's result, the winner first, then what became of units. */
static void matrix_result(text_buf *b, const json_t *result)
{
    const json_t *cp = get(result, "casualty_points"), *v;
    char name[NAME_MD];
    const char *k;
    size_t i;

    if (str(result, "winner")[0])
        add(b, "\n**The %s wins**", str(result, "winner"));
    else
        add(b, "\n**No winner**");
    add(b, " (casualty points %lld v %lld; %s).\n", num(cp, "attacker"),
        num(cp, "defender"), str(result, "army_state"));
    json_object_foreach((json_t *)get(result, "unit_results"), k, v)
    {
        if (!json_is_string(v))
            continue;
        discord_reply_md(name, sizeof name, k);
        add(b, "%s: %s\n", name, json_string_value(v));
    }
    if (json_array_size(get(result, "exhausted")) > 0) {
        add(b, "Exhausted next turn: ");
        json_array_foreach(get(result, "exhausted"), i, v)
            add(b, "%s%s", i ? ", " : "",
                json_is_string(v) ? json_string_value(v) : "?");
        add(b, "\n");
    }
}

/* The next combat's components: roll it, or accept it and commit. */
static void matrix_components(json_t *rows, const json_t *battle,
                              const char *head)
{
    static const char *const armies[] = {"attacker", "defender"};
    const json_t *cb;
    char id[DISCORD_REPLY_CUSTOM_ID_MAX + 1], label[64];
    size_t i;
    int a;

    json_array_foreach(get(battle, "combats"), i, cb)
    {
        if (json_is_true(get(cb, "accepted")))
            continue;
        if (!json_is_true(get(cb, "rolled"))) {
            json_t *r1;
            snprintf(id, sizeof id, "%s:roll:%zu", head, i);
            snprintf(label, sizeof label, "Roll combat %zu", i + 1);
            r1 = row(button(label, id, 1));
            /* The odds of this combat, before its roll (discord_odds.h). */
            snprintf(id, sizeof id, "%s:odds:%zu", head, i);
            json_array_append_new(json_object_get(r1, "components"),
                                  button("Odds", id, 2));
            json_array_append_new(rows, r1);
            return;
        }
        snprintf(id, sizeof id, "%s:accept:%zu", head, i);
        snprintf(label, sizeof label, "Accept combat %zu", i + 1);
        json_array_append_new(rows, row(button(label, id, 3)));
        for (a = 0; a < 2; a++) {
            const json_t *army = get(get(battle, "armies"), armies[a]);
            json_t *left, *opts;
            const json_t *res;
            size_t k;
            if (!json_is_true(get(army, "may_commit_reserves")))
                continue;
            left = json_array();
            json_array_foreach(get(army, "reserve"), k,
                               res) if (!json_is_true(get(res, "committed")))
                json_array_append(left, (json_t *)res);
            opts = options_of(left, "unit");
            json_decref(left);
            if (json_array_size(opts) == 0) {
                json_decref(opts);
                continue;
            }
            snprintf(id, sizeof id, "%s:commit:%zu:%s", head, i, armies[a]);
            snprintf(label, sizeof label, "Commit a reserve (%s)", armies[a]);
            json_array_append_new(rows, row(select_of(id, label, opts, 1, 1)));
        }
        return;
    }
}

/* ---- Civilization ---- */

static void civ_side(text_buf *b, const json_t *side, const char *label)
{
    const json_t *v;
    const char *k;
    size_t i;

    add(b, "%s: ", label);
    names(b, get(side, "wave"), ", ");
    add(b, ", dice");
    json_array_foreach(get(side, "dice"), i, v)
        add(b, " %lld", (long long)json_integer_value(v));
    if (json_array_size(get(side, "aircraft")) > 0 ||
        num(side, "idle_aircraft") > 0) {
        add(b, "; aircraft supporting %s: ",
            json_is_string(get(side, "aircraft_support"))
                ? str(side, "aircraft_support")
                : "none");
        names(b, get(side, "aircraft"), ", ");
        if (json_array_size(get(side, "aircraft")) == 0)
            add(b, "none flew");
        if (num(side, "idle_aircraft") > 0)
            add(b, " (%lld idle)", num(side, "idle_aircraft"));
    }
    add(b, "; total %lld =", num(side, "total"));
    json_object_foreach((json_t *)get(side, "terms"), k,
                        v) if (json_integer_value(v) != 0)
        add(b, " %s %lld", k, (long long)json_integer_value(v));
    add(b, "; takes %lld damage", num(side, "damage_taken"));
    if (json_array_size(get(side, "destroyed")) > 0) {
        add(b, ", **destroyed**: ");
        names(b, get(side, "destroyed"), ", ");
    }
    add(b, "\n");
}

static void civ_text(text_buf *b, const json_t *battle)
{
    const json_t *phases = get(battle, "phases");
    const json_t *last = json_array_get(phases, json_array_size(phases) - 1);

    if (last != NULL) {
        add(b, "**Phase %zu**\n", json_array_size(phases));
        civ_side(b, get(last, "attacker"), "Attacker");
        civ_side(b, get(last, "defender"), "Defender");
    }
    add(b, "Attacker's pieces: ");
    names(b, get(get(battle, "survivors"), "attacker"), ", ");
    if (json_array_size(get(get(battle, "survivors"), "attacker")) == 0)
        add(b, "none");
    add(b, "\nDefender's pieces: ");
    names(b, get(get(battle, "survivors"), "defender"), ", ");
    if (json_array_size(get(get(battle, "survivors"), "defender")) == 0)
        add(b, "none");
    add(b, "\n");
    if (json_is_string(get(battle, "winner")))
        add(b, "**Winner: the %s.**\n", str(battle, "winner"));
}

/* ---- Civilization's aircraft orders ---- */

static const char air_letters[] = "icao";
static const char *const air_classes[] = {"infantry", "cavalry", "artillery",
                                          "other"};

const char *discord_battle_view_air_class(char letter)
{
    const char *at = letter ? strchr(air_letters, letter) : NULL;

    return at ? air_classes[at - air_letters] : NULL;
}

char discord_battle_view_air_letter(const char *cls)
{
    size_t i;

    if (cls == NULL)
        return '\0';
    if (strcmp(cls, "default") == 0)
        return '-';
    for (i = 0; i < sizeof air_classes / sizeof air_classes[0]; i++)
        if (strcmp(cls, air_classes[i]) == 0)
            return air_letters[i];
    return '\0';
}

bool discord_battle_view_air_is_valid(const char *air)
{
    int a;

    if (air == NULL || strlen(air) != DISCORD_BATTLE_VIEW_AIR_LEN)
        return false;
    for (a = 0; a < DISCORD_BATTLE_VIEW_AIR_LEN; a++)
        if (air[a] != '-' && discord_battle_view_air_class(air[a]) == NULL)
            return false;
    return true;
}

/* Whether the piece called name in army is an aircraft (by the classes
 * of the battle's setup). */
static bool is_aircraft(const json_t *battle, const char *army,
                        const char *name)
{
    const json_t *units = get(get(get(battle, "setup"), army), "units"), *u;
    size_t i;

    json_array_foreach(units, i, u) if (strcmp(str(u, "name"), name) ==
                                        0) return strcmp(str(u, "class"),
                                                         "aircraft") == 0;
    return false;
}

/* The army's survivors, its regular pieces (new) and whether any is an
 * aircraft. */
static json_t *regulars(const json_t *battle, const char *army,
                        bool *has_aircraft)
{
    json_t *out = json_array();
    const json_t *v;
    size_t i;

    *has_aircraft = false;
    json_array_foreach(get(get(battle, "survivors"), army), i, v)
    {
        if (!json_is_string(v))
            continue;
        if (is_aircraft(battle, army, json_string_value(v)))
            *has_aircraft = true;
        else
            json_array_append(out, (json_t *)v);
    }
    return out;
}

/* The select of the class army's aircraft support, chosen marked. */
static json_t *air_select(const char *head, const char *army, char chosen,
                          const char *air)
{
    char id[DISCORD_REPLY_CUSTOM_ID_MAX + 1], label[96];
    json_t *opts = json_array(), *o;
    size_t i;

    o = json_pack("{s:s, s:s, s:s}", "label", "Default: most in the wave",
                  "value", "default", "description",
                  "the class with most pieces in the wave");
    if (chosen == '-')
        json_object_set_new(o, "default", json_true());
    json_array_append_new(opts, o);
    for (i = 0; i < sizeof air_classes / sizeof air_classes[0]; i++) {
        snprintf(label, sizeof label, "Support %s", air_classes[i]);
        o = json_pack("{s:s, s:s}", "label", label, "value", air_classes[i]);
        if (chosen == air_letters[i])
            json_object_set_new(o, "default", json_true());
        json_array_append_new(opts, o);
    }
    snprintf(id, sizeof id, "%s:air:-1:%s:%s", head, army, air);
    snprintf(label, sizeof label, "The %s's aircraft support...", army);
    return select_of(id, label, opts, 1, 1);
}

static void civ_components(json_t *rows, const json_t *battle, const char *head,
                           const char *given)
{
    static const char *const armies[] = {"attacker", "defender"};
    const json_t *next = get(battle, "next_wave");
    const char *picker = str(next, "picked_by");
    char id[DISCORD_REPLY_CUSTOM_ID_MAX + 1], label[64];
    char air[DISCORD_BATTLE_VIEW_AIR_LEN + 1];
    bool is_air[2], is_picker_air;
    long long size = num(next, "size");
    json_t *opts;
    int a;

    /* The orders given, but the default for an army with no aircraft
     * left (the service refuses a class for it). */
    text_copy(air, sizeof air,
              discord_battle_view_air_is_valid(given)
                  ? given
                  : DISCORD_BATTLE_VIEW_AIR_DEFAULT);
    for (a = 0; a < 2; a++) {
        json_decref(regulars(battle, armies[a], &is_air[a]));
        if (!is_air[a])
            air[a] = '-';
    }
    snprintf(id, sizeof id, "%s:phase:-1:-:%s", head, air);
    snprintf(label, sizeof label, "Fight phase %zu",
             json_array_size(get(battle, "phases")) + 1);
    {
        /* The odds of this phase, with the orders shown (discord_odds.h). */
        json_t *r1 = row(button(label, id, 1));
        snprintf(id, sizeof id, "%s:odds:-1:-:%s", head, air);
        json_array_append_new(json_object_get(r1, "components"),
                              button("Odds", id, 2));
        json_array_append_new(rows, r1);
    }
    if (picker[0] != '\0' && size >= 1 && size <= DISCORD_REPLY_CHOICES_MAX) {
        /* A wave is of regular pieces: aircraft join none. */
        json_t *wave = regulars(battle, picker, &is_picker_air);
        opts = options_of(wave, NULL);
        json_decref(wave);
        if ((long long)json_array_size(opts) < size) {
            json_decref(opts);
        } else {
            snprintf(id, sizeof id, "%s:wave:-1:%s:%s", head, picker, air);
            snprintf(label, sizeof label, "Or pick the %s's wave (%lld)",
                     picker, size);
            json_array_append_new(
                rows, row(select_of(id, label, opts, (int)size, (int)size)));
        }
    }
    for (a = 0; a < 2; a++)
        if (is_air[a])
            json_array_append_new(
                rows, row(air_select(head, armies[a], air[a], air)));
}

json_t *discord_battle_view_message(const json_t *battle, int type,
                                    const char *air)
{
    bool is_civ = strcmp(str(battle, "system"), "civ") == 0;
    bool is_open = strcmp(str(battle, "status"), "open") == 0;
    char title[128], foot[512], head[64];
    json_t *rows = json_array(), *result = (json_t *)get(battle, "result");
    text_buf b = {0};
    discord_embed em;
    char *text;

    snprintf(title, sizeof title, "%s battle, turn %lld: %s",
             is_civ ? "Civilization" : "Matrix", num(battle, "turn"),
             str(battle, "status"));
    if (json_is_string(get(battle, "combat_id")))
        discord_report_where(foot, sizeof foot, str(battle, "campaign_id"),
                             str(battle, "combat_id"));
    else
        snprintf(foot, sizeof foot,
                 "Battle %s \xC2\xB7 %lld actions \xC2\xB7 dice commitment %s",
                 str(battle, "id"), num(battle, "n_actions"),
                 str(get(battle, "dice"), "commitment"));
    discord_reply_embed_init(&em, title, is_civ ? 0x3a5a7a : 0x7a3a6a, foot,
                             NULL);
    if (is_civ)
        civ_text(&b, battle);
    else
        matrix_text(&b, battle);
    if (json_is_object(result) && !is_civ)
        matrix_result(&b, result);
    text = text_take(&b);
    discord_reply_embed_text(&em, text);
    free(text);
    if (json_is_string(get(battle, "note")))
        discord_reply_embed_field(&em, "Note", str(battle, "note"), false);
    if (is_open) {
        snprintf(head, sizeof head, "b:%s:%lld", str(battle, "id"),
                 num(battle, "n_actions"));
        if (is_civ)
            civ_components(rows, battle, head, air);
        else
            matrix_components(rows, battle, head);
        snprintf(foot, sizeof foot, "%s:abandon", head);
        json_array_append_new(rows, row(button("Abandon", foot, 4)));
    }
    return discord_reply_message(type, NULL, discord_reply_embed_take(&em),
                                 rows, false);
}
