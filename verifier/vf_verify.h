/*
 * vf_verify.h: the checks of umpire-verify (verifier/README.md).
 *
 * A combat report: the server seed against its commitment, then every
 * logged natural re-derived from the seeds in seq order (docs/dice.md).
 * A campaign ledger: the hash chain rebuilt from each entry's fields
 * (docs/ledger.md), its length and head, then every record's dice
 * re-derived from its revealed seed.
 *
 * Each check writes a report for people to out and returns a vf_result,
 * which is also the program's exit code.  The JSON documents are borrowed:
 * nothing here keeps or changes them.
 */
#ifndef UMPIRE_VF_VERIFY_H
#define UMPIRE_VF_VERIFY_H

#include <stdio.h>

#include <jansson.h>

typedef enum vf_result {
    VF_OK = 0,           /* everything checkable was checked and holds */
    VF_MISMATCH = 1,     /* a die, a commitment or a link does not match */
    VF_BAD_INPUT = 2,    /* unreadable, not JSON, fields missing or wrong */
    VF_UNVERIFIABLE = 3, /* nothing wrong, but nothing could be checked */
} vf_result;

typedef enum vf_mode {
    VF_MODE_COMBAT, /* a combat report, or the minimal seeds-and-rolls form */
    VF_MODE_LEDGER, /* a campaign ledger export */
} vf_mode;

/*
 * Checks a combat report (GET /v1/combats/{id}, or a campaign's combat) or
 * the minimal object {"server_seed", "commitment"?, "client_seed", "rolls"}.
 * Entered dice, or a seed not yet revealed, give VF_UNVERIFIABLE.
 */
vf_result vf_verify_combat(const json_t *report, FILE *out);

/*
 * Checks a campaign ledger export (GET /v1/campaigns/{cid}/ledger): the
 * chain, its length and head, then the dice of every record whose seed is
 * revealed.  Records whose seed is not yet revealed, and entered dice, are
 * counted and named but are no error: the result is VF_OK when the chain
 * holds and every revealed seed's dice match, and VF_UNVERIFIABLE only for
 * a ledger with no entries.
 */
vf_result vf_verify_ledger(const json_t *ledger, FILE *out);

/*
 * Checks a share link's answer (GET /v1/shared/{secret}: kind, campaign,
 * report, ledger): a combat's dice as vf_verify_combat does, then its
 * ledger as vf_verify_ledger does, from entry 1 or (a part, ?ledger=own,
 * "after" above 0) from the hash its first entry names, which must be the
 * shared record's own first; a combat's seal (the entry at its
 * ledger.last_pos holds its ledger.hash) and its dice in the ledger, one
 * for one.  Records begun before a part are chained, not re-derived.
 */
vf_result vf_verify_shared(const json_t *doc, FILE *out);

/* Reads path ("-" for stdin) as JSON and checks it as mode says; a share
 * link's answer is checked as one (vf_verify_shared) in either mode. */
vf_result vf_verify_path(const char *path, vf_mode mode, FILE *out);

#endif
