/*
 * registry.h: the table of combat systems.
 *
 * Each system's rules are one core file exporting one descriptor: its name
 * as it appears in URLs and reports, and resolve/cleanup entry points that
 * take its own input and result structs through void pointers.  Adding a
 * system's rules means one new core file and one line in registry.c; the
 * server pairs it with an entry of its own table of systems
 * (server/systems/systems.h: the system's folder server/systems/<system>/
 * with its JSON, stages and report, one line in systems.c) and its routes
 * (server/http/router.c).  /v1/systems lists this table; the server's
 * table keeps its order, and replay finds a stored combat's system there
 * by this name.
 */
#ifndef UMPIRE_REGISTRY_H
#define UMPIRE_REGISTRY_H

#include <stddef.h>

#include "dice.h"
#include "err.h"

typedef struct registry_system {
    const char *name;   /* e.g. "scrud": URL segment and report label */
    const char *title;  /* human name */
    const char *rules;  /* the rules document for users */
    size_t input_size;  /* sizeof the system's input struct */
    size_t result_size; /* sizeof the system's result struct */
    /* Resolves input with dice into result (which must then be released
     * with result_cleanup, also on failure). */
    err_code (*resolve)(const void *input, dice_source *dice, void *result,
                        err_info *e);
    void (*result_cleanup)(void *result);
} registry_system;

/* The systems, in the order they were added. */
extern const registry_system *const registry_systems[];
extern const size_t registry_n_systems;

/* The system called name, or NULL (borrowed, static). */
const registry_system *registry_find(const char *name);

#endif
