/*
 * systems.c: the table of systems on the server side; see systems.h.
 */
#include "systems.h"

#include <string.h>

const systems_entry *const systems_table[] = {
    &scrud_stages, &edna_stages, &scs_stages, &matrix_stages, &civ_stages,
};
const size_t systems_n = sizeof systems_table / sizeof systems_table[0];

const systems_entry *systems_find(const char *name)
{
    size_t i;

    for (i = 0; name && i < systems_n; i++)
        if (strcmp(systems_table[i]->rules->name, name) == 0)
            return systems_table[i];
    return NULL;
}

const char *systems_name(const systems_entry *s)
{
    return s->rules->name;
}
