/*
 * units.c: SQL for units; declared in db.h.  Prepared statements only;
 * every statement is released (db_done) at the function's single exit.
 *
 * A unit's SCS columns hold defaults (0, NULL attacks) unless it carries
 * SCS, and its reduced side's unless the counter has one: a row says no
 * more than the counter does.  A unit's Matrix quality is stored as given,
 * like its SCRUD values, and checked on reading only when it carries
 * Matrix.  In a campaign combat's snapshot, a unit is read from the units
 * kept for its campaign where they are of the version read (unit_cache.h).
 */
#include "db_conn.h"
#include "db_sql.h"
#include "matrix.h"
#include "unit_cache.h"
#include "writer_kept.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A printed attack, or NULL when there is none. */
static void bind_attack(db_stmt *st, int i, const scs_printed *p)
{
    if (p->has_attack)
        db_bind_int(st, i, p->attack);
    else
        db_bind_null(st, i);
}

/* Parameters 17-28: the SCS counter, or the defaults without one. */
static void bind_unit_scs(db_stmt *st, const db_unit *u)
{
    scs_counter k;

    memset(&k, 0, sizeof k);
    if (u->has_scs) {
        k = u->scs;
        if (!k.has_reduced)
            memset(&k.reduced, 0, sizeof k.reduced);
    }
    db_bind_int(st, 17, u->has_scs);
    bind_attack(st, 18, &k.full);
    db_bind_int(st, 19, k.full.defense);
    db_bind_int(st, 20, k.full.movement);
    db_bind_int(st, 21, k.has_reduced);
    bind_attack(st, 22, &k.reduced);
    db_bind_int(st, 23, k.reduced.defense);
    db_bind_int(st, 24, k.reduced.movement);
    db_bind_int(st, 25, k.steps);
    db_bind_int(st, 26, k.steps_lost);
    db_bind_int(st, 27, k.is_exploit);
    db_bind_int(st, 28, k.is_out_of_supply);
}

/* Parameters 4-10 and 13-30: everything but the id, name, side, campaign
 * and creation time. */
static void bind_unit_state(db_stmt *st, const db_unit *u)
{
    db_bind_int(st, 4, u->is_eliminated);
    db_bind_text_or_null(st, 5, u->eliminated_reason);
    db_bind_text_or_null(st, 6, u->eliminated_by);
    db_bind_int(st, 7, u->scrud.quality);
    db_bind_int(st, 8, u->scrud.faces);
    db_bind_int(st, 9, u->scrud.defeat_penalty);
    db_bind_int(st, 10, u->scrud.fatigue_penalty);
    db_bind_int(st, 13, u->has_scrud);
    db_bind_int(st, 14, u->has_edna);
    db_bind_int(st, 15, u->edna);
    db_bind_int(st, 16, u->edna_start);
    bind_unit_scs(st, u);
    db_bind_int(st, 29, u->has_matrix);
    db_bind_int(st, 30, u->matrix_quality);
    db_bind_int(st, 31, u->has_civ);
    db_bind_int(st, 32, (int)u->civ.cls);
    db_bind_int(st, 33, u->civ.era);
    db_bind_int(st, 34, u->civ.bonus);
    db_bind_int(st, 35, u->civ.dice_multiplier);
}

err_code db_unit_insert(db_conn *c, const db_unit *u, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO units (id, side_id, name, eliminated, "
                         "eliminated_reason, eliminated_by, scrud_quality, "
                         "scrud_faces, scrud_defeat_penalty, "
                         "scrud_fatigue_penalty, campaign_id, created_at, "
                         "has_scrud, has_edna, edna, edna_start, has_scs, "
                         "scs_attack, scs_defense, scs_movement, "
                         "scs_has_reduced, scs_r_attack, scs_r_defense, "
                         "scs_r_movement, scs_steps, scs_steps_lost, "
                         "scs_exploit, scs_out_of_supply, has_matrix, "
                         "matrix_quality, has_civ, civ_class, civ_era, "
                         "civ_bonus, civ_multiplier) "
                         "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,"
                         "?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,"
                         "?25,?26,?27,?28,?29,?30,?31,?32,?33,?34,?35)",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, u->id);
    db_bind_text(st, 2, u->side_id);
    db_bind_text(st, 3, u->name);
    bind_unit_state(st, u);
    db_bind_text(st, 11, u->campaign_id);
    db_bind_text(st, 12, u->created_at);
    rc = db_step_done(c, st, e, "insert unit");
out:
    db_done(st);
    return rc;
}

err_code db_unit_update(db_conn *c, const db_unit *u, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "UPDATE units SET side_id = ?2, name = ?3, "
                         "eliminated = ?4, eliminated_reason = ?5, "
                         "eliminated_by = ?6, scrud_quality = ?7, "
                         "scrud_faces = ?8, scrud_defeat_penalty = ?9, "
                         "scrud_fatigue_penalty = ?10, has_scrud = ?13, "
                         "has_edna = ?14, edna = ?15, edna_start = ?16, "
                         "has_scs = ?17, scs_attack = ?18, "
                         "scs_defense = ?19, scs_movement = ?20, "
                         "scs_has_reduced = ?21, scs_r_attack = ?22, "
                         "scs_r_defense = ?23, scs_r_movement = ?24, "
                         "scs_steps = ?25, scs_steps_lost = ?26, "
                         "scs_exploit = ?27, scs_out_of_supply = ?28, "
                         "has_matrix = ?29, matrix_quality = ?30, "
                         "has_civ = ?31, civ_class = ?32, civ_era = ?33, "
                         "civ_bonus = ?34, civ_multiplier = ?35 "
                         "WHERE id = ?1",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, u->id);
    db_bind_text(st, 2, u->side_id);
    db_bind_text(st, 3, u->name);
    bind_unit_state(st, u);
    if ((rc = db_step_done(c, st, e, "update unit")) == ERR_OK &&
        db_changes(c) != 1)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no unit %s", u->id);
    db_done(st);
    st = NULL;
    /* The campaign's version counted, on SQLite, unless the job has
     * already (a combat's ledger save; migration 26: PostgreSQL's trigger
     * counts it for every unit). */
    if (rc == ERR_OK && db_conn_sqlite(c) != NULL &&
        !db_keys_version_is_counted(c, u->campaign_id)) {
        if ((rc = db_prepare(c,
                             "UPDATE campaigns SET version = version + 1 "
                             "WHERE id = (SELECT campaign_id FROM units "
                             "WHERE id = ?1)",
                             &st, e)))
            goto out;
        db_bind_text(st, 1, u->id);
        if ((rc = db_step_done(c, st, e, "count the campaign's version")) ==
            ERR_OK)
            db_keys_version_counted(c, u->campaign_id, 0);
    }
out:
    db_done(st);
    return rc;
}

#define UNIT_COLUMNS                                                           \
    "u.id, u.campaign_id, u.side_id, s.name, u.name, u.created_at, "           \
    "u.eliminated, u.eliminated_reason, u.eliminated_by, u.scrud_quality, "    \
    "u.scrud_faces, u.scrud_defeat_penalty, u.scrud_fatigue_penalty, "         \
    "u.has_scrud, u.has_edna, u.edna, u.edna_start, u.has_scs, "               \
    "u.scs_attack, u.scs_defense, u.scs_movement, u.scs_has_reduced, "         \
    "u.scs_r_attack, u.scs_r_defense, u.scs_r_movement, u.scs_steps, "         \
    "u.scs_steps_lost, u.scs_exploit, u.scs_out_of_supply, u.has_matrix, "     \
    "u.matrix_quality, u.has_civ, u.civ_class, u.civ_era, u.civ_bonus, "       \
    "u.civ_multiplier, u.rowid "                                               \
    "FROM units u JOIN sides s ON s.id = u.side_id "

/* Columns col (attack: NULL for none), col+1 and col+2 of UNIT_COLUMNS. */
static void read_printed(db_stmt *st, int col, scs_printed *p)
{
    p->has_attack = db_column_type(st, col) != DB_NULL;
    p->attack = db_column_int(st, col);
    p->defense = db_column_int(st, col + 1);
    p->movement = db_column_int(st, col + 2);
}

static void read_unit(db_stmt *st, db_unit *u)
{
    memset(u, 0, sizeof *u);
    db_column_copy(st, 0, u->id, sizeof u->id);
    db_column_copy(st, 1, u->campaign_id, sizeof u->campaign_id);
    db_column_copy(st, 2, u->side_id, sizeof u->side_id);
    db_column_copy(st, 3, u->side_name, sizeof u->side_name);
    db_column_copy(st, 4, u->name, sizeof u->name);
    db_column_copy(st, 5, u->created_at, sizeof u->created_at);
    u->is_eliminated = db_column_int(st, 6) != 0;
    db_column_copy(st, 7, u->eliminated_reason, sizeof u->eliminated_reason);
    db_column_copy(st, 8, u->eliminated_by, sizeof u->eliminated_by);
    scrud_unit_default(&u->scrud);
    u->scrud.quality = db_column_int(st, 9);
    u->scrud.faces = db_column_int(st, 10);
    u->scrud.defeat_penalty = db_column_int(st, 11);
    u->scrud.fatigue_penalty = db_column_int(st, 12);
    u->scrud.is_eliminated = u->is_eliminated;
    u->has_scrud = db_column_int(st, 13) != 0;
    u->has_edna = db_column_int(st, 14) != 0;
    u->edna = db_column_int(st, 15);
    u->edna_start = db_column_int(st, 16);
    u->has_scs = db_column_int(st, 17) != 0;
    read_printed(st, 18, &u->scs.full);
    u->scs.has_reduced = db_column_int(st, 21) != 0;
    read_printed(st, 22, &u->scs.reduced);
    u->scs.steps = db_column_int(st, 25);
    u->scs.steps_lost = db_column_int(st, 26);
    u->scs.is_exploit = db_column_int(st, 27) != 0;
    u->scs.is_out_of_supply = db_column_int(st, 28) != 0;
    u->has_matrix = db_column_int(st, 29) != 0;
    u->matrix_quality = db_column_int(st, 30);
    u->has_civ = db_column_int(st, 31) != 0;
    u->civ.cls = (civ_class)db_column_int(st, 32);
    u->civ.era = db_column_int(st, 33);
    u->civ.bonus = db_column_int(st, 34);
    u->civ.dice_multiplier = db_column_int(st, 35);
    u->row = db_column_int64(st, 36);
}

/* A string as a column read leaves it (db_column_copy): cut to size,
 * zeros after it. */
static void copy_as_read(char *out, const char *s, size_t size)
{
    size_t n = strnlen(s, size - 1);

    memcpy(out, s, n);
    memset(out + n, 0, size - n);
}

/* p as bind_attack and read_printed leave it. */
static void printed_as_stored(const scs_printed *p, scs_printed *out)
{
    out->has_attack = p->has_attack;
    out->attack = p->has_attack ? p->attack : 0;
    out->defense = p->defense;
    out->movement = p->movement;
}

/* What read_unit reads back of a row written from u (bind_unit_state,
 * bind_unit_scs): field for field, in read_unit's order. */
void db_unit_as_stored(const db_unit *given, db_unit *out)
{
    const db_unit copy = *given, *u = &copy; /* out may be given */
    scs_counter k;

    memset(out, 0, sizeof *out);
    copy_as_read(out->id, u->id, sizeof out->id);
    copy_as_read(out->campaign_id, u->campaign_id, sizeof out->campaign_id);
    copy_as_read(out->side_id, u->side_id, sizeof out->side_id);
    copy_as_read(out->side_name, u->side_name, sizeof out->side_name);
    copy_as_read(out->name, u->name, sizeof out->name);
    copy_as_read(out->created_at, u->created_at, sizeof out->created_at);
    out->is_eliminated = u->is_eliminated;
    copy_as_read(out->eliminated_reason, u->eliminated_reason,
                 sizeof out->eliminated_reason);
    copy_as_read(out->eliminated_by, u->eliminated_by,
                 sizeof out->eliminated_by);
    scrud_unit_default(&out->scrud);
    out->scrud.quality = u->scrud.quality;
    out->scrud.faces = u->scrud.faces;
    out->scrud.defeat_penalty = u->scrud.defeat_penalty;
    out->scrud.fatigue_penalty = u->scrud.fatigue_penalty;
    out->scrud.is_eliminated = u->is_eliminated;
    out->has_scrud = u->has_scrud;
    out->has_edna = u->has_edna;
    out->edna = u->edna;
    out->edna_start = u->edna_start;
    out->has_scs = u->has_scs;
    memset(&k, 0, sizeof k);
    if (u->has_scs) {
        k = u->scs;
        if (!k.has_reduced)
            memset(&k.reduced, 0, sizeof k.reduced);
    }
    printed_as_stored(&k.full, &out->scs.full);
    out->scs.has_reduced = k.has_reduced;
    printed_as_stored(&k.reduced, &out->scs.reduced);
    out->scs.steps = k.steps;
    out->scs.steps_lost = k.steps_lost;
    out->scs.is_exploit = k.is_exploit;
    out->scs.is_out_of_supply = k.is_out_of_supply;
    out->has_matrix = u->has_matrix;
    out->matrix_quality = u->matrix_quality;
    out->has_civ = u->has_civ;
    out->civ.cls = u->civ.cls;
    out->civ.era = u->civ.era;
    out->civ.bonus = u->civ.bonus;
    out->civ.dice_multiplier = u->civ.dice_multiplier;
    out->row = u->row;
}

static bool printed_is_sane(const scs_printed *p)
{
    return (!p->has_attack ||
            (p->attack >= 0 && p->attack <= SCS_MAX_PRINTED)) &&
           p->defense >= 0 && p->defense <= SCS_MAX_PRINTED &&
           p->movement >= 0 && p->movement <= SCS_MAX_PRINTED;
}

/* Rows read back are checked like any input: combats trust them.  Only
 * the systems the unit carries are checked (the others hold defaults). */
static bool unit_is_sane(const db_unit *u)
{
    const scs_counter *k = &u->scs;

    if (u->has_edna && (u->edna < 0 || u->edna > EDNA_MAX ||
                        u->edna_start < 1 || u->edna_start > EDNA_MAX))
        return false;
    if (u->has_scrud &&
        (u->scrud.faces < RNG_FACES_MIN || u->scrud.faces > RNG_FACES_MAX ||
         u->scrud.defeat_penalty < 0 || u->scrud.fatigue_penalty < 0))
        return false;
    if (u->has_scs &&
        (k->steps < 1 || k->steps > SCS_MAX_STEPS || k->steps_lost < 0 ||
         k->steps_lost > k->steps || !printed_is_sane(&k->full) ||
         (k->has_reduced && !printed_is_sane(&k->reduced))))
        return false;
    if (u->has_matrix && (u->matrix_quality < -MATRIX_QUALITY_MAX ||
                          u->matrix_quality > MATRIX_QUALITY_MAX))
        return false;
    if (u->has_civ &&
        ((int)u->civ.cls < 0 || u->civ.cls > CIV_OTHER || u->civ.era < 1 ||
         u->civ.era > CIV_MAX_ERA || u->civ.bonus < -CIV_BONUS_MAX ||
         u->civ.bonus > CIV_BONUS_MAX || u->civ.dice_multiplier < 1 ||
         u->civ.dice_multiplier > CIV_MULTIPLIER_MAX))
        return false;
    return true;
}

/*
 * A unit by id or, failing that, by name, in one statement without a
 * sort: each scalar subquery is a probe of a unique index (the primary
 * key, then (campaign_id, name)), coalesce stops at the first that finds
 * a row, and its rowid is the row read.  ("id = ?2 OR name = ?2 ORDER BY
 * id = ?2 DESC LIMIT 1" sorted its candidates through a temporary b-tree
 * on every call.)
 */
/* A unit read, and whether it is one the service could have written. */
static bool read_found_unit(db_stmt *st, void *out)
{
    read_unit(st, out);
    return unit_is_sane(out);
}

/* The units read together (db_units_prefetch): the refs asked for
 * (copies, in one block) and the rows they found, at most two a ref (one
 * by its id, one by its name). */
typedef struct unit_prefetch {
    char campaign_id[DB_ID_MAX];
    char **refs;
    size_t n_refs;
    db_unit *units;
    size_t n_units;
} unit_prefetch;

/* ref of campaign_id as the units read together give it, as db_unit_find
 * would (its id first, then its name), into *out with *rc: false where
 * they were not read for it. */
static bool prefetched(const db_conn *c, const char *campaign_id,
                       const char *ref, db_unit *out, err_code *rc, err_info *e)
{
    const unit_prefetch *p = c->prefetch;
    const db_unit *by_name = NULL, *u = NULL;
    size_t i;

    if (p == NULL || strcmp(p->campaign_id, campaign_id) != 0)
        return false;
    for (i = 0; i < p->n_refs && strcmp(p->refs[i], ref) != 0; i++)
        ;
    if (i == p->n_refs)
        return false;
    for (i = 0; i < p->n_units && u == NULL; i++)
        if (strcmp(p->units[i].id, ref) == 0)
            u = &p->units[i];
        else if (by_name == NULL && strcmp(p->units[i].name, ref) == 0)
            by_name = &p->units[i];
    if (u == NULL)
        u = by_name;
    if (u == NULL)
        *rc = err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no unit \"%s\"",
                      ref);
    else if (!unit_is_sane(u))
        *rc =
            err_set(e, ERR_DB, NULL, "unit %s holds impossible values", u->id);
    else {
        *out = *u;
        *rc = ERR_OK;
    }
    return true;
}

err_code db_unit_find(db_conn *c, const char *campaign_id,
                      const char *id_or_name, db_unit *out, err_info *e)
{
    err_code rc;

    /* The unit the snapshot holds (kept, or read and kept), then as the
     * combats in flight leave it, where they do (db_snapshot_ahead):
     * they rename, add and drop no unit, so the one ref names is the
     * same.  Read: among the units read together (db_units_prefetch),
     * else alone. */
    if (db_unit_kept(c, campaign_id, id_or_name, out)) {
        db_unit_ahead(c, campaign_id, out);
        return ERR_OK;
    }
    memset(out, 0, sizeof *out);
    if (!prefetched(c, campaign_id, id_or_name, out, &rc, e))
        rc = db_find_one(c,
                         "SELECT " UNIT_COLUMNS "WHERE u.rowid = coalesce("
                         "(SELECT rowid FROM units "
                         "WHERE id = ?2 AND campaign_id = ?1), "
                         "(SELECT rowid FROM units "
                         "WHERE campaign_id = ?1 AND name = ?2))",
                         campaign_id, id_or_name, read_found_unit, out, "unit",
                         e);
    if (rc == ERR_OK) {
        db_unit_keep(c, out);
        db_unit_ahead(c, campaign_id, out);
    }
    return rc;
}

/* Refs a statement of db_units_prefetch reads (with the campaign, its
 * parameters: under PG_PARAMS_MAX). */
enum { PREFETCH_REFS = PG_PARAMS_MAX - 1 };

/* The rows the n refs (1..PREFETCH_REFS) of campaign_id find, added to
 * p's (room for 2 n more). */
static err_code prefetch_some(db_conn *c, unit_prefetch *p,
                              const char *campaign_id, char *const *refs,
                              size_t n, err_info *e)
{
    char
        sql[sizeof "SELECT " UNIT_COLUMNS
                   "WHERE u.campaign_id = ?1 AND (u.id IN () OR u.name IN ())" +
            2 * PREFETCH_REFS * sizeof ",?99"];
    size_t len, k;
    db_stmt *st = NULL;
    err_code rc;
    int step;

    len = (size_t)snprintf(sql, sizeof sql,
                           "SELECT " UNIT_COLUMNS
                           "WHERE u.campaign_id = ?1 AND (u.id IN (");
    for (k = 0; k < 2 * n; k++) {
        if (k == n)
            len += (size_t)snprintf(sql + len, sizeof sql - len,
                                    ") OR u.name IN (");
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s?%zu",
                                k % n > 0 ? "," : "", 2 + k % n);
    }
    snprintf(sql + len, sizeof sql - len, "))");
    if ((rc = db_prepare(c, sql, &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    for (k = 0; k < n; k++)
        db_bind_text(st, 2 + (int)k, refs[k]);
    while ((step = db_step(st)) == DB_ROW) {
        if (p->n_units == 2 * p->n_refs) { /* cannot be: two rows a ref */
            rc = err_set(e, ERR_DB, NULL, "more units than asked for");
            break;
        }
        read_unit(st, &p->units[p->n_units++]);
    }
    if (rc == ERR_OK && step != DB_DONE)
        rc = db_fail(c, e, "read units");
    db_done(st);
    return rc;
}

err_code db_units_prefetch(db_conn *c, const char *campaign_id,
                           const char *const *refs, size_t n, err_info *e)
{
    unit_prefetch *p;
    size_t i, size = 0;
    err_code rc = ERR_OK;
    char *at;

    db_units_prefetch_end(c);
    if (c->kind != DB_KIND_PG || n == 0)
        return ERR_OK;
    for (i = 0; i < n; i++)
        size += strlen(refs[i]) + 1;
    if ((p = calloc(1, sizeof *p)) == NULL ||
        (p->refs = malloc(n * sizeof *p->refs + size)) == NULL ||
        (p->units = malloc(2 * n * sizeof *p->units)) == NULL) {
        if (p != NULL)
            free(p->refs);
        free(p);
        return ERR_OK; /* found one at a time: nothing was read */
    }
    snprintf(p->campaign_id, sizeof p->campaign_id, "%s", campaign_id);
    at = (char *)(p->refs + n);
    for (i = 0; i < n; i++) {
        size_t len = strlen(refs[i]) + 1;
        p->refs[i] = memcpy(at, refs[i], len);
        at += len;
    }
    p->n_refs = n;
    for (i = 0; i < n && rc == ERR_OK; i += PREFETCH_REFS)
        rc = prefetch_some(c, p, campaign_id, p->refs + i,
                           n - i < PREFETCH_REFS ? n - i : PREFETCH_REFS, e);
    if (rc != ERR_OK) {
        /* A failed statement ends PostgreSQL's transaction: the finds
         * could not read either. */
        free(p->units);
        free(p->refs);
        free(p);
        return rc;
    }
    c->prefetch = p;
    return ERR_OK;
}

void db_units_prefetch_end(db_conn *c)
{
    unit_prefetch *p = c->prefetch;

    if (p == NULL)
        return;
    free(p->units);
    free(p->refs);
    free(p);
    c->prefetch = NULL;
}

static void read_unit_row(db_stmt *st, void *elem)
{
    read_unit(st, elem);
}

/* The systems a unit filter can name, and the column that says a unit
 * carries it. */
static const char *const unit_system_cols[][2] = {
    {"scrud", " AND u.has_scrud <> 0"},
    {"edna", " AND u.has_edna <> 0"},
    {"scs", " AND u.has_scs <> 0"},
    {"matrix", " AND u.has_matrix <> 0"},
    {"civ", " AND u.has_civ <> 0"}};

/*
 * The SQL of a list of units into buf: one statement per filter shape (an
 * optional filter is a clause or none, never "?N IS NULL OR ..." which
 * defeats the index: PERF.md).  Parameters: ?1 the campaign, ?2 the side,
 * ?3 eliminated, ?4 the cursor's rowid, ?5 the limit.  With a side, the
 * side's index units_by_side (side_id, then rowid) is a range in the
 * list's order, and the campaign is only checked (+, not an index term).
 * Without, the campaign's index units_by_campaign (campaign_id, then
 * rowid: migration 11) is one likewise, from the cursor on, with no sort
 * (the unique (campaign_id, name) index holds them in name order).
 */
static void units_sql(char *buf, size_t size, const db_unit_filter *f,
                      const db_page *pg)
{
    const char *sys = "";
    size_t i;

    if (f && f->system) {
        sys = " AND 1 = 0"; /* a system no unit carries */
        for (i = 0; i < sizeof unit_system_cols / sizeof *unit_system_cols; i++)
            if (strcmp(f->system, unit_system_cols[i][0]) == 0)
                sys = unit_system_cols[i][1];
    }
    snprintf(buf, size, "SELECT " UNIT_COLUMNS "WHERE %s%s%s%s%s%s%s",
             f && f->side_id ? "u.side_id = ?2 AND +u.campaign_id = ?1"
                             : "u.campaign_id = ?1",
             f && f->eliminated >= 0 ? " AND u.eliminated = ?3" : "", sys,
             !f || f->ineffective < 0 ? ""
             : f->ineffective         ? " AND u.has_edna <> 0 AND u.edna = 0"
                                      : " AND u.has_edna <> 0 AND u.edna <> 0",
             !pg || !pg->after     ? ""
             : pg->is_newest_first ? " AND u.rowid < ?4"
                                   : " AND u.rowid > ?4",
             pg && pg->is_newest_first ? " ORDER BY u.rowid DESC"
                                       : " ORDER BY u.rowid",
             pg ? " LIMIT ?5" : "");
}

/* The units of f (NULL: all) in creation order, or a page of them. */
static err_code units_query(db_conn *c, const char *campaign_id,
                            const db_unit_filter *f, const db_page *pg,
                            db_unit **out, size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    long long after = 0;
    char sql[1536];
    void *rows;
    err_code rc;

    *out = NULL;
    *n = 0;
    if (pg && pg->after &&
        (rc = db_cursor_rowid(c,
                              "SELECT rowid FROM units "
                              "WHERE id = ?1 AND campaign_id = ?2",
                              campaign_id, pg->after, &after, e)))
        return rc;
    units_sql(sql, sizeof sql, f, pg);
    if ((rc = db_prepare(c, sql, &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    if (f && f->side_id)
        db_bind_text(st, 2, f->side_id);
    if (f && f->eliminated >= 0)
        db_bind_int(st, 3, f->eliminated);
    if (pg && pg->after)
        db_bind_int64(st, 4, after);
    if (pg)
        db_bind_int(st, 5, pg->limit);
    rc = db_read_rows(c, st, sizeof **out, read_unit_row, NULL, &rows, n,
                      "list units", e);
    *out = rows;
    return rc;
}

err_code db_units_list(db_conn *c, const char *campaign_id,
                       const db_unit_filter *f, db_unit **out, size_t *n,
                       err_info *e)
{
    return units_query(c, campaign_id, f, NULL, out, n, e);
}

err_code db_units_page(db_conn *c, const char *campaign_id,
                       const db_unit_filter *f, const db_page *pg,
                       db_unit **out, size_t *n, err_info *e)
{
    return units_query(c, campaign_id, f, pg, out, n, e);
}

err_code db_units_count(db_conn *c, const char *campaign_id, int *n,
                        err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    *n = 0;
    if ((rc = db_prepare(c, "SELECT count(*) FROM units WHERE campaign_id = ?",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, campaign_id);
    if (db_step(st) == DB_ROW)
        *n = db_column_int(st, 0);
    else
        rc = db_fail(c, e, "count units");
out:
    db_done(st);
    return rc;
}
