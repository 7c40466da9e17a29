/*
 * systems.h: the table of systems on the server side, beside core's
 * (core/registry.c).  One entry per combat system names its stages, the
 * steps every combat goes through whatever its rules:
 *
 *   read    the request's JSON into the system's job (strictly: unknown
 *           fields are errors);
 *   check   one-off only: what needs nothing but the request (options over
 *           the defaults, entered dice against them);
 *   bind    campaign only: the campaign's options under the request's, its
 *           units (found, carrying the system, in play), its tables; on a
 *           snapshot of the campaign (pipeline_stage) or on the writer;
 *   run     the rules (core/<system>.c) with the job's dice: the combat's
 *           row, its roll log and its report;
 *   apply   campaign only: the outcome to every unit, each with its history
 *           event, through combat_unit_update and combat_unit_event, which
 *           record the writes for the writer to make, whether it runs on
 *           a snapshot (pipeline_stage) or on the writer;
 *   reset   drops what run made, so that bind, run and apply can be made
 *           again (a staged combat whose campaign changed meanwhile);
 *   replay  a stored report again through the rules, from its logged dice;
 *   facts   a combat stored as its facts (db.h): its report rendered from
 *           them (its input and the dice it drew), as run rendered it,
 *           its units' results for their history, as apply gave them,
 *           and, for replay, what differs between them and its roll log;
 *   render  the outcome's part of a report as Markdown or HTML;
 *   unit    a unit's section of the system, as served;
 *   options a campaign's options of the system: defaults, read, served;
 *   odds    the chances of the combat the request describes, without
 *           rolling, claiming a commitment or writing anything
 *           (<system>/<system>_odds.c, docs/odds.md): the same body as
 *           its combat, read and bound by the stages above (a campaign's
 *           units from a read snapshot, never the writer);
 *   fog     a stored report (or a battle) reduced for a player who may
 *           not see all of the other sides' units (fog.h), and the
 *           combat's one-line summary likewise.
 *
 * pipeline.c drives every system through these: one path for one-off
 * combats and one for campaign combats, called by every front door
 * (resources/combats.c for HTTP).  Systems fought as interactive battles
 * in a campaign (Matrix, Civilization) also name their battle's handlers,
 * which resources/battles.c dispatches to.
 *
 * Adding a system: its rules in core/ (one line in core/registry.c), its
 * folder here (systems/<system>/: <system>_json.c reads and writes its
 * JSON, <system>_stages.c its entry and stages, <system>_report.c its
 * report), one line in systems.c and its routes in http/router.c and
 * api-spec/openapi.yaml.  A unit carrying it needs a migration and its
 * fields parsed in resources/units.c (README.md, "A tour of the source").
 */
#ifndef UMPIRE_SYSTEMS_H
#define UMPIRE_SYSTEMS_H

#include <stdbool.h>

#include <jansson.h>

#include "combat.h"
#include "db.h"
#include "err.h"
#include "http.h"
#include "registry.h"

struct report_doc;
struct odds_json_req;
struct fog_pass;
struct fog_view;

/* The handlers of a system's interactive battles in a campaign (the
 * routes of resources/battles.c).  create and action take the request's
 * body (stolen). */
typedef struct systems_battle {
    void (*create)(http_request *r, json_t *body);
    void (*get)(http_request *r);
    void (*action)(http_request *r, json_t *body);
    /* The system's part of a battle's report (report/report_battle.c). */
    void (*render)(struct report_doc *d, const json_t *battle);
} systems_battle;

typedef struct systems_entry {
    const registry_system *rules; /* core's: name, title, resolve */
    /* A new job for a request with this body (it reads what it needs to
     * size the job), zeroed, its first member a combat_record; NULL with
     * e set on failure.  Freed with job_free (NULL allowed). */
    void *(*job_new)(const json_t *body, err_info *e);
    void (*job_free)(void *job);
    /* The stages (see above).  check, bind and apply may be NULL: the
     * system has nothing to do there, or, for bind, no campaign combats
     * (its campaign fights are battles). */
    err_code (*read)(void *job, const json_t *body, bool is_campaign,
                     err_info *e);
    err_code (*check)(void *job, err_info *e);
    err_code (*bind)(db_conn *c, void *job, const db_campaign *cmp,
                     err_info *e);
    err_code (*run)(void *job, err_info *e);
    err_code (*apply)(db_conn *c, void *job, err_info *e);
    /* NULL: the system's campaign combats are worked out on the writer
     * only, never staged (pipeline_stage); written there as staged ones
     * are (apply records its writes either way). */
    void (*reset)(void *job);
    combat_replay_fn replay;
    /* cb, read back with its facts (and no report): its report rendered
     * from them, the input and the dice they recorded (cb->report, new),
     * the same text run made.  NULL: the system stores its reports,
     * never facts. */
    err_code (*render_facts)(db_combat *cb, err_info *e);
    /* For replay: what differs between cb's facts and its n logged rolls
     * (the dice they recorded against the log's), each a difference
     * (combat_differ).  NULL with render_facts NULL. */
    void (*check_facts)(const db_combat *cb, const db_roll *rolls, size_t n,
                        json_t *diffs);
    /* The same combat's units' results for their history events, as run
     * and apply gave them, from its facts, into out: the facts resolved
     * and how each unit's result is rendered from them when it is asked
     * (combat_results_keep: a JSON object the JSON writer wrote), and
     * each unit that has an id (combat_results_add).  NULL with
     * render_facts NULL. */
    err_code (*results_facts)(const db_combat *cb, combat_results *out,
                              err_info *e);
    void (*render)(struct report_doc *d, const json_t *report);
    /* The system's section of a unit as served (GET .../units): new, or
     * NULL when the unit does not carry the system. */
    json_t *(*unit_json)(const db_unit *u);
    /* The system's options of a campaign (NULL all three when it has
     * none): their defaults into cmp; the "options.<system>" object of a
     * new campaign (obj, at path) over them; and as served (new). */
    void (*options_default)(db_campaign *cmp);
    err_code (*options_read)(const json_t *obj, const char *path,
                             db_campaign *cmp, err_info *e);
    json_t *(*options_json)(const db_campaign *cmp);
    const systems_battle *battle; /* NULL: no interactive battles */
    /* The odds of the request q's combat: a new answer, or NULL with e
     * set (ERR_LIMIT over the odds' limits; odds_json.h). */
    json_t *(*odds)(const struct odds_json_req *q, err_info *e);
    /* Fog of war (fog.h): the system's part of a campaign's stored
     * report, or of one of its battles as served (doc), reduced in place
     * for p's viewer with fog.h's helpers (the frame, rolls included, is
     * fog_report's); and the combat's one-line summary as the viewer may
     * read it (new; NULL: out of memory).  NULL: nothing of the system's
     * part, or of its summary, names a unit. */
    void (*fog)(struct fog_pass *p, json_t *doc);
    char *(*fog_summary)(const struct fog_view *v, const char *summary);
} systems_entry;

/* The entries, one per system, each in its folder's <system>_stages.c. */
extern const systems_entry scrud_stages;
extern const systems_entry edna_stages;
extern const systems_entry scs_stages;
extern const systems_entry matrix_stages;
extern const systems_entry civ_stages;

/* The battles of the systems that fight them in a campaign
 * (matrix_campaign.c, civ_campaign.c). */
extern const systems_battle matrix_campaign_battles;
extern const systems_battle civ_campaign_battles;

/* The table, in core's order (registry_systems). */
extern const systems_entry *const systems_table[];
extern const size_t systems_n;

/* The entry of the system called name, or NULL (static). */
const systems_entry *systems_find(const char *name);

/* The system's name (core's). */
const char *systems_name(const systems_entry *s);

#endif
