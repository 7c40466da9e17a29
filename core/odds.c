/*
 * odds.c: the engine of the odds (see odds.h): exact counts, the
 * enumeration of throws with exchangeable dice taken as multisets, the
 * seeded Monte Carlo fallback, sums of dice, and armies keyed by their
 * totals and paired.
 *
 * Invariants: every count is below 2^ODDS_THROWS_BITS (odds_count_mul
 * refuses the rest), so a count times a group's size (at most 200) and a
 * product of two counts checked by odds_count_mul never wrap.
 */
#include "odds.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICK_MASK 1023u /* poll the time bound every 1024 calls */

void odds_limits_default(odds_limits *l)
{
    memset(l, 0, sizeof *l);
    l->method = ODDS_AUTO;
    l->max_calls = ODDS_MAX_CALLS;
    l->samples = ODDS_SAMPLES_DEFAULT;
}

void odds_stats_init(odds_stats *st)
{
    memset(st, 0, sizeof *st);
    st->is_exact = true;
    st->method = "enumeration";
}

void odds_stats_merge(odds_stats *st, const odds_stats *part)
{
    st->calls += part->calls;
    if (st->is_exact && !part->is_exact) {
        st->is_exact = false;
        st->method = part->method;
        memcpy(st->why, part->why, sizeof st->why);
    }
    if (part->samples > st->samples)
        st->samples = part->samples;
}

/* ---- counts ---- */

static odds_count gcd(odds_count a, odds_count b)
{
    while (b != 0) {
        odds_count t = a % b;
        a = b;
        b = t;
    }
    return a;
}

bool odds_count_mul(odds_count a, odds_count b, odds_count *out)
{
    odds_count r;

    if (__builtin_mul_overflow(a, b, &r) ||
        r >= ((odds_count)1 << ODDS_THROWS_BITS))
        return false;
    *out = r;
    return true;
}

/* C(n, k), exact; false when it does not fit 128 bits. */
static bool binom(unsigned n, unsigned k, odds_count *out)
{
    odds_count c = 1;
    unsigned i;

    if (k > n)
        return *out = 0, true;
    for (i = 0; i < k; i++) {
        /* c * (n - i) / (i + 1) is C(n, i + 1): divide first. */
        odds_count g = gcd(c, i + 1), t = (odds_count)(n - i) / ((i + 1) / g);
        if (__builtin_mul_overflow(c / g, t, &c))
            return false;
    }
    *out = c;
    return true;
}

void odds_count_text(odds_count n, char buf[ODDS_COUNT_TEXT])
{
    char tmp[ODDS_COUNT_TEXT];
    size_t k = 0, i;

    do {
        tmp[k++] = (char)('0' + (int)(n % 10));
        n /= 10;
    } while (n != 0 && k < sizeof tmp - 1);
    for (i = 0; i < k; i++)
        buf[i] = tmp[k - 1 - i];
    buf[k] = '\0';
}

void odds_acc_add(odds_acc *a, odds_count weight, uint64_t x)
{
    a->sum += weight * x;
    /* Samples come one at a time: only they need the squares (an exact
     * run never reads them). */
    if (weight == 1)
        a->sum_sq += (odds_count)x * x;
}

void odds_fsum_init(odds_fsum *f)
{
    f->num = 0;
    f->den = 1;
}

bool odds_fsum_add(odds_fsum *f, odds_count num, odds_count den)
{
    odds_count g = gcd(f->den, den), l, a, b;

    if (num == 0)
        return true;
    if (!odds_count_mul(f->den / g, den, &l) ||
        !odds_count_mul(f->num, l / f->den, &a) ||
        !odds_count_mul(num, l / den, &b) || !odds_count_mul(a + b, 1, &a))
        return false;
    f->num = a;
    f->den = l;
    g = gcd(f->num, f->den);
    f->num /= g;
    f->den /= g;
    return true;
}

odds_value odds_value_frac(odds_count num, odds_count den)
{
    odds_value v;
    odds_count g = gcd(num, den);

    memset(&v, 0, sizeof v);
    v.is_exact = true;
    v.num = g ? num / g : 0;
    v.den = g ? den / g : 1;
    v.decimal = (double)v.num / (double)v.den;
    return v;
}

odds_value odds_value_of(const odds_acc *a, odds_count total, unsigned share,
                         bool is_exact)
{
    odds_value v;
    double n, mean, var;

    assert(total > 0 && share > 0);
    if (is_exact) {
        odds_count g;
        v = odds_value_frac(a->sum, total);
        g = gcd(v.num, share);
        v.num /= g ? g : 1;
        v.den *= share / (g ? g : 1);
        v.decimal = (double)v.num / (double)v.den;
        return v;
    }
    memset(&v, 0, sizeof v);
    n = (double)total;
    mean = (double)a->sum / n;
    var = (double)a->sum_sq / n - mean * mean;
    v.decimal = mean / share;
    v.se = var > 0 ? sqrt(var / n) / share : 0;
    return v;
}

/* ---- the space of a throw ---- */

/* The end of the group that starts at dice[i]. */
static size_t group_end(const odds_die *dice, size_t n, size_t i)
{
    size_t j = i + 1;

    while (j < n && dice[j].group == dice[i].group) {
        assert(dice[j].faces == dice[i].faces);
        j++;
    }
    return j;
}

bool odds_space(const odds_die *dice, size_t n, uint64_t *visits,
                odds_count *throws)
{
    odds_count t = 1, v = 1, c;
    bool is_ok = true;
    size_t i, j, k;

    for (i = 0; i < n; i = j) {
        unsigned len;
        j = group_end(dice, n, i);
        len = (unsigned)(j - i);
        for (k = i; k < j && is_ok; k++)
            is_ok = odds_count_mul(t, (odds_count)dice[k].faces, &t);
        /* multisets of len naturals of f faces: C(f + len - 1, len) */
        if (!binom((unsigned)dice[i].faces + len - 1, len, &c) ||
            __builtin_mul_overflow(v, c, &v))
            v = ~(odds_count)0;
    }
    *visits = v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
    *throws = is_ok ? t : 0;
    return is_ok;
}

bool odds_fits(const odds_limits *l, uint64_t calls, bool is_throws_ok,
               char *why)
{
    if (!is_throws_ok) {
        if (why)
            snprintf(why, 200,
                     "the throws are 2^%d or more: too many to count "
                     "exactly",
                     ODDS_THROWS_BITS);
        return false;
    }
    if (calls > l->max_calls) {
        if (why)
            snprintf(why, 200,
                     "the exact odds need %llu resolve calls, over the "
                     "budget of %llu",
                     (unsigned long long)calls,
                     (unsigned long long)l->max_calls);
        return false;
    }
    return true;
}

err_code odds_tick(const odds_limits *l, odds_stats *st, err_info *e)
{
    st->calls++;
    if ((st->calls & TICK_MASK) == 0 && l->is_late && l->is_late(l->late_arg))
        return err_set(e, ERR_LIMIT, "odds",
                       "the odds ran past their time limit of %u ms: ask "
                       "for fewer samples, or a smaller combat",
                       l->time_limit_ms);
    return ERR_OK;
}

void odds_seeded(const odds_limits *l, dice_source *d)
{
    static const uint8_t zero[RNG_SEED_LEN];

    dice_init_seeded(d, zero, l->seed, l->seed_len);
}

/* ---- enumeration ---- */

/* The orderings of the group's naturals v[0..len) (non-increasing). */
static odds_count orderings(const int *v, size_t len)
{
    odds_count w = 1, c = 1;
    size_t i = 0, j;
    unsigned left = (unsigned)len;

    while (i < len) {
        for (j = i + 1; j < len && v[j] == v[i]; j++)
            ;
        binom(left, (unsigned)(j - i), &c); /* fits: below the throws */
        w *= c;
        left -= (unsigned)(j - i);
        i = j;
    }
    return w;
}

/* The next multiset of the group v[lo..hi) (non-increasing, 1..faces):
 * the rightmost natural that can grow does, and those after it restart
 * at 1.  False when the group has wrapped round to all 1s. */
static bool next_multiset(int *v, size_t lo, size_t hi, int faces)
{
    size_t i = hi, k;

    while (i > lo) {
        i--;
        if (v[i] < faces && (i == lo || v[i] < v[i - 1])) {
            v[i]++;
            for (k = i + 1; k < hi; k++)
                v[k] = 1;
            return true;
        }
    }
    for (k = lo; k < hi; k++)
        v[k] = 1;
    return false;
}

err_code odds_enumerate(const odds_die *dice, size_t n, size_t n_slots,
                        const odds_limits *l, odds_visit_fn visit, void *ctx,
                        odds_stats *st, err_info *e)
{
    int *v = malloc((n ? n : 1) * sizeof *v);
    int *naturals = malloc((n_slots ? n_slots : 1) * sizeof *naturals);
    size_t *start = malloc((n ? n : 1) * sizeof *start), n_groups = 0, i, g;
    err_code rc = ERR_OK;
    bool is_more = true;

    if (!v || !naturals || !start) {
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
        goto out;
    }
    for (i = 0; i < n_slots; i++)
        naturals[i] = 1;
    for (i = 0; i < n; i = group_end(dice, n, i)) {
        assert(dice[i].slot >= 0 && (size_t)dice[i].slot < n_slots);
        start[n_groups++] = i;
    }
    for (i = 0; i < n; i++)
        v[i] = 1;
    while (is_more) {
        odds_count w = 1;
        for (g = 0; g < n_groups; g++) {
            size_t hi = g + 1 < n_groups ? start[g + 1] : n;
            w *= orderings(v + start[g], hi - start[g]);
        }
        for (i = 0; i < n; i++)
            naturals[dice[i].slot] = v[i];
        if ((rc = odds_tick(l, st, e)) || (rc = visit(ctx, naturals, w, e)))
            goto out;
        st->throws += w;
        /* The odometer: the last group turns first. */
        for (g = n_groups; g > 0; g--) {
            size_t lo = start[g - 1], hi = g < n_groups ? start[g] : n;
            if (next_multiset(v, lo, hi, dice[lo].faces))
                break;
        }
        is_more = g > 0;
    }
out:
    free(v);
    free(naturals);
    free(start);
    return rc;
}

err_code odds_sample(const odds_die *dice, size_t n, size_t n_slots,
                     const odds_limits *l, odds_visit_fn visit, void *ctx,
                     odds_stats *st, err_info *e)
{
    int *faces = calloc(n_slots ? n_slots : 1, sizeof *faces);
    int *naturals = malloc((n_slots ? n_slots : 1) * sizeof *naturals);
    dice_source d;
    uint64_t s;
    size_t i;
    err_code rc = ERR_OK;

    odds_seeded(l, &d);
    if (!faces || !naturals) {
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
        goto out;
    }
    for (i = 0; i < n; i++)
        faces[dice[i].slot] = dice[i].faces;
    for (s = 0; s < l->samples; s++) {
        for (i = 0; i < n_slots; i++)
            naturals[i] = faces[i] ? rng_v1_die(&d.rng, faces[i]) : 1;
        if ((rc = odds_tick(l, st, e)) || (rc = visit(ctx, naturals, 1, e)))
            goto out;
    }
    st->is_exact = false;
    st->method = "monte_carlo";
    st->samples = l->samples;
    st->throws = 0;
out:
    dice_cleanup(&d);
    free(faces);
    free(naturals);
    return rc;
}

err_code odds_choose(const odds_die *dice, size_t n, uint64_t extra_calls,
                     const odds_limits *l, bool *is_exact, odds_stats *st,
                     err_info *e)
{
    uint64_t visits;
    odds_count throws;
    bool is_ok = odds_space(dice, n, &visits, &throws);
    char why[200];

    if (visits > UINT64_MAX - extra_calls)
        visits = UINT64_MAX - extra_calls;
    *is_exact = l->method != ODDS_SAMPLE &&
                odds_fits(l, visits + extra_calls, is_ok, why);
    if (*is_exact)
        return ERR_OK;
    if (l->method == ODDS_EXACT)
        return err_set(e, ERR_LIMIT, "odds.method", "%s", why);
    if (l->method != ODDS_SAMPLE)
        memcpy(st->why, why, sizeof st->why);
    return ERR_OK;
}

err_code odds_run(const odds_die *dice, size_t n, size_t n_slots,
                  uint64_t extra_calls, const odds_limits *l,
                  odds_visit_fn visit, void *ctx, odds_stats *st, err_info *e)
{
    bool is_exact;
    err_code rc = odds_choose(dice, n, extra_calls, l, &is_exact, st, e);

    if (rc)
        return rc;
    if (is_exact)
        return odds_enumerate(dice, n, n_slots, l, visit, ctx, st, e);
    return odds_sample(dice, n, n_slots, l, visit, ctx, st, e);
}

/* ---- roles within a group ---- */

odds_count *odds_pascal(size_t n)
{
    odds_count *c;
    size_t a, b, w = n + 1;

    assert(n <= 100); /* C(100, 50) < 2^97 */
    if ((c = calloc(w * w, sizeof *c)) == NULL)
        return NULL;
    for (a = 0; a <= n; a++) {
        c[a * w] = 1;
        for (b = 1; b <= a; b++)
            c[a * w + b] = c[(a - 1) * w + b - 1] + c[(a - 1) * w + b];
    }
    return c;
}

void odds_roles(const int *v, size_t g, const odds_count *pascal, size_t n,
                odds_count *w)
{
    size_t s, t, i, k, m, left, w1 = n + 1;

    assert(g <= n);
    memset(w, 0, g * g * sizeof *w);
    for (s = 0; s < g; s = t) {
        odds_count others = 1;
        for (t = s + 1; t < g && v[t] == v[s]; t++)
            ;
        m = t - s;
        /* the orderings of the other naturals among the other places */
        left = g - m;
        for (i = 0; i < g; i = k) {
            for (k = i + 1; k < g && v[k] == v[i]; k++)
                ;
            if (i == s)
                continue;
            others *= pascal[left * w1 + (k - i)];
            left -= k - i;
        }
        /* member i is the k-th of m holders: k - 1 of them before it */
        for (i = 0; i < g; i++)
            for (k = 1; k <= m && k - 1 <= i; k++) {
                if (m - k > g - 1 - i)
                    continue;
                w[i * g + s + k - 1] = pascal[i * w1 + k - 1] *
                                       pascal[(g - 1 - i) * w1 + m - k] *
                                       others;
            }
    }
}

/* ---- sums ---- */

bool odds_sum_counts(int n_dice, int faces, odds_count *counts)
{
    size_t max = (size_t)n_dice * (size_t)faces, s;
    odds_count *a = calloc(max + 1, sizeof *a), *b = calloc(max + 1, sizeof *b);
    odds_count check = 1;
    int k;

    for (k = 0; k < n_dice; k++)
        if (!odds_count_mul(check, (odds_count)faces, &check))
            break;
    if (!a || !b || k < n_dice) {
        free(a);
        free(b);
        return false;
    }
    a[0] = 1;
    for (k = 1; k <= n_dice; k++) {
        /* b[s] = a[s-1] + ... + a[s-faces]: a sliding window */
        odds_count window = 0;
        for (s = 0; s <= max; s++) {
            if (s >= 1)
                window += a[s - 1];
            if (s >= (size_t)faces + 1)
                window -= a[s - 1 - (size_t)faces];
            b[s] = window;
        }
        memcpy(a, b, (max + 1) * sizeof *a);
    }
    for (s = (size_t)n_dice; s <= max; s++)
        counts[s - (size_t)n_dice] = a[s];
    free(a);
    free(b);
    return true;
}

void odds_sum_throw(int n_dice, int faces, int s, int *naturals)
{
    int k, left = s;

    assert(s >= n_dice && s <= n_dice * faces);
    for (k = 0; k < n_dice; k++) {
        int rest = n_dice - k - 1, d = left - rest;
        naturals[k] = d > faces ? faces : d;
        left -= naturals[k];
    }
}

/* ---- armies keyed by their totals ---- */

typedef struct keyed_ctx {
    odds_keyed *k;
    odds_key_fn key_fn;
    void *ctx;
} keyed_ctx;

/* Index of key in k's sorted keys, or where it would go (*is_found). */
static size_t key_find(const odds_keyed *k, int key, bool *is_found)
{
    size_t lo = 0, hi = k->n_keys;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (k->keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    *is_found = lo < k->n_keys && k->keys[lo] == key;
    return lo;
}

static err_code key_insert(odds_keyed *k, size_t at, int key,
                           const int *naturals, err_info *e)
{
    size_t ns = k->n_slots;

    if (k->n_keys == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 64;
        int *keys = realloc(k->keys, cap * sizeof *keys);
        odds_count *counts =
            keys ? realloc(k->counts, cap * sizeof *counts) : NULL;
        int *reps = counts ? realloc(k->reps, cap * ns * sizeof *reps) : NULL;
        if (keys)
            k->keys = keys;
        if (counts)
            k->counts = counts;
        if (reps == NULL)
            return err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
        k->reps = reps;
        k->cap = cap;
    }
    memmove(k->keys + at + 1, k->keys + at, (k->n_keys - at) * sizeof *k->keys);
    memmove(k->counts + at + 1, k->counts + at,
            (k->n_keys - at) * sizeof *k->counts);
    memmove(k->reps + (at + 1) * ns, k->reps + at * ns,
            (k->n_keys - at) * ns * sizeof *k->reps);
    k->keys[at] = key;
    k->counts[at] = 0;
    memcpy(k->reps + at * ns, naturals, ns * sizeof *naturals);
    k->n_keys++;
    return ERR_OK;
}

static err_code keyed_visit(void *p, const int *naturals, odds_count weight,
                            err_info *e)
{
    keyed_ctx *c = p;
    bool is_found;
    size_t at;
    int key;
    err_code rc;

    if ((rc = c->key_fn(c->ctx, naturals, &key, e)))
        return rc;
    at = key_find(c->k, key, &is_found);
    if (!is_found && (rc = key_insert(c->k, at, key, naturals, e)))
        return rc;
    c->k->counts[at] += weight;
    return ERR_OK;
}

err_code odds_keyed_build(const odds_die *dice, size_t n, size_t n_slots,
                          const odds_limits *l, odds_key_fn key_fn, void *ctx,
                          odds_keyed *k, odds_stats *st, err_info *e)
{
    keyed_ctx c = {k, key_fn, ctx};

    memset(k, 0, sizeof *k);
    k->n_slots = n_slots;
    return odds_enumerate(dice, n, n_slots, l, keyed_visit, &c, st, e);
}

void odds_keyed_cleanup(odds_keyed *k)
{
    if (k == NULL)
        return;
    free(k->keys);
    free(k->counts);
    free(k->reps);
    memset(k, 0, sizeof *k);
}

err_code odds_keyed_pairs(const odds_keyed *a, const odds_keyed *b,
                          const odds_die *dice_b, size_t n_b,
                          const odds_limits *l, odds_visit_fn visit, void *ctx,
                          odds_stats *st, err_info *e)
{
    size_t ns = a->n_slots, i, j, k;
    int *naturals = malloc((ns ? ns : 1) * sizeof *naturals);
    err_code rc = ERR_OK;

    assert(a->n_slots == b->n_slots);
    if (naturals == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory for the odds");
    for (i = 0; i < a->n_keys && rc == ERR_OK; i++)
        for (j = 0; j < b->n_keys && rc == ERR_OK; j++) {
            odds_count w;
            memcpy(naturals, a->reps + i * ns, ns * sizeof *naturals);
            for (k = 0; k < n_b; k++)
                naturals[dice_b[k].slot] =
                    b->reps[j * ns + (size_t)dice_b[k].slot];
            if (!odds_count_mul(a->counts[i], b->counts[j], &w))
                rc = err_set(e, ERR_INTERNAL, NULL, "the odds overflowed");
            else if ((rc = odds_tick(l, st, e)) == ERR_OK)
                rc = visit(ctx, naturals, w, e);
        }
    free(naturals);
    return rc;
}
