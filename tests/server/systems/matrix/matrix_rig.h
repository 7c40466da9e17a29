/*
 * matrix_rig.h: what the Matrix-over-HTTP suites (test_matrix_http.c and
 * test_battles_http.c, beside it) need on top of scs_rig.h: a campaign of
 * the sides blue and red, units carrying Matrix only, battles created and
 * acted on, the state a refused request must not change (the campaign,
 * every battle and the number of stored actions), seeded dice re-derived
 * with rng v1, and a restart of the server over the same database.
 *
 * JSON a helper returns is kept by the scs rig until teardown (borrowed by
 * the caller).  Helpers abort the test (Check) on failure, naming rig_ctx.
 */
#ifndef UMPIRE_TESTS_MATRIX_RIG_H
#define UMPIRE_TESTS_MATRIX_RIG_H

#include <pthread.h>
#include <stddef.h>

#include <jansson.h>

#include "harness.h"
#include "scs_rig.h"

/* Request bodies written compactly: Q(B1) is "B1" quoted; an army of a
 * side with its units and other members ("more", each with its leading
 * comma); a combat of the line; a battle in turn 1; entered dice; the
 * actions: a roll (d: its DICE or ""), a commit (more: DIE or ""), an
 * accept. */
#define Q(u)                "\"" #u "\""
#define ARMY(side, u, more) "{\"side\":\"" side "\",\"units\":[" u "]" more "}"
#define PAIR(a, d)          "{\"attacker\":[" a "],\"defender\":[" d "]}"
#define BATTLE(more, a, d, l)                                                  \
    "{\"turn\":1" more ",\"attacker\":" a ",\"defender\":" d ",\"line\":[" l   \
    "]}"
#define ENTERED          ",\"dice\":{\"source\":\"entered\"}"
#define MROLL(c, d)      "{\"action\":\"roll\",\"combat\":" #c d "}"
#define DICE(a, x, b, y) ",\"dice\":{\"" a "\":" #x ",\"" b "\":" #y "}"
#define COMMIT(c, a, u, more)                                                  \
    "{\"action\":\"commit\",\"combat\":" #c ",\"army\":\"" a                   \
    "\",\"unit\":\"" u "\"" more "}"
#define DIE(n)    ",\"die\":" #n
#define ACCEPT(c) "{\"action\":\"accept\",\"combat\":" #c "}"

/* Steps on one battle: a status of 200 is a step that lands (one more
 * action stored), any other a refusal with its code and field (any if
 * NULL) that changes nothing (mx_refuse). */
typedef struct mx_step {
    const char *body;
    int status;
    const char *code, *field;
} mx_step;

/* Runs the n steps on the battle bid in order, as the umpire. */
void mx_run_steps(const test_campaign *c, const char *bid, const mx_step *steps,
                  size_t n);

/* One request of a burst (mx_burst): its answer's status (-1: none) and
 * n_actions (-1: none). */
typedef struct mx_shot {
    pthread_barrier_t *start;
    const test_campaign *c;
    char path[256], body[256];
    int status;
    long long n_actions;
} mx_shot;

/* Posts n (at most 16) actions on the battle at once from n threads,
 * bodies[i] (or body for all) as the umpire; returns how many answered
 * 200, each answer in shots. */
int mx_burst(const test_campaign *c, const char *bid, mx_shot *shots, int n,
             const char *const *bodies, const char *body);

/* A campaign with the sides blue and red. */
void mx_campaign(test_campaign *c);
/* A unit of side carrying Matrix only, with this quality; its id in
 * id_out (64 bytes) unless NULL. */
void mx_unit(const test_campaign *c, const char *name, const char *side,
             int quality, char *id_out);

/* POST /v1/campaigns/{id}/battles with the body (printf-style) as the
 * umpire; the answer (kept), which must have this status. */
json_t *mx_battle(const test_campaign *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* POST .../battles/{battle}/actions with the body (printf-style) as the
 * umpire; the answer (kept), which must have this status. */
json_t *mx_act(const test_campaign *c, const char *battle, int status,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* GET .../battles/{battle} as the umpire (kept). */
json_t *mx_get(const test_campaign *c, const char *battle);
/* body (taken) posted to path as token: the answer (kept), asserted. */
json_t *mx_post(int status, const char *token, json_t *body, const char *path);

/* The rows of battle_actions of a battle, read from the database. */
long long mx_n_action_rows(const char *battle);
/* The number of distinct seqs of a battle's actions, and the highest. */
void mx_action_seqs(const char *battle, long long *n_distinct,
                    long long *max_seq);

/* What a refused request must not change: scs_rig_world, the battle list,
 * every battle's state and the number of stored actions. */
json_t *mx_world(const test_campaign *c);
void mx_assert_unchanged(const json_t *before, const test_campaign *c);
/* A request (path printf-style) refused with this problem (any code or
 * field if NULL), which changed nothing of before. */
void mx_refuse(const test_campaign *c, const json_t *before, int status,
               const char *code, const char *field, const char *token,
               const char *body, const char *path_fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* dice ({"source", "commitment", "server_seed", "client_seed"}) are
 * seeded and revealed: the seed's SHA-256 is the commitment and rolls'
 * naturals are the rng v1 stream from seed and client seed, in order. */
void mx_check_seeded(const json_t *dice, const json_t *rolls);

/* Stops the server and starts it again over the same database (an
 * abandoned battle must come back as it was). */
void mx_restart(void);

/* "attacker", "defender": the JSON names of the armies, by index. */
extern const char *const mx_army_key[2];

/* A request body from fmt, in one of 4 rotating static buffers (valid for
 * 3 more calls). */
const char *mx_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Units B1..Bn of blue and R1..Rn of red, quality 0. */
void mx_units(const test_campaign *c, int n);

/*
 * The battles of tests/vectors/matrix-examples.json ("bt": "battle" or
 * "two_against_one"): armies by name with units {id, quality} and a
 * modifier (the matrix argument), a line of [[attacker ids], [defender
 * ids]], combats {index, dice, expect_before_reserves, reserves [{unit,
 * die}], expect}, and the battle's "expect"; expectations name armies.
 */
/* The army key of the vector army called name. */
const char *mx_vec_key(const json_t *bt, const char *name);
/* The vector unit called id (borrowed); its army's index in *army. */
const json_t *mx_vec_unit(const json_t *bt, const char *id, int *army);
/* The vector's combat of this index (borrowed). */
const json_t *mx_vec_combat(const json_t *bt, long long index);
/* Casualty points of a unit's result ("none" or NULL: 0). */
int mx_points(const char *result);
/* A served combat against an expectation {<army name>: score, loser,
 * result}. */
void mx_vec_check_combat(const json_t *cs, const json_t *bt,
                         const json_t *want);
/* A served result against the battle's expectation: casualty points,
 * winner, loser, army state, pursuit, exhausted, unit results (those of
 * them it has: the winner and loser only where there is a winner). */
void mx_vec_check_result(const json_t *res, const json_t *bt,
                         const json_t *want);
/* A combat record's roll log against the model: per combat in order, its
 * line units (attacker first), then its reserves, each natural + quality +
 * army modifier (- 1 for a reserve); ids maps names to campaign ids. */
void mx_vec_check_rolls(const json_t *rolls, const json_t *bt,
                        const json_t *ids);
/* The campaign battle's request (new): sides by name, the attacker's units
 * by id (ids), the defender's by name, entered dice. */
json_t *mx_vec_campaign_body(const json_t *bt, const json_t *ids, int turn);
/* Fights the campaign battle bid as the vector says, step by step, each
 * step checked; returns the last state (kept). */
json_t *mx_vec_fight(const test_campaign *c, const char *bid, const json_t *bt);
/* The one-off request of a vector battle (new): inline armies, each
 * combat's dice (all_dice for every combat if not NULL), the reserves as
 * commits, and order unless NULL. */
json_t *mx_vec_oneoff_body(const json_t *bt, const json_t *all_dice,
                           json_t *order);

/* A one-off battle of one unit against one ("A" of the attacker, "D" of
 * the defender) whose combat scores s[0] to s[1], entered dice (new): each
 * army's argument and its unit's quality and die chosen to make its score;
 * a score out of one unit's reach (above 6 + 3 + 1) adds a reserve unit
 * ("A2" or "D2") committed to the combat. */
json_t *mx_ratio_body(const int s[2]);

#endif
