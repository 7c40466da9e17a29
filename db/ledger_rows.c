/*
 * ledger_rows.c: the campaign ledger's entries read back in SQL
 * (docs/ledger.md): every entry of a campaign at once (db_ledger_rows),
 * a row of the entries' query made entries (ledger_rows.h), and the rolls
 * left outside the chain (db_ledger_unchained); declared in db.h.  The
 * export's cursor, read as it is sent, is ledger_cursor.c's; the chain's
 * head and its writes are ledger.c's.
 */
#include "db_sql.h"
#include "ledger_rows.h"

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* A stored dice list into a new array *out (NULL for none): the count,
 * or -1 when it cannot be read (or memory is short: the entry then fails
 * its check, which is reported, rather than passing unchecked). */
static int read_naturals(const char *text, int **out)
{
    size_t cap = 1;
    const char *p;
    int n;

    for (p = text; *p; p++)
        cap += *p == ',';
    if (cap > LEDGER_MAX_NATURALS)
        return -1;
    if ((*out = malloc(cap * sizeof **out)) == NULL)
        return -1;
    n = ledger_parse_naturals(text, *out, cap);
    return n;
}

void db_ledger_read_row(db_stmt *st, void *elem)
{
    db_ledger_row *r = elem;
    const char *naturals;

    r->kind = db_column_int(st, 0) ? LEDGER_ACTION : LEDGER_ROLL;
    r->pos = db_column_int64(st, 1);
    db_column_copy(st, 2, r->at, sizeof r->at);
    db_column_copy(st, 3, r->record_id, sizeof r->record_id);
    r->seq = db_column_int(st, 4);
    db_column_copy(st, 5, r->side, sizeof r->side);
    db_column_copy(st, 6, r->unit_id, sizeof r->unit_id);
    db_column_copy(st, 7, r->unit, sizeof r->unit);
    db_column_copy(st, 8, r->reason, sizeof r->reason);
    r->faces = db_column_int(st, 9);
    r->natural = db_column_int(st, 10);
    r->modified = db_column_int(st, 11);
    db_column_copy(st, 12, r->action, sizeof r->action);
    naturals = (const char *)db_column_text(st, 13);
    r->n_naturals = naturals ? read_naturals(naturals, &r->naturals) : 0;
    r->detail = db_column_dup(st, 14);
    db_column_copy(st, 15, r->source, sizeof r->source);
    db_column_copy(st, 16, r->rng, sizeof r->rng);
    db_column_copy(st, 17, r->commitment, sizeof r->commitment);
    r->client_seed = db_column_dup(st, 18);
    db_column_copy(st, 19, r->prev_hash, sizeof r->prev_hash);
    db_column_copy(st, 20, r->hash, sizeof r->hash);
}

/* A roll stored without its previous hash (insert_rolls stores none
 * where it is the hash of the roll before in its combat) takes it from
 * the entry before it, when that one is that roll: the same combat, the
 * seq and the place before.  Otherwise it stays without, and the entry
 * does not link (ledger_check says so). */
void db_ledger_prev_from(db_ledger_row *r, const db_ledger_row *before)
{
    if (r->kind == LEDGER_ROLL && r->prev_hash[0] == '\0' && before != NULL &&
        before->kind == LEDGER_ROLL && before->pos == r->pos - 1 &&
        before->seq == r->seq - 1 &&
        strcmp(before->record_id, r->record_id) == 0)
        memcpy(r->prev_hash, before->hash, sizeof r->prev_hash);
}

void db_ledger_release_rows(void *rows, size_t n)
{
    db_ledger_row *r = rows;
    size_t i;

    for (i = 0; i < n; i++) {
        free(r[i].naturals);
        free(r[i].detail);
        free(r[i].client_seed);
    }
}

/* A new entry, zeroed, at the end of *rows (*n of *cap); NULL when out
 * of memory. */
static db_ledger_row *new_row(db_ledger_row **rows, size_t *n, size_t *cap)
{
    db_ledger_row *row;

    if (*n == *cap) {
        size_t want = *cap ? *cap * 2 : 64;
        db_ledger_row *more = realloc(*rows, want * sizeof *more);
        if (more == NULL)
            return NULL;
        *rows = more;
        *cap = want;
    }
    row = &(*rows)[(*n)++];
    memset(row, 0, sizeof *row);
    return row;
}

/* A new entry read from LEDGER_ROWS_SQL's row at st (db_ledger_read_row);
 * NULL when out of memory. */
static db_ledger_row *append_row(db_stmt *st, db_ledger_row **rows, size_t *n,
                                 size_t *cap)
{
    db_ledger_row *row = new_row(rows, n, cap);

    if (row != NULL)
        db_ledger_read_row(st, row);
    return row;
}

/* The entries of LEDGER_ROWS_SQL's row at st appended to *rows (*n of
 * *cap): the row itself, or (kind 2) each roll packed in it, with the
 * combat's time, id and dice (read from st for the first, copied from
 * the first for the others).  Packed rolls that do not read are one
 * entry at their first place with no hash: it fails its check, which is
 * reported, rather than leaving a gap.  (A value of an older layout too
 * large to inflate in the memory left reads the same way: its text is
 * NULL either way; a second verify tells.) */
err_code db_ledger_read_entries(db_stmt *st, db_ledger_row **rows, size_t *n,
                                size_t *cap, err_info *e)
{
    db_roll *rolls = NULL;
    size_t n_rolls = 0, i, first;
    db_ledger_row *row;
    err_code rc;

    if (db_column_int(st, 0) != 2)
        return append_row(st, rows, n, cap)
                   ? ERR_OK
                   : err_set(e, ERR_NOMEM, NULL, "out of memory");
    rc = db_column_rolls_read(st, 21, db_column_int64(st, 1), NULL, &rolls,
                              &n_rolls, e);
    if (rc == ERR_NOMEM)
        return rc;
    if (rc != ERR_OK || n_rolls == 0) {
        err_clear(e);
        free(rolls);
        if ((row = append_row(st, rows, n, cap)) == NULL)
            return err_set(e, ERR_NOMEM, NULL, "out of memory");
        row->kind = LEDGER_ROLL;
        return ERR_OK;
    }
    first = *n;
    for (i = 0; i < n_rolls; i++) {
        const db_roll *r = &rolls[i];
        row = i == 0 ? append_row(st, rows, n, cap) : new_row(rows, n, cap);
        if (row != NULL && i > 0) {
            const db_ledger_row *f = &(*rows)[first];
            *row = *f; /* no naturals or detail: a roll's */
            row->client_seed = NULL;
            if (f->client_seed != NULL &&
                (row->client_seed = strdup(f->client_seed)) == NULL)
                row = NULL;
        }
        if (row == NULL) {
            free(rolls);
            return err_set(e, ERR_NOMEM, NULL, "out of memory");
        }
        row->kind = LEDGER_ROLL;
        row->pos = r->ledger_pos;
        row->seq = r->seq;
        memcpy(row->side, r->side_name, sizeof row->side);
        memcpy(row->unit_id, r->unit_id, sizeof row->unit_id);
        memcpy(row->unit, r->unit_name, sizeof row->unit);
        memcpy(row->reason, r->reason, sizeof row->reason);
        row->faces = r->faces;
        row->natural = r->natural;
        row->modified = r->modified;
        memcpy(row->source, r->source, sizeof row->source);
        memcpy(row->rng, r->rng, sizeof row->rng);
        memcpy(row->prev_hash, r->prev_hash, sizeof row->prev_hash);
        memcpy(row->hash, r->hash, sizeof row->hash);
    }
    free(rolls);
    return ERR_OK;
}

err_code db_ledger_rows(db_conn *c, const char *campaign_id,
                        db_ledger_row **out, size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    size_t cap = 0, i;
    err_code rc;
    int step = DB_DONE;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c, LEDGER_ROWS_SQL, &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_int64(st, 2, LLONG_MAX);
    db_bind_int64(st, 3, 0);
    while (rc == ERR_OK && (step = db_step(st)) == DB_ROW)
        rc = db_ledger_read_entries(st, out, n, &cap, e);
    if (rc == ERR_OK && step != DB_DONE)
        rc = db_fail(c, e, "read the ledger");
    db_done(st);
    if (rc != ERR_OK) {
        db_ledger_rows_free(*out, *n);
        *out = NULL;
        *n = 0;
        return rc;
    }
    for (i = 1; i < *n; i++)
        db_ledger_prev_from(&(*out)[i], &(*out)[i - 1]);
    return rc;
}

void db_ledger_rows_free(db_ledger_row *rows, size_t n)
{
    if (rows == NULL)
        return;
    db_ledger_release_rows(rows, n);
    free(rows);
}

void db_ledger_row_entry(const db_ledger_row *row, const char *campaign_id,
                         ledger_entry *en)
{
    memset(en, 0, sizeof *en);
    en->kind = row->kind;
    en->campaign_id = campaign_id;
    en->pos = row->pos;
    en->at = row->at;
    en->record_id = row->record_id;
    en->seq = row->seq;
    en->side = row->side;
    en->unit_id = row->unit_id;
    en->unit = row->unit;
    en->reason = row->reason;
    en->faces = row->faces;
    en->natural = row->natural;
    en->modified = row->modified;
    en->action = row->action;
    en->naturals = row->naturals;
    en->n_naturals = row->n_naturals > 0 ? (size_t)row->n_naturals : 0;
    en->detail = row->detail;
    en->source = row->source;
    en->rng = row->rng;
    en->commitment = row->commitment;
    en->client_seed = row->client_seed;
    en->prev_hash = row->prev_hash;
    en->hash = row->hash;
}

static void read_unchained(db_stmt *st, void *elem)
{
    char *out = elem;

    snprintf(out, DB_ID_MAX + 16, "%s#%d", (const char *)db_column_text(st, 0),
             db_column_int(st, 1));
}

err_code db_ledger_unchained(db_conn *c, const char *campaign_id,
                             char (**out)[DB_ID_MAX + 16], size_t *n,
                             err_info *e)
{
    db_stmt *st = NULL;
    void *rows;
    err_code rc;

    *out = NULL;
    *n = 0;
    if ((rc =
             db_prepare(c,
                        "SELECT r.combat_id, r.seq FROM rolls r JOIN "
                        "combats c ON c.id = r.combat_id WHERE "
                        "c.campaign_id = ? AND r.ledger_pos IS NULL AND "
                        "NOT EXISTS (SELECT 1 FROM battles b WHERE "
                        "b.combat_id = c.id AND b.campaign_id = c.campaign_id) "
                        "ORDER BY c.rowid, r.seq",
                        &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    rc = db_read_rows(c, st, sizeof **out, read_unchained, NULL, &rows, n,
                      "find rolls outside the ledger", e);
    *out = rows;
    return rc;
}
