/*
 * vf_verify.c: the check of a combat report, and reading a file for either
 * check; see vf_verify.h.  The ledger's check is in vf_ledger.c, what the
 * two share in vf_common.c.
 *
 * Every value is read from the document and validated before use: a field
 * missing or of the wrong type makes the input unusable (VF_BAD_INPUT),
 * while a value that is well formed but wrong is a problem (VF_MISMATCH).
 * Dice come from vf_crypto.c alone.
 */
#include "vf_verify.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vf_common.h"
#include "vf_crypto.h"

#define NATURAL_MAX                                                            \
    1000000 /* any natural up to here reads; a wrong one mismatches */

/* ---- combat reports ------------------------------------------------------ */

/* A report's dice block (docs/dice.md, "What a report records"). */
typedef struct combat_dice {
    const char *source;      /* "seeded" or "entered" */
    const char *rng;         /* NULL when null */
    const char *commitment;  /* NULL when null or absent */
    const char *server_seed; /* NULL when null (not yet revealed) */
    const char *client_seed; /* NULL when null or absent */
    size_t client_seed_len;
} combat_dice;

/* One logged die. */
typedef struct roll {
    json_int_t seq;     /* from the report, or its place in the list */
    int faces;          /* 2..1000 */
    json_int_t natural; /* as logged */
    const char *unit;   /* NULL when the roll names none */
    size_t index;       /* place in the report's list */
} roll;

/* The dice block: "dice" of a report, or the minimal object itself. */
static vf_result read_combat_dice(const json_t *report, combat_dice *d,
                                  FILE *out)
{
    const json_t *dice = json_object_get(report, "dice");
    const json_t *from = dice != NULL ? dice : report;
    uint8_t bytes[VF_SHA256_LEN];

    if (dice != NULL && !json_is_object(dice))
        return vf_bad_input(out, "\"dice\" is not an object");
    if (vf_get_str(from, "source", false, &d->source) ||
        vf_get_str(from, "rng", false, &d->rng) ||
        vf_get_str(from, "commitment", false, &d->commitment) ||
        vf_get_str(from, "client_seed", false, &d->client_seed) ||
        vf_get_str(from, "server_seed", true, &d->server_seed))
        return vf_bad_input(out, "the dice need a server_seed (null until it "
                                 "is revealed); source, rng, commitment and "
                                 "client_seed are strings or null");
    if (d->source == NULL)
        d->source = "seeded";
    if (strcmp(d->source, "seeded") != 0 && strcmp(d->source, "entered") != 0)
        return vf_bad_input(out, "dice source \"%s\" is not seeded or entered",
                            d->source);
    if (d->rng != NULL && strcmp(d->rng, "v1") != 0)
        return vf_bad_input(out, "rng \"%s\": this verifier knows v1 only",
                            d->rng);
    if ((d->server_seed && vf_get_hash(d->server_seed, bytes)) ||
        (d->commitment && vf_get_hash(d->commitment, bytes)))
        return vf_bad_input(out, "server_seed or commitment is not 64 hex "
                                 "digits");
    d->client_seed_len = vf_len_of(from, "client_seed");
    return VF_OK;
}

static int roll_cmp(const void *a, const void *b)
{
    const roll *x = a, *y = b;

    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* One element of "rolls" into *r. */
static vf_result read_roll(const json_t *v, size_t i, bool has_seq, roll *r,
                           FILE *out)
{
    json_int_t faces;

    if (!json_is_object(v) ||
        vf_get_int(v, "faces", VF_FACES_MIN, VF_FACES_MAX, &faces) ||
        vf_get_int(v, "natural", 0, NATURAL_MAX, &r->natural) ||
        vf_get_str(v, "unit", false, &r->unit))
        return vf_bad_input(out,
                            "rolls[%zu] needs faces (2 to 1000) and a "
                            "natural, integers",
                            i);
    if (has_seq && vf_get_int(v, "seq", 1, INT32_MAX, &r->seq))
        return vf_bad_input(out,
                            "rolls[%zu].seq is not a positive integer "
                            "(every roll has a seq, or none has)",
                            i);
    if (!has_seq)
        r->seq = (json_int_t)i + 1;
    r->faces = (int)faces;
    r->index = i;
    return VF_OK;
}

/* "rolls" in seq order into *rolls (new, caller frees) and *n. */
static vf_result read_rolls(const json_t *report, roll **rolls, size_t *n,
                            FILE *out)
{
    const json_t *list = json_object_get(report, "rolls");
    bool has_seq;
    size_t i;

    if (!json_is_array(list))
        return vf_bad_input(out, "missing array \"rolls\"");
    *n = json_array_size(list);
    *rolls = calloc(*n + 1, sizeof **rolls);
    if (*rolls == NULL)
        return vf_bad_input(out, "out of memory for %zu rolls", *n);
    has_seq = json_object_get(json_array_get(list, 0), "seq") != NULL;
    for (i = 0; i < *n; i++)
        if (read_roll(json_array_get(list, i), i, has_seq, &(*rolls)[i], out))
            return VF_BAD_INPUT;
    qsort(*rolls, *n, sizeof **rolls, roll_cmp);
    return VF_OK;
}

/* The seed against the commitment, when there is one. */
static void check_commitment(const char *commitment,
                             const uint8_t seed[VF_SEED_LEN], vf_checker *c)
{
    uint8_t want[VF_SHA256_LEN], got[VF_SHA256_LEN];
    char hex[VF_HEX_LEN];

    if (commitment == NULL) {
        fprintf(c->out, "commitment: none given; the dice alone are checked\n");
        return;
    }
    vf_get_hash(commitment, want);
    vf_sha256(seed, VF_SEED_LEN, got);
    vf_hex(got, sizeof got, hex);
    if (memcmp(want, got, sizeof got) == 0)
        fprintf(c->out, "commitment: %s = SHA-256(server seed): ok\n", hex);
    else
        vf_problem(c,
                   "the server seed does not match its commitment: "
                   "SHA-256(seed) is %s, the commitment %s",
                   hex, commitment);
}

/* The seqs run 1, 2, 3...: a die missing or repeated is a problem. */
static void check_seqs(const roll *rolls, size_t n, vf_checker *c)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (rolls[i].seq > (json_int_t)i + 1) {
            vf_problem(c, "die %zu is missing from the log", i + 1);
            return;
        }
        if (rolls[i].seq < (json_int_t)i + 1) {
            vf_problem(c, "die %lld appears twice in the log",
                       (long long)rolls[i].seq);
            return;
        }
    }
}

/* Re-derives every die in seq order, one line each; one problem names the
 * first die that differs. */
static void check_combat_dice(const combat_dice *d,
                              const uint8_t seed[VF_SEED_LEN],
                              const roll *rolls, size_t n, vf_checker *c)
{
    const roll *bad = NULL;
    int bad_got = 0;
    size_t n_bad = 0, i;
    vf_rng rng;

    vf_rng_init(&rng, seed, (const uint8_t *)d->client_seed,
                d->client_seed_len);
    for (i = 0; i < n; i++) {
        const roll *r = &rolls[i];
        int got = vf_rng_die(&rng, r->faces);

        fprintf(c->out,
                "  die %3lld  %-20s d%-4d logged %4lld  computed %4d"
                "  %s\n",
                (long long)r->seq, r->unit ? r->unit : "-", r->faces,
                (long long)r->natural, got,
                got == r->natural ? "ok" : "MISMATCH");
        if (got != r->natural && n_bad++ == 0) {
            bad = r;
            bad_got = got;
        }
    }
    vf_rng_cleanup(&rng);
    if (bad != NULL)
        vf_problem(c,
                   "die %lld%s%s%s: the seed gives %d, the report says %lld "
                   "(%zu of %zu dice differ)",
                   (long long)bad->seq, bad->unit ? " (" : "",
                   bad->unit ? bad->unit : "", bad->unit ? ")" : "", bad_got,
                   (long long)bad->natural, n_bad, n);
}

/* The seeded case, once the dice block and rolls are read. */
static vf_result verify_seeded(const combat_dice *d, const roll *rolls,
                               size_t n, FILE *out, const char *label)
{
    uint8_t seed[VF_SEED_LEN];
    vf_checker c = {.out = out, .label = label};

    vf_get_hash(d->server_seed, seed);
    if (d->client_seed != NULL)
        fprintf(out, "client seed: \"%s\"\n", d->client_seed);
    else
        fprintf(out, "client seed: none (the empty string)\n");
    check_commitment(d->commitment, seed, &c);
    check_seqs(rolls, n, &c);
    check_combat_dice(d, seed, rolls, n, &c);
    if (c.n_problems > 0)
        return vf_not_verified(&c);
    fprintf(out,
            "%s: verified: the seed matches%s and all %zu dice "
            "follow from the seeds\n",
            label, d->commitment ? " its commitment" : "", n);
    return VF_OK;
}

vf_result vf_verify_combat(const json_t *report, FILE *out)
{
    return vf_combat_check(report, out, "RESULT");
}

vf_result vf_combat_check(const json_t *report, FILE *out, const char *label)
{
    combat_dice d = {0};
    roll *rolls = NULL;
    size_t n = 0;
    vf_result res;

    if (!json_is_object(report))
        return vf_bad_input(out, "a combat report must be a JSON object");
    res = read_combat_dice(report, &d, out);
    if (res == VF_OK)
        res = read_rolls(report, &rolls, &n, out);
    if (res != VF_OK)
        goto done;
    if (json_is_string(json_object_get(report, "id")))
        fprintf(out, "combat %s\n", vf_text_of(report, "id"));
    fprintf(out, "dice: %s, %zu logged\n", d.source, n);
    if (strcmp(d.source, "entered") == 0) {
        fprintf(out,
                "%s: nothing to verify: entered dice are an honest "
                "record of what the umpire says was rolled, not "
                "something anyone can re-derive\n",
                label);
        res = VF_UNVERIFIABLE;
    } else if (d.server_seed == NULL) {
        fprintf(out,
                "%s: nothing to verify yet: the server seed is not "
                "revealed (commitment %s); check again once it is\n",
                label, d.commitment ? d.commitment : "none");
        res = VF_UNVERIFIABLE;
    } else {
        res = verify_seeded(&d, rolls, n, out, label);
    }
done:
    free(rolls);
    return res;
}

/* ---- files --------------------------------------------------------------- */

vf_result vf_verify_path(const char *path, vf_mode mode, FILE *out)
{
    bool is_stdin = strcmp(path, "-") == 0;
    json_error_t err;
    json_t *doc;
    vf_result res;

    /* Duplicate keys could show one value to one reader and another to
     * another: refuse them. */
    doc = is_stdin ? json_loadf(stdin, JSON_REJECT_DUPLICATES, &err)
                   : json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (doc == NULL)
        return vf_bad_input(out, "%s: %s (line %d, column %d)",
                            is_stdin ? "standard input" : path, err.text,
                            err.line, err.column);
    /* A shared link's answer (GET /v1/shared/{secret}) is known by its
     * members, whatever the mode. */
    if (json_is_object(json_object_get(doc, "report")) &&
        json_is_object(json_object_get(doc, "ledger")))
        res = vf_verify_shared(doc, out);
    else
        res = mode == VF_MODE_LEDGER ? vf_verify_ledger(doc, out)
                                     : vf_verify_combat(doc, out);
    json_decref(doc);
    return res;
}
