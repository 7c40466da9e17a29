/*
 * battles.h: the routes of interactive battles (battles.c), dispatched to
 * the battle handlers of their system (systems.h).
 */
#ifndef UMPIRE_BATTLES_H
#define UMPIRE_BATTLES_H

#include "http.h"

/* POST .../battles: a new battle of the body's "system" (Matrix unless
 * it says). */
void battles_create(http_request *r);
/* GET .../battles: the campaign's battles, oldest first. */
void battles_list(http_request *r);
/* GET .../battles/{bid}: the battle as it stands. */
void battles_get(http_request *r);
/* POST .../battles/{bid}/actions: the next action, checked and applied. */
void battles_action(http_request *r);

#endif
