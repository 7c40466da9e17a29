/*
 * scs_json.h: SCS documents in JSON (docs/rules/scs.md): combat results
 * tables (checked cell by cell, errors naming the cell), the built-in
 * example table, units' counters, campaign options and exact fractions.
 * Shared by the table routes (resources/tables.c), units
 * (resources/units.c), and SCS combats and campaign options
 * (scs_combat.c, scs_stages.c).
 */
#ifndef UMPIRE_SCS_JSON_H
#define UMPIRE_SCS_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "err.h"
#include "scs.h"

#define SCS_JSON_NAME_MAX 64  /* bytes of a table's name */
#define SCS_JSON_NOTE_MAX 500 /* bytes of a table's note */

/*
 * Checks a table document at path ("" top level, "table" inline) and reads
 * it into t.  Members: "roll" ("2d6" or "d66"), "columns" (odds headings,
 * lowest first, no repeats), "rows" (one per roll, each a result per
 * column), and optional "name" and "note".  Errors name the cell, e.g.
 * "rows.7[3]", and say its column.
 */
err_code scs_json_table_parse(const json_t *doc, const char *path, scs_table *t,
                              err_info *e);

/*
 * The table as stored and served: name, note, roll, columns and rows of
 * doc (already checked), canonical (new reference).
 */
json_t *scs_json_table_doc(const json_t *doc, const char *name);

/* The built-in tables (new reference each): a list, and one by name or
 * NULL.  Built-ins carry "builtin": true and, for examples, "example":
 * true. */
json_t *scs_json_builtin_tables(void);
json_t *scs_json_builtin_table(const char *name);

/* A table's name: 1 to SCS_JSON_NAME_MAX letters, digits, '.', '_' or '-'
 * (names go in URLs and summaries).  On failure e names field. */
bool scs_json_name_ok(const char *name, const char *field, err_info *e);

/* A positive exact fraction: a JSON integer or a string "p", "p/q" or
 * "d.ddd", numerator and denominator at most SCS_MULTIPLIER_MAX. */
err_code scs_json_frac(const json_t *v, const char *path, scs_frac *out,
                       err_info *e);

/*
 * A unit's counter from obj at path: "attack" (null: none printed),
 * "defense", "movement", "reduced" (an object of the same three, or null),
 * "steps", "steps_lost", "exploit_capable", "out_of_supply".  With
 * is_patch, members absent keep c's values; otherwise attack and defense
 * are required and steps default to 2 with a reduced side, else 1.
 * Checked with scs_counter_check.
 */
err_code scs_json_counter_parse(const json_t *obj, const char *path,
                                bool is_patch, scs_counter *c, err_info *e);
/* One printed side: {"attack" (null: none), "defense", "movement"}
 * (new reference). */
json_t *scs_json_printed_json(const scs_printed *p);
/* The counter as units show it (new reference). */
json_t *scs_json_counter_json(const scs_counter *c);

/* "out_of_supply": {"attack", "defense"} multipliers over o. */
err_code scs_json_options_parse(const json_t *obj, const char *path,
                                scs_options *o, err_info *e);
json_t *scs_json_options_json(const scs_options *o);

#endif
