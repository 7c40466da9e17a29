/*
 * odds.h: the odds of a combat without rolling it (docs/odds.md).
 *
 * Every answer comes from the system's own rules: a throw of the dice is
 * fed to its resolve function through a replay source and the outcome is
 * counted.  Exact answers visit every throw, or every class of throws
 * that the rules cannot tell apart (symmetry reduction: exchangeable
 * dice enumerated as multisets, each weighted by how many orderings it
 * stands for; or independent armies' totals counted apart and then
 * paired, a convolution), within a budget of resolve calls.  Beyond it a
 * seeded Monte Carlo estimate runs the same functions on sampled dice and
 * says so, with its sample count and standard errors.
 *
 * Counts are exact 128-bit integers: a probability is a count over the
 * throws (or the samples), reduced when it is written.  An exact answer
 * needs the throws below 2^120, so that every fraction and every share
 * of a group fits; over that it is sampled (or refused, when exact odds
 * were demanded).  Pure C: no clock (the time bound is the caller's
 * callback), no I/O.  The systems' odds are in odds_<system>.[ch].
 */
#ifndef UMPIRE_ODDS_H
#define UMPIRE_ODDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dice.h"
#include "err.h"

/* An exact count of throws. */
typedef unsigned __int128 odds_count;

#define ODDS_MAX_CALLS       2000000u /* resolve calls of one answer */
#define ODDS_SAMPLES_DEFAULT 100000u
#define ODDS_SAMPLES_MIN     100u
#define ODDS_SAMPLES_MAX     1000000u
#define ODDS_MAX_DICE        1024 /* dice in one throw */
#define ODDS_COUNT_TEXT      48   /* a count in decimal, with its NUL */
#define ODDS_THROWS_BITS     120  /* exact answers: throws below 2^120 */

/* What the caller asks for. */
typedef enum odds_method {
    ODDS_AUTO,  /* exact within the budget, else sampled */
    ODDS_EXACT, /* exact, or refused (ERR_LIMIT) over the budget */
    ODDS_SAMPLE /* sampled, always */
} odds_method;

typedef struct odds_limits {
    odds_method method;
    uint64_t max_calls; /* resolve calls an exact answer may take */
    uint64_t samples;   /* Monte Carlo samples */
    /* The Monte Carlo stream: rng v1 with a server seed of 32 zero
     * bytes and this client seed (borrowed; may be empty), so the same
     * request gives the same estimate. */
    const uint8_t *seed;
    size_t seed_len;
    /* The time bound: polled between resolve calls; true stops the
     * answer with ERR_LIMIT (field "odds"), naming time_limit_ms. */
    bool (*is_late)(void *arg);
    void *late_arg;
    unsigned time_limit_ms;
} odds_limits;

/* Auto, ODDS_MAX_CALLS, ODDS_SAMPLES_DEFAULT, an empty seed, no bound. */
void odds_limits_default(odds_limits *l);

/* How one answer (or a part of it) was made. */
typedef struct odds_stats {
    bool is_exact;
    const char *method; /* "enumeration", "convolution", "monte_carlo" */
    uint64_t calls;     /* resolve calls made */
    odds_count throws;  /* exact: the throws counted; else 0 */
    uint64_t samples;   /* sampled: the samples drawn; else 0 */
    char why[200];      /* sampled: why not exact ("" when asked so) */
} odds_stats;

void odds_stats_init(odds_stats *st);
/* Folds part into st: the calls add up; st stays exact only if both
 * are; the first reason not to be exact is kept. */
void odds_stats_merge(odds_stats *st, const odds_stats *part);

/* ---- accumulating and reading out ---- */

/* A sum over outcomes of weight * x, and of x^2 over the outcomes of
 * weight 1 (the samples: the standard error of a sampled mean; exact runs
 * never read it). */
typedef struct odds_acc {
    odds_count sum;
    odds_count sum_sq;
} odds_acc;

void odds_acc_add(odds_acc *a, odds_count weight, uint64_t x);

/* A probability or an expectation as read out. */
typedef struct odds_value {
    bool is_exact;
    odds_count num, den; /* exact: in lowest terms, den > 0 */
    double decimal;
    double se; /* sampled: the standard error; 0 when exact */
} odds_value;

/*
 * a's mean: sum / (total * share), where total is the throws (exact) or
 * the samples, and share divides a group's sum among its members (1 for
 * none).  Exact: the reduced fraction; sampled: the estimate and its
 * standard error.
 */
odds_value odds_value_of(const odds_acc *a, odds_count total, unsigned share,
                         bool is_exact);
/* An exact sum of fractions whose denominators differ (the paths of a
 * battle, each as long as it lasts): false once it would not fit
 * ODDS_THROWS_BITS. */
typedef struct odds_fsum {
    odds_count num, den;
} odds_fsum;

void odds_fsum_init(odds_fsum *f);
bool odds_fsum_add(odds_fsum *f, odds_count num, odds_count den);

/* An exact value from a count over a total (reduced). */
odds_value odds_value_frac(odds_count num, odds_count den);

/* n in decimal into buf (ODDS_COUNT_TEXT bytes). */
void odds_count_text(odds_count n, char buf[ODDS_COUNT_TEXT]);
/* a * b, false on overflow of ODDS_THROWS_BITS. */
bool odds_count_mul(odds_count a, odds_count b, odds_count *out);

/* ---- throws ---- */

/* One die of a throw. */
typedef struct odds_die {
    int faces; /* 2..RNG_FACES_MAX */
    int slot;  /* its place in the throw: the order the rules draw */
    /* Dice of one group are exchangeable (the rules cannot tell their
     * orderings apart for what is counted): they must be listed next to
     * each other and have the same faces.  A group of one is a plain
     * die. */
    int group;
} odds_die;

/* Called for each throw visited: naturals[slot] holds every die's natural;
 * weight is the throws it stands for (1 when sampled). */
typedef err_code (*odds_visit_fn)(void *ctx, const int *naturals,
                                  odds_count weight, err_info *e);

/*
 * The visits an enumeration of dice makes (*visits, saturating at
 * UINT64_MAX) and the throws they stand for (*throws).  False when the
 * throws are not below 2^ODDS_THROWS_BITS.
 */
bool odds_space(const odds_die *dice, size_t n, uint64_t *visits,
                odds_count *throws);

/* Whether an exact answer of this many calls and throws is allowed by l
 * (method aside); why (may be NULL, 200 bytes) says why not. */
bool odds_fits(const odds_limits *l, uint64_t calls, bool is_throws_ok,
               char *why);

/*
 * Visits every throw of dice: each group as the multisets of its
 * naturals (non-increasing along the group), weighted by the orderings
 * of each.  naturals is filled at the dice's slots only; slots no die
 * names hold 1.  n_slots is the throw's length.  Adds the calls to st.
 */
err_code odds_enumerate(const odds_die *dice, size_t n, size_t n_slots,
                        const odds_limits *l, odds_visit_fn visit, void *ctx,
                        odds_stats *st, err_info *e);

/*
 * Draws l->samples throws of dice from the seeded stream, each die in
 * slot order, and visits each with weight 1.
 */
err_code odds_sample(const odds_die *dice, size_t n, size_t n_slots,
                     const odds_limits *l, odds_visit_fn visit, void *ctx,
                     odds_stats *st, err_info *e);

/*
 * Whether dice are to be enumerated (*is_exact) or sampled under l: exact
 * when l allows (extra_calls: calls the caller makes besides the visits)
 * and the throws fit; ODDS_EXACT over the budget is ERR_LIMIT (field
 * "odds.method"); st->why says why when sampling instead.
 */
err_code odds_choose(const odds_die *dice, size_t n, uint64_t extra_calls,
                     const odds_limits *l, bool *is_exact, odds_stats *st,
                     err_info *e);

/* odds_choose, then odds_enumerate or odds_sample.  st says which. */
err_code odds_run(const odds_die *dice, size_t n, size_t n_slots,
                  uint64_t extra_calls, const odds_limits *l,
                  odds_visit_fn visit, void *ctx, odds_stats *st, err_info *e);

/*
 * The roles of a group's members across the orderings of one multiset of
 * its naturals, for rules that break ties between equal naturals by the
 * members' order (the k-th member holding a natural in an ordering fares
 * as the k-th member holding it in v).  v: the multiset as enumerated
 * (non-increasing, g naturals); pascal: odds_pascal(n) with n >= g.
 * w[i * g + h] gets the orderings in which member i fares as member h
 * fares in v; each row sums to the orderings of v.
 */
void odds_roles(const int *v, size_t g, const odds_count *pascal, size_t n,
                odds_count *w);
/* Pascal's triangle to n (at most 100): C(a, b) at [a * (n + 1) + b]
 * (new, free()), or NULL when out of memory. */
odds_count *odds_pascal(size_t n);

/* The check between calls: counts one and polls the time bound every so
 * often (ERR_LIMIT once late). */
err_code odds_tick(const odds_limits *l, odds_stats *st, err_info *e);

/* A seeded source for l's Monte Carlo stream (dice_cleanup after). */
void odds_seeded(const odds_limits *l, dice_source *d);

/* ---- sums and keys ---- */

/*
 * The throws of n_dice dice of faces faces by the sum of their naturals:
 * counts[s - n_dice] for every sum s from n_dice to n_dice * faces (a
 * convolution).  False when a count would not fit.
 */
bool odds_sum_counts(int n_dice, int faces, odds_count *counts);
/* One throw of n_dice dice of faces faces whose naturals sum to s. */
void odds_sum_throw(int n_dice, int faces, int s, int *naturals);

/* The throws of one army's dice by a key the rules give them (its
 * total), with one throw of each key: naturals[slot] for its dice. */
typedef struct odds_keyed {
    int *keys;          /* distinct keys, ascending */
    odds_count *counts; /* throws of each key */
    int *reps;          /* n_keys * n_slots: a whole throw per key */
    size_t n_keys, cap;
    size_t n_slots;
} odds_keyed;

/* The key of a throw: the army's total as the rules make it (*key). */
typedef err_code (*odds_key_fn)(void *ctx, const int *naturals, int *key,
                                err_info *e);

/* Enumerates dice (as odds_enumerate) into k by key_fn; the throw's
 * other slots hold 1.  k is caller storage: odds_keyed_cleanup after. */
err_code odds_keyed_build(const odds_die *dice, size_t n, size_t n_slots,
                          const odds_limits *l, odds_key_fn key_fn, void *ctx,
                          odds_keyed *k, odds_stats *st, err_info *e);
void odds_keyed_cleanup(odds_keyed *k);

/*
 * Visits every pair of a key of a and a key of b (independent armies,
 * their dice at different slots; dice_b are b's): the throw made of a's
 * representative with b's dice from b's, weighted by the product of
 * their counts.
 */
err_code odds_keyed_pairs(const odds_keyed *a, const odds_keyed *b,
                          const odds_die *dice_b, size_t n_b,
                          const odds_limits *l, odds_visit_fn visit, void *ctx,
                          odds_stats *st, err_info *e);

#endif
