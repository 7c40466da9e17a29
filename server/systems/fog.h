/*
 * fog.h: fog of war.  A campaign may hide from each player what it has no
 * business knowing of the other sides' units (the campaign option "fog":
 * {"enabled", "others"}, migration 9).  The umpire always sees everything;
 * a player sees its own side's units in full and another side's only as
 * "others" says; a share link, which holds no side, sees every side so.
 *
 *   full    everything (as if fog were off);
 *   status  the unit's name, side, and whether it is eliminated and why;
 *   name    its name and side;
 *   hidden  nothing: absent from lists, 404 on direct reads, its history
 *           events left out, and in reports its entries removed and its
 *           name and id replaced by null wherever they are mentioned.
 *
 * Fog hides units' state and details, not the dice: a report keeps its
 * dice, scores and roll log (each die stays checkable against the
 * ledger, which fog leaves whole), with a hidden unit's name and id on its
 * rolls nulled.  A document fog reduced says so: a unit, event or report
 * entry reduced carries "fog": "<level>", a report "fog": {"side_id",
 * "others"}.
 *
 * Who is looking is a fog_view, made once per read from one snapshot
 * (fog_view_of for a request's token, fog_view_load for anyone else: a
 * share link, the events stream).  Documents are reduced by the functions
 * below, each taking the document it is given; a report's system-specific
 * part is its system's fog stage in the table of systems (systems.h),
 * which works with a fog_pass and the helpers at the end.
 *
 * Ownership: every json_t * parameter is stolen (the caller's reference
 * passes to the function, also on failure), and what is returned is new.
 */
#ifndef UMPIRE_FOG_H
#define UMPIRE_FOG_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "db.h"
#include "err.h"
#include "http.h"

/* What a viewer sees of a unit, from most to least (the order matters:
 * a filter or a field needs a level at or above it). */
typedef enum fog_level { FOG_FULL, FOG_STATUS, FOG_NAME, FOG_HIDDEN } fog_level;

/* "full", "status", "name" or "hidden" (static). */
const char *fog_level_name(fog_level l);

/* Who is looking.  Zeroed (or after fog_view_load with fog off) it sees
 * everything. */
typedef struct fog_view {
    bool is_on;                  /* false: sees everything */
    fog_level others;            /* what it sees of other sides' units */
    char side_id[DB_ID_MAX];     /* its side; "" for none (a share link) */
    char campaign_id[DB_ID_MAX]; /* the campaign looked at */
    db_side *sides;              /* the campaign's sides (owned), is_on only */
    size_t n_sides;
    db_unit_ref *units; /* its units, sorted by id (owned), is_on only */
    size_t n_units;
} fog_view;

/*
 * The view of a viewer of cmp, read in c (the caller's snapshot): the
 * umpire (is_umpire), a player of side_id, or with side_id NULL or ""
 * someone holding no side (a share link: every side fogged).  With fog on
 * (enabled, and "others" not "full") the campaign's sides and units are
 * read to place what reports mention.  *out is the caller's: release with
 * fog_view_cleanup (also after a failure).
 */
err_code fog_view_load(db_conn *c, const db_campaign *cmp, bool is_umpire,
                       const char *side_id, fog_view *out, err_info *e);

/*
 * The view of r's caller on the campaign campaign_id, from its token:
 * the umpire token sees everything (nothing is read); a player token, or
 * no token at all, reads the campaign's fog in c (ERR_NOT_FOUND: no such
 * campaign).  Release with fog_view_cleanup.
 */
err_code fog_view_of(db_conn *c, const http_request *r, const char *campaign_id,
                     fog_view *out, err_info *e);

/* Frees what v holds and leaves it seeing everything.  NULL allowed. */
void fog_view_cleanup(fog_view *v);

/* What v sees of a unit of the side side_id (an id; NULL or unknown: not
 * its own), of the side called side_name, or of the unit unit_id (placed
 * by its current side; a unit v does not know is another side's). */
fog_level fog_of_side(const fog_view *v, const char *side_id);
fog_level fog_of_side_name(const fog_view *v, const char *side_name);
fog_level fog_of_unit(const fog_view *v, const char *unit_id);

/* The side id of the unit unit_id as v knows it (borrowed), or NULL. */
const char *fog_unit_side(const fog_view *v, const char *unit_id);

/* Whether v sees the unit of side side_id at all. */
bool fog_unit_visible(const fog_view *v, const char *side_id);

/*
 * A list of units (GET .../units) must keep to one side when v cannot
 * see, on other sides' units, what it asks about: needed is the level its
 * filters need (FOG_FULL for ?system or ?ineffective, FOG_STATUS for
 * ?eliminated, FOG_NAME for none), so a filter cannot tell what a unit
 * shows.  Returns the side id to keep to (borrowed; "" for a viewer with
 * no side: no unit), or NULL for none.
 */
const char *fog_units_side(const fog_view *v, fog_level needed);

/* The answer to a direct read of a unit v may not see (ref: the unit's
 * id or name, as the path gave it): ERR_NOT_FOUND, worded as for a unit
 * that does not exist (db_unit_find), so that a 404 tells nothing. */
err_code fog_unit_not_found(err_info *e, const char *ref);

/* A unit as served (units_doc_json, or a card), reduced for v: NULL
 * (unit released) when v may not see it at all. */
json_t *fog_unit(const fog_view *v, json_t *unit);

/* A history event as served (history.c), of a unit of side side_id,
 * reduced for v: its states to what v sees, its result, note, actor and
 * rolls dropped; NULL (event released) when v may not see it. */
json_t *fog_event(const fog_view *v, json_t *event, const char *side_id);

/* A combat report (with its rolls, as GET .../combats/{id} serves it) or
 * a battle (as GET .../battles/{id} serves it), of a campaign, reduced
 * for v through its system's fog stage; a reduced combat report's
 * "summary_markdown" is the Markdown of what is left.  NULL only when
 * doc is NULL or memory runs out. */
json_t *fog_report(const fog_view *v, json_t *doc);

/* A campaign report (GET .../report) reduced for v: its units, and its
 * combats' summaries (fog_summary). */
json_t *fog_campaign_report(const fog_view *v, json_t *report);

/* A combat's one-line summary (lists, the campaign report, the events
 * stream) as v may read it: new (free()), NULL when out of memory. */
char *fog_summary(const fog_view *v, const char *system, const char *summary);

/* ---- the campaign option ---- */

/* The default: off, others "status". */
void fog_options_default(db_fog *f);
/* The "fog" object obj (its path for errors) over *f: "enabled" (a
 * boolean) and "others" (a level's name), both optional, nothing else. */
err_code fog_options_read(const json_t *obj, const char *path, db_fog *f,
                          err_info *e);
/* {"enabled", "others"} (new). */
json_t *fog_options_json(const db_fog *f);

/* ---- for the systems' fog stages (systems.h) ---- */

/* One reduction of one document. */
typedef struct fog_pass {
    const fog_view *v;
    json_t *hidden; /* the names and ids of the hidden units met (a set:
                       an object whose keys are them) */
    int n_reduced;  /* entries reduced or removed */
} fog_pass;

/*
 * Reduces the entries of arr (objects, each about one unit) for p's
 * viewer: an entry of a side v sees in full is left; one it sees at
 * "status" keeps unit, unit_id, name, side, side_id, role, eliminated and
 * eliminated_reason (those it has) and gets "fog"; at "name" the same but
 * eliminated and its reason; a hidden one is removed, its "unit", "name"
 * and "unit_id" added to p->hidden.  Each entry is placed by its own
 * "side_id", else its "side" (a side's name), else its "unit_id".
 * levels (NULL, or room for one per entry) receives each entry's level,
 * in arr's order before any removal.
 */
void fog_entries(fog_pass *p, json_t *arr, fog_level *levels);

/* As fog_entries, every entry of arr being of a side v sees at level. */
void fog_entries_at(fog_pass *p, json_t *arr, fog_level level);

/* The armies of an interactive battle's setup (Matrix, Civilization:
 * {"attacker", "defender"}, each {"name", "side_id", "units"}): each
 * army's units reduced as its side is seen (fog_entries_at). */
void fog_armies(fog_pass *p, json_t *setup);

/* Reduces one entry (an object about a unit) to what level shows, as
 * fog_entries does; false when it is hidden (the caller removes it; its
 * names are added to p->hidden). */
bool fog_entry(fog_pass *p, json_t *entry, fog_level level);

/*
 * Nulls, in tree, every mention of p's hidden units: strings in arrays,
 * and the values of the members unit, unit_id, name, first, second and
 * defeated; in objects that map units to values (the members "dice" and
 * "unit_results"), removes the hidden units' keys.
 */
void fog_scrub(fog_pass *p, json_t *tree);

#endif
