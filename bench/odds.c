/*
 * odds.c: the time and peak memory of typical odds requests
 * (bench/README.md, "Odds"; docs/odds.md).  Each request is a JSON body
 * as POST /v1/odds/{system} takes it, answered by pipeline_odds (the
 * handler's own path: the system's read stage, core/odds_<system>.c, the
 * answer written as JSON), in a child process of its own so that its peak
 * resident memory (getrusage, ru_maxrss) is its own; a child that does
 * nothing gives the baseline.  The best and the median of N runs.
 *
 *   build/bench-odds [N]      (runs per request, 5 unless said)
 */
#define _GNU_SOURCE
#include "pipeline.h"
#include "systems.h"

#include <jansson.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct request {
    const char *name;
    const char *system;
    const char *body;
} request;

static const request requests[] = {
    {"SCRUD 8 v 4 of d6, exact", "scrud",
     "{\"sides\": [{\"name\": \"red\", \"units\": [{\"name\": \"R1\"}, "
     "{\"name\": \"R2\"}, {\"name\": \"R3\"}, {\"name\": \"R4\"}, "
     "{\"name\": \"R5\"}, {\"name\": \"R6\"}, {\"name\": \"R7\"}, "
     "{\"name\": \"R8\"}]}, {\"name\": \"blue\", \"units\": [{\"name\": "
     "\"B1\", \"quality\": 1}, {\"name\": \"B2\", \"quality\": 1}, "
     "{\"name\": \"B3\", \"quality\": 1}, {\"name\": \"B4\", \"quality\": "
     "1}]}], \"odds\": {\"method\": \"exact\"}}"},
    {"SCRUD 8 v 4, every unit different", "scrud",
     "{\"sides\": [{\"name\": \"red\", \"units\": [{\"name\": \"R1\", "
     "\"quality\": 1}, {\"name\": \"R2\"}, {\"name\": \"R3\", \"quality\": "
     "-1}, {\"name\": \"R4\", \"defeat_penalty\": 1}, {\"name\": \"R5\", "
     "\"faces\": 8}, {\"name\": \"R6\", \"reserve\": true}, {\"name\": "
     "\"R7\", \"quality\": 2}, {\"name\": \"R8\", \"fatigue_penalty\": "
     "1}]}, {\"name\": \"blue\", \"units\": [{\"name\": \"B1\", "
     "\"quality\": 1}, {\"name\": \"B2\"}, {\"name\": \"B3\", \"faces\": "
     "8}, {\"name\": \"B4\", \"reserve\": true}]}]}"},
    {"EDNA volley of 10, 2d6, 5 tests ahead", "edna",
     "{\"units\": [{\"name\": \"A\"}, {\"name\": \"B\", \"edna\": 7}, "
     "{\"name\": \"C\", \"edna\": 6}, {\"name\": \"D\", \"edna\": 5}, "
     "{\"name\": \"E\", \"edna\": 4}, {\"name\": \"F\", \"modifier\": 1}, "
     "{\"name\": \"G\", \"modifier\": -1}, {\"name\": \"H\", \"edna\": 3}, "
     "{\"name\": \"I\", \"edna\": 2}, {\"name\": \"J\", \"edna\": 1}], "
     "\"odds\": {\"tests_ahead\": 5}}"},
    {"SCS 2 v 1 on the example table", "scs",
     "{\"table\": \"example-2d6\", \"attackers\": [{\"name\": \"P\", "
     "\"attack\": 7, \"defense\": 5}, {\"name\": \"G\", \"attack\": 3, "
     "\"defense\": 4}], \"defenders\": [{\"name\": \"R\", \"attack\": 2, "
     "\"defense\": 3, \"multipliers\": [2]}]}"},
    {"Matrix battle of three combats, a reserve", "matrix",
     "{\"attacker\": {\"name\": \"blue\", \"units\": [{\"name\": \"B1\"}, "
     "{\"name\": \"B2\", \"quality\": 1}, {\"name\": \"B3\"}, {\"name\": "
     "\"B4\"}, {\"name\": \"B5\", \"quality\": -1}]}, \"defender\": "
     "{\"name\": \"red\", \"units\": [{\"name\": \"R1\", \"quality\": 1}, "
     "{\"name\": \"R2\"}, {\"name\": \"R3\"}]}, \"line\": [{\"attacker\": "
     "[\"B1\", \"B2\"], \"defender\": [\"R1\"]}, {\"attacker\": [\"B3\"], "
     "\"defender\": [\"R2\"]}, {\"attacker\": [\"B4\"], \"defender\": "
     "[\"R3\"]}], \"commits\": [{\"combat\": 2, \"army\": \"attacker\", "
     "\"unit\": \"B5\"}]}"},
    {"Civilization phase, 6 v 6 with aircraft", "civ",
     "{\"current_era\": 3, \"settlement\": true, \"attacker\": {\"name\": "
     "\"red\", \"technologies\": 5, \"units\": [{\"name\": \"a1\", "
     "\"class\": \"infantry\", \"era\": 3, \"bonus\": 1}, {\"name\": "
     "\"a2\", \"class\": \"infantry\", \"era\": 3}, {\"name\": \"a3\", "
     "\"class\": \"cavalry\", \"era\": 2}, {\"name\": \"a4\", \"class\": "
     "\"cavalry\", \"era\": 3}, {\"name\": \"a5\", \"class\": "
     "\"artillery\", \"era\": 2, \"bonus\": 1}, {\"name\": \"a6\", "
     "\"class\": \"artillery\", \"era\": 3}, {\"name\": \"p1\", \"class\": "
     "\"aircraft\", \"era\": 3, \"dice_multiplier\": 2}, {\"name\": \"p2\", "
     "\"class\": \"aircraft\", \"era\": 3, \"dice_multiplier\": 1}]}, "
     "\"defender\": {\"name\": \"blue\", \"technologies\": 2, \"units\": "
     "[{\"name\": \"d1\", \"class\": \"infantry\", \"era\": 2}, {\"name\": "
     "\"d2\", \"class\": \"infantry\", \"era\": 3, \"bonus\": 1}, "
     "{\"name\": \"d3\", \"class\": \"cavalry\", \"era\": 2}, {\"name\": "
     "\"d4\", \"class\": \"artillery\", \"era\": 3}, {\"name\": \"d5\", "
     "\"class\": \"artillery\", \"era\": 2}, {\"name\": \"d6\", \"class\": "
     "\"other\", \"era\": 3}, {\"name\": \"q1\", \"class\": \"aircraft\", "
     "\"era\": 3, \"dice_multiplier\": 2}, {\"name\": \"q2\", \"class\": "
     "\"aircraft\", \"era\": 3, \"dice_multiplier\": 2}]}, \"odds\": "
     "{\"battle\": false}}"},
    {"... and the battle on (sampled, 100,000)", "civ", NULL},
};

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The body of request i (the last one: the one before, battle on). */
static json_t *body_of(size_t i)
{
    json_t *b;

    if (requests[i].body != NULL)
        return json_loads(requests[i].body, 0, NULL);
    b = json_loads(requests[i - 1].body, 0, NULL);
    json_object_set_new(json_object_get(b, "odds"), "battle", json_true());
    return b;
}

/* In a child: runs request i n times and prints its line (i < 0: the
 * baseline, nothing run). */
static void child(int i, int n)
{
    double t[64];
    struct rusage ru;
    json_t *body = NULL, *a = NULL;
    const systems_entry *s = NULL;
    err_info e;
    int k;

    if (i >= 0) {
        body = body_of((size_t)i);
        s = systems_find(requests[i].system);
        for (k = 0; k < n; k++) {
            double t0 = now_ms();
            err_clear(&e);
            json_decref(a);
            a = pipeline_odds(s, body, NULL, NULL, NULL, &e);
            t[k] = now_ms() - t0;
            if (a == NULL) {
                fprintf(stderr, "bench-odds: %s: %s\n", requests[i].name,
                        e.message);
                exit(1);
            }
        }
        qsort(t, (size_t)n, sizeof *t, cmp_double);
    }
    getrusage(RUSAGE_SELF, &ru);
    if (i < 0) {
        printf("%-44s %-5s %-12s %9s %9s %9s %8.1f\n", "(baseline: no request)",
               "", "", "", "", "", ru.ru_maxrss / 1024.0);
    } else {
        json_t *battle = json_object_get(a, "battle");
        bool is_exact = json_is_true(json_object_get(a, "exact"));
        const char *m = json_string_value(
            json_object_get(json_is_object(battle) ? battle : a, "method"));
        printf(
            "%-44s %-5s %-12s %9lld %9.1f %9.1f %8.1f\n", requests[i].name,
            is_exact ? "yes" : "no", m,
            (long long)json_integer_value(json_object_get(a, "resolve_calls")),
            t[0], t[n / 2], ru.ru_maxrss / 1024.0);
    }
    json_decref(a);
    json_decref(body);
    fflush(stdout);
    exit(0);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5, i, status;

    if (n < 1 || n > 64 || sodium_init() < 0) {
        fprintf(stderr, "usage: bench-odds [runs 1..64]\n");
        return 2;
    }
    printf("odds: %d runs per request, each request in a process of its own\n",
           n);
    printf("%-44s %-5s %-12s %9s %9s %9s %8s\n", "request", "exact", "method",
           "calls", "best ms", "median", "peak MB");
    for (i = -1; i < (int)(sizeof requests / sizeof requests[0]); i++) {
        pid_t pid;
        fflush(stdout);
        if ((pid = fork()) == 0)
            child(i, n);
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            return 1;
    }
    return 0;
}
