/*
 * registry.c: the combat systems this build knows; see registry.h.
 */
#include "registry.h"
#include "civ.h"
#include "edna.h"
#include "matrix.h"
#include "scrud.h"
#include "scs.h"

#include <string.h>

const registry_system *const registry_systems[] = {
    &scrud_system, &edna_system, &scs_system, &matrix_system, &civ_system,
};
const size_t registry_n_systems =
    sizeof registry_systems / sizeof registry_systems[0];

const registry_system *registry_find(const char *name)
{
    size_t i;

    for (i = 0; i < registry_n_systems; i++)
        if (strcmp(registry_systems[i]->name, name) == 0)
            return registry_systems[i];
    return NULL;
}
