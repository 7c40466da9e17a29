/*
 * scs_fixture.c: an SCS combat built in place and resolved with entered
 * dice, the reference model of rules 8.0a-8.0c and the invariants every
 * outcome keeps; see scs_fixture.h.  The models here restate
 * docs/rules/scs.md, not core/scs.c: where they use core functions
 * (scs_frac_mul, scs_frac_cmp) those are tested on their own in
 * test_scs.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "scs_fixture.h"

const char *const scs_fixture_cols7[7] = {"1:2", "1:1", "2:1", "3:1",
                                          "4:1", "5:1", "6:1"};

void scs_fixture_table(scs_table *t, scs_roll_kind k, const char *const *cols,
                       int n_cols, const char *cell)
{
    char text[64];
    const char *why = NULL;
    int r, c;

    memset(t, 0, sizeof *t);
    t->roll = k;
    t->n_columns = n_cols;
    for (c = 0; c < n_cols; c++)
        ck_assert_msg(scs_odds_parse(cols[c], &t->columns[c]), "column %s",
                      cols[c]);
    for (r = 0; r < scs_roll_rows(k); r++)
        for (c = 0; c < n_cols; c++) {
            if (cell != NULL)
                snprintf(text, sizeof text, "%s", cell);
            else
                snprintf(text, sizeof text, "A%d D%dr%d", r / 6, r % 6, c + 1);
            ck_assert_msg(scs_result_parse(text, &t->results[r][c], &why),
                          "%s: %s", text, why);
            ck_assert_uint_lt(strlen(text), SCS_RESULT_TEXT);
            memcpy(t->text[r][c], text, strlen(text) + 1);
        }
}

scs_fixture *scs_fixture_new(const char *cell)
{
    scs_fixture *f = calloc(1, sizeof *f);

    ck_assert_ptr_nonnull(f);
    scs_fixture_table(&f->table, SCS_ROLL_2D6, scs_fixture_cols7, 7, cell);
    f->in.table = &f->table;
    f->in.units[SCS_ATTACKER] = f->units[SCS_ATTACKER];
    f->in.units[SCS_DEFENDER] = f->units[SCS_DEFENDER];
    scs_options_default(&f->in.options);
    return f;
}

void scs_fixture_free(scs_fixture *f)
{
    if (f == NULL)
        return;
    dice_cleanup(&f->d);
    free(f);
}

scs_unit *scs_fixture_unit(scs_fixture *f, int side, int attack, int defense,
                           int steps)
{
    scs_unit *u = &f->units[side][f->in.n_units[side]++];

    memset(u, 0, sizeof *u);
    u->has_attack = true;
    u->attack = attack;
    u->defense = defense;
    u->steps = steps;
    return u;
}

err_code scs_fixture_run(scs_fixture *f, int n, ...)
{
    va_list ap;
    int i;

    ck_assert_int_le(n, SCS_FIXTURE_MAX_DICE);
    va_start(ap, n);
    for (i = 0; i < n; i++)
        f->dice[i] = va_arg(ap, int);
    va_end(ap);
    dice_cleanup(&f->d);
    dice_init_values(&f->d, DICE_ENTERED, f->dice, (size_t)n);
    err_clear(&f->e);
    return scs_resolve(&f->in, &f->d, &f->out, &f->e);
}

int scs_fixture_losses(const scs_outcome *out, int side, int cause)
{
    size_t i;
    int n = 0;

    for (i = 0; i < out->n_losses; i++)
        if (out->losses[i].side == side &&
            (cause < 0 || (int)out->losses[i].cause == cause))
            n++;
    return n;
}

int scs_fixture_loss_unit(const scs_outcome *out, int side, int cause, int k)
{
    size_t i;

    for (i = 0; i < out->n_losses; i++)
        if (out->losses[i].side == side &&
            (cause < 0 || (int)out->losses[i].cause == cause) && k-- == 0)
            return out->losses[i].unit;
    return -1;
}

/* 8.0a: the printed value that makes a unit its side's strongest. */
static int ref_strength(const scs_unit *u, int side)
{
    return side == SCS_ATTACKER ? u->attack : u->defense;
}

int scs_fixture_ref_first_bad(const scs_unit *units, size_t n_units, int side,
                              const int *seq, int n_seq)
{
    int lost[SCS_MAX_UNITS] = {0};
    int best = -1, k;
    size_t u;

    for (u = 0; u < n_units; u++)
        if (ref_strength(&units[u], side) > best)
            best = ref_strength(&units[u], side);
    for (k = 0; k < n_seq; k++) {
        int p = seq[k];
        if (p < 0 || (size_t)p >= n_units)
            return k;
        if (units[p].steps - units[p].steps_lost - lost[p] <= 0)
            return k; /* 8.0c: only steps it has */
        if (k == 0 && ref_strength(&units[p], side) != best)
            return k; /* 8.0a */
        for (u = 0; lost[p] >= 1 && u < n_units; u++)
            if (lost[u] == 0)
                return k; /* 8.0b */
        lost[p]++;
    }
    return -1;
}

/* Step 1 restated: printed value x multipliers x the out-of-supply one. */
static scs_frac ref_value(const scs_input *in, int s, size_t i)
{
    const scs_unit *u = &in->units[s][i];
    scs_frac v = scs_frac_int(s == SCS_ATTACKER ? u->attack : u->defense);
    int k;

    for (k = 0; k < u->n_multipliers; k++)
        ck_assert(scs_frac_mul(v, u->multipliers[k], &v));
    if (u->is_out_of_supply)
        ck_assert(scs_frac_mul(v,
                               s == SCS_ATTACKER
                                   ? in->options.out_of_supply_attack
                                   : in->options.out_of_supply_defense,
                               &v));
    return v;
}

/* Step 2 restated: both over the smaller, rounded half up. */
static scs_odds ref_odds(scs_frac a, scs_frac d)
{
    scs_odds o = {1, 0};
    bool is_a = scs_frac_cmp(a, d) >= 0;
    scs_frac big = is_a ? a : d, small = is_a ? d : a;
    __int128 n = (__int128)big.num * small.den;
    __int128 m = (__int128)big.den * small.num;
    int q;

    if (d.num == 0)
        return o;
    q = (int)((2 * n + m) / (2 * m));
    o.attack = is_a ? q : 1;
    o.defense = is_a ? 1 : q;
    return o;
}

/* Step 3 restated: the column found, and after the shift. */
static int ref_column(const scs_table *t, scs_odds o, int shift, int *found)
{
    int i, col = -1;

    for (i = 0; i < t->n_columns; i++)
        if (o.defense == 0 || (long long)t->columns[i].attack * o.defense <=
                                  (long long)o.attack * t->columns[i].defense)
            col = i;
    *found = col;
    if (col < 0)
        return -1;
    col += shift;
    if (col >= t->n_columns)
        col = t->n_columns - 1;
    return col < 0 ? -1 : col;
}

/* The default pick (step 6): fewest losses this combat, then the
 * strongest, ties by the order listed. */
static int ref_default(const scs_input *in, int s, const int *lost)
{
    int best = -1;
    size_t u;

    for (u = 0; u < in->n_units[s]; u++) {
        const scs_unit *x = &in->units[s][u];
        if (x->steps - x->steps_lost - lost[u] <= 0)
            continue;
        if (best < 0 || lost[u] < lost[best] ||
            (lost[u] == lost[best] &&
             ref_strength(x, s) > ref_strength(&in->units[s][best], s)))
            best = (int)u;
    }
    return best;
}

static int min_i(int a, int b)
{
    return a < b ? a : b;
}

static void check_totals(const scs_input *in, const scs_outcome *out)
{
    scs_frac t[2];
    scs_odds o;
    int s, found, col;
    size_t u;

    for (s = 0; s < 2; s++) {
        t[s] = scs_frac_int(0);
        for (u = 0; u < in->n_units[s]; u++) {
            scs_frac v = ref_value(in, s, u);
            ck_assert_int_eq(scs_frac_cmp(out->units[s][u].value, v), 0);
            ck_assert(scs_frac_add(t[s], v, &t[s]));
        }
        ck_assert_int_eq(scs_frac_cmp(out->sides[s].total, t[s]), 0);
    }
    o = ref_odds(t[0], t[1]);
    ck_assert_int_eq(out->odds.attack, o.attack);
    ck_assert_int_eq(out->odds.defense, o.defense);
    /* The odds never favour the side with the smaller total. */
    if (t[1].num == 0)
        ck_assert(out->odds.attack == 1 && out->odds.defense == 0);
    else if (scs_frac_cmp(t[0], t[1]) < 0)
        ck_assert(out->odds.attack == 1 && out->odds.defense >= 1);
    else if (scs_frac_cmp(t[0], t[1]) > 0)
        ck_assert(out->odds.defense == 1 && out->odds.attack >= 1);
    else
        ck_assert(out->odds.attack == 1 && out->odds.defense == 1);
    col = ref_column(in->table, o, in->column_shift, &found);
    ck_assert_int_eq(out->column_found, found);
    ck_assert_int_eq(out->column, col);
    ck_assert(out->is_off_table == (col < 0));
}

/* Step 5: no die off the table, else two logged dice and the cell. */
static void check_roll(const scs_input *in, const dice_source *d,
                       const scs_outcome *out)
{
    const scs_table *t = in->table;
    scs_result none;
    int k, row;

    memset(&none, 0, sizeof none);
    if (out->is_off_table) {
        ck_assert_uint_eq(d->n_log, 0);
        ck_assert_int_eq(out->roll, 0);
        ck_assert_mem_eq(&out->result, &none, sizeof none);
        return;
    }
    ck_assert_uint_eq(d->n_log, 2);
    ck_assert_uint_eq(out->first_roll, 0);
    for (k = 0; k < 2; k++) {
        ck_assert_int_eq(d->log[k].faces, 6);
        ck_assert_int_eq(d->log[k].side, SCS_ATTACKER);
        ck_assert_int_eq(d->log[k].unit, -1);
        ck_assert_str_eq(d->log[k].reason, "scs.crt");
    }
    ck_assert_int_eq(out->roll, t->roll == SCS_ROLL_D66
                                    ? 10 * d->log[0].natural + d->log[1].natural
                                    : d->log[0].natural + d->log[1].natural);
    row = scs_roll_row(t->roll, out->roll);
    ck_assert_int_ge(row, 0);
    ck_assert_mem_eq(&out->result, &t->results[row][out->column],
                     sizeof out->result);
}

/* Each loss: by the orders where they name a unit that can take it, else
 * by the default; the table's losses under 8.0a-8.0c. */
static void check_loss_units(const scs_input *in, const scs_outcome *out, int s)
{
    const scs_orders *o = &in->orders[s];
    int lost[SCS_MAX_UNITS] = {0}, seq[SCS_MAX_UNITS * SCS_MAX_STEPS];
    int n_seq = 0, n_extra = 0;
    size_t i;

    for (i = 0; i < out->n_losses; i++) {
        const scs_loss *l = &out->losses[i];
        bool is_table =
            l->cause == SCS_LOSS_TABLE || l->cause == SCS_LOSS_OFF_TABLE;
        int want = -1;
        if (l->side != s)
            continue;
        ck_assert_int_ge(l->unit, 0);
        ck_assert_int_lt(l->unit, (int)in->n_units[s]);
        if (is_table) {
            ck_assert_int_eq(n_extra, 0); /* the table's steps first */
            if (n_seq < o->n_allocation)
                want = o->allocation[n_seq];
            seq[n_seq++] = l->unit;
        } else {
            int k = n_extra++;
            if (k < o->n_extra_units) {
                const scs_unit *x = &in->units[s][o->extra_units[k]];
                if (x->steps - x->steps_lost - lost[o->extra_units[k]] > 0)
                    want = o->extra_units[k];
            }
        }
        ck_assert(l->is_ordered == (want >= 0));
        ck_assert_int_eq(l->unit, want >= 0 ? want : ref_default(in, s, lost));
        lost[l->unit]++;
    }
    ck_assert_int_eq(
        scs_fixture_ref_first_bad(in->units[s], in->n_units[s], s, seq, n_seq),
        -1);
}

/* Steps 6 and 7 for side s: the losses counted three ways, and the caps
 * on conversion, blocked and EZOC hexes. */
static void check_side(const scs_input *in, const scs_outcome *out, int s)
{
    const scs_side_result *r = &out->sides[s];
    const scs_orders *o = &in->orders[s];
    scs_effect want =
        s == SCS_DEFENDER ? out->result.defender : out->result.attacker;
    int cap = 0, n_lost = 0, conv = 0, blocked = 0, ezoc = 0, n_table;
    size_t u;

    if (out->is_off_table) {
        want.steps = s == SCS_ATTACKER ? 1 : 0;
        want.retreat = 0;
    }
    ck_assert_mem_eq(&r->effect, &want, sizeof want);
    for (u = 0; u < in->n_units[s]; u++) {
        const scs_unit *x = &in->units[s][u];
        const scs_unit_result *ur = &out->units[s][u];
        int n = 0;
        size_t i;
        for (i = 0; i < out->n_losses; i++)
            n += out->losses[i].side == s && out->losses[i].unit == (int)u;
        ck_assert_int_eq(ur->lost, n);
        ck_assert_int_eq(ur->steps_lost, x->steps_lost + n);
        ck_assert_int_le(ur->steps_lost, x->steps);
        ck_assert(ur->is_eliminated == (ur->steps_lost == x->steps));
        cap += x->steps - x->steps_lost;
        n_lost += n;
    }
    n_table = min_i(want.steps, cap);
    if (want.retreat > 0 && cap > want.steps) {
        conv = min_i(o->convert, want.retreat);
        /* a side that the conversion eliminated retreats no hex */
        if (cap > want.steps + conv) {
            blocked = min_i(o->blocked_hexes, want.retreat - conv);
            ezoc = min_i(o->ezoc_hexes, want.retreat - conv - blocked);
        }
    }
    ck_assert_int_eq(r->converted, conv);
    ck_assert_int_eq(r->blocked_hexes, blocked);
    ck_assert_int_eq(r->ezoc_hexes, ezoc);
    ck_assert_int_le(n_lost, cap);
    ck_assert_int_eq(n_lost + r->steps_ignored,
                     want.steps + conv + blocked + ezoc);
    ck_assert_int_eq(n_lost, min_i(cap, want.steps + conv + blocked + ezoc));
    ck_assert_int_eq(scs_fixture_losses(out, s, SCS_LOSS_TABLE) +
                         scs_fixture_losses(out, s, SCS_LOSS_OFF_TABLE),
                     n_table);
    ck_assert_int_eq(scs_fixture_losses(out, s, SCS_LOSS_CONVERSION),
                     min_i(conv, cap - n_table));
    ck_assert(r->is_eliminated == (n_lost == cap));
    ck_assert_int_eq(r->retreat_hexes, r->is_eliminated || want.retreat == 0
                                           ? 0
                                           : want.retreat - conv - blocked);
    check_loss_units(in, out, s);
}

/* Step 8: the advance after combat, attackers only. */
static void check_advance(const scs_input *in, const scs_outcome *out)
{
    const scs_side_result *a = &out->sides[SCS_ATTACKER];
    const scs_side_result *d = &out->sides[SCS_DEFENDER];
    bool is_vacated = d->is_eliminated || d->retreat_hexes > 0;
    bool is_allowed = is_vacated && !a->is_eliminated && a->retreat_hexes == 0;
    int exploit = d->effect.retreat > 1 ? d->effect.retreat : 1;
    size_t u;

    ck_assert(out->is_vacated == is_vacated);
    ck_assert(out->is_advance_allowed == is_allowed);
    ck_assert(out->is_advance_required == (is_allowed && in->is_overrun));
    ck_assert_int_eq(out->advance_hexes, is_allowed ? 1 : 0);
    ck_assert_int_eq(out->exploit_hexes, is_allowed ? exploit : 0);
    for (u = 0; u < in->n_units[SCS_ATTACKER]; u++) {
        const scs_unit_result *r = &out->units[SCS_ATTACKER][u];
        int want = in->units[SCS_ATTACKER][u].is_exploit ? exploit : 1;
        ck_assert_int_eq(r->advance,
                         is_allowed && !r->is_eliminated ? want : 0);
    }
    for (u = 0; u < in->n_units[SCS_DEFENDER]; u++)
        ck_assert_int_eq(out->units[SCS_DEFENDER][u].advance, 0);
}

void scs_fixture_check(const scs_input *in, const dice_source *d,
                       const scs_outcome *out)
{
    size_t i;
    bool seen_attacker = false;

    check_totals(in, out);
    check_roll(in, d, out);
    for (i = 0; i < out->n_losses; i++) {
        /* The defender's result is applied first. */
        if (out->losses[i].side == SCS_ATTACKER)
            seen_attacker = true;
        else
            ck_assert(!seen_attacker);
    }
    check_side(in, out, SCS_DEFENDER);
    check_side(in, out, SCS_ATTACKER);
    check_advance(in, out);
}

/* ---- random combats ---- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int pick(uint64_t *x, int lo, int hi)
{
    return lo + (int)(splitmix64(x) % (uint64_t)(hi - lo + 1));
}

/* One side's effect text, "" for none: "A", "D2", "Ar1", "D1r3"... */
static void random_effect(uint64_t *x, char side, char *buf, size_t len)
{
    int steps = pick(x, -1, 4), retreat = pick(x, -1, 3);

    buf[0] = '\0';
    if (pick(x, 0, 2) == 0)
        return;
    snprintf(buf, len, "%c", side);
    if (steps >= 0)
        snprintf(buf + 1, len - 1, "%d", steps);
    if (retreat > 0)
        snprintf(buf + strlen(buf), len - strlen(buf), "r%d", retreat);
}

static void random_table(scs_table *t, uint64_t *x)
{
    static const char *const cand[] = {"1:4", "1:3", "1:2", "1:1", "2:1",
                                       "3:1", "4:1", "5:1", "6:1", "8:1"};
    const char *cols[10];
    char a[12], d[12], text[SCS_RESULT_TEXT];
    int n = 0, r, c;
    size_t i;

    for (i = 0; i < 10; i++)
        if (pick(x, 0, 1))
            cols[n++] = cand[i];
    if (n == 0)
        cols[n++] = cand[pick(x, 0, 9)];
    scs_fixture_table(t, pick(x, 0, 2) ? SCS_ROLL_2D6 : SCS_ROLL_D66, cols, n,
                      "-");
    for (r = 0; r < scs_roll_rows(t->roll); r++)
        for (c = 0; c < n; c++) {
            random_effect(x, 'D', d, sizeof d);
            random_effect(x, 'A', a, sizeof a);
            snprintf(text, sizeof text, "%s%s%s", d,
                     *a && *d ? (pick(x, 0, 1) ? " " : "/") : "", a);
            if (!*text)
                strcpy(text, "-");
            ck_assert_msg(scs_result_parse(text, &t->results[r][c], NULL), "%s",
                          text);
            memcpy(t->text[r][c], text, sizeof text);
        }
}

/* An allocation that keeps 8.0a-8.0c (and spreads steps evenly, which
 * core/scs.c also requires; see test_scs.c). */
static void random_allocation(scs_fixture *f, int s, uint64_t *x)
{
    scs_orders *o = &f->in.orders[s];
    int lost[SCS_MAX_UNITS] = {0}, n = pick(x, 0, 5), k, u, n_ok, min;
    int ok[SCS_MAX_UNITS];

    for (k = 0; k < n; k++) {
        min = INT32_MAX;
        for (u = 0; u < (int)f->in.n_units[s]; u++)
            if (f->units[s][u].steps - f->units[s][u].steps_lost - lost[u] >
                    0 &&
                lost[u] < min)
                min = lost[u];
        n_ok = 0;
        for (u = 0; u < (int)f->in.n_units[s]; u++) {
            int seq[1] = {u};
            if (f->units[s][u].steps - f->units[s][u].steps_lost - lost[u] >
                    0 &&
                lost[u] == min &&
                (k > 0 || scs_fixture_ref_first_bad(
                              f->units[s], f->in.n_units[s], s, seq, 1) < 0))
                ok[n_ok++] = u;
        }
        if (n_ok == 0)
            break;
        o->allocation[o->n_allocation++] = ok[pick(x, 0, n_ok - 1)];
        lost[o->allocation[o->n_allocation - 1]]++;
    }
}

void scs_fixture_random(scs_fixture *f, uint64_t n)
{
    static const scs_frac mults[] = {{1, 2}, {2, 1}, {1, 4}, {3, 2}, {1, 3}};
    static const scs_frac supply[] = {{1, 1}, {1, 2}, {2, 3}};
    uint64_t x = n;
    int s, i, k, n_units;

    memset(f, 0, sizeof *f);
    random_table(&f->table, &x);
    f->in.table = &f->table;
    for (s = 0; s < 2; s++) {
        f->in.units[s] = f->units[s];
        n_units = pick(&x, 1, 4);
        for (i = 0; i < n_units; i++) {
            scs_unit *u = scs_fixture_unit(f, s, pick(&x, 0, 9), pick(&x, 0, 9),
                                           pick(&x, 1, 4));
            u->steps_lost = pick(&x, 0, u->steps - 1);
            u->has_attack = s == SCS_ATTACKER || pick(&x, 0, 3) != 0;
            u->is_exploit = pick(&x, 0, 2) == 0;
            u->is_out_of_supply = pick(&x, 0, 3) == 0;
            u->n_multipliers = pick(&x, 0, 3) == 0 ? pick(&x, 1, 2) : 0;
            for (k = 0; k < u->n_multipliers; k++)
                u->multipliers[k] = mults[pick(&x, 0, 4)];
        }
        if (s == SCS_ATTACKER && f->units[s][0].attack == 0)
            f->units[s][0].attack = pick(&x, 1, 9); /* some attack */
        f->in.orders[s].convert = pick(&x, 0, 2) ? 0 : pick(&x, 1, 3);
        f->in.orders[s].ezoc_hexes = pick(&x, 0, 1) ? 0 : pick(&x, 1, 3);
        f->in.orders[s].blocked_hexes = pick(&x, 0, 2) ? 0 : pick(&x, 1, 3);
        f->in.orders[s].n_extra_units = pick(&x, 0, 4);
        for (k = 0; k < f->in.orders[s].n_extra_units; k++)
            f->in.orders[s].extra_units[k] = pick(&x, 0, n_units - 1);
        if (pick(&x, 0, 1))
            random_allocation(f, s, &x);
    }
    f->in.options.out_of_supply_attack = supply[pick(&x, 0, 2)];
    f->in.options.out_of_supply_defense = supply[pick(&x, 0, 2)];
    f->in.column_shift = pick(&x, 0, 1) ? 0 : pick(&x, -3, 3);
    f->in.is_overrun = pick(&x, 0, 4) == 0;
}
