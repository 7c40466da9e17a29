/*
 * deadline.h: the clock the service's timed waits run on
 * (CLOCK_MONOTONIC: their condition variables are made with it,
 * pthread_condattr_setclock), read as seconds for durations and limits,
 * and a time some milliseconds from now, as pthread_cond_timedwait takes
 * it.  The writer's (db.c) and the server's (the connections' reaper and
 * time limits, a campaign's combats waiting for each other, the odds'
 * time bound, the poster's retries) share it; it is here, not in core/,
 * which reads no clock.
 */
#ifndef UMPIRE_DEADLINE_H
#define UMPIRE_DEADLINE_H

#include <time.h>

/* The monotonic clock's now, in seconds (from an arbitrary start: only
 * differences mean anything), and in milliseconds. */
static inline double monotonic_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static inline double monotonic_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

/* The monotonic clock's now plus ms milliseconds (ms >= 0). */
static inline struct timespec deadline_in_ms(long ms)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

#endif
