/*
 * main.c: the umpire command: settings from defaults, UMPIRE_DB, a config
 * file and flags (later ones win; the allowed CORS origins add up within
 * the file and within the flags, and flags replace the file's), then serve
 * until SIGTERM or SIGINT and shut down gracefully.
 */
#include "discord_commands.h"
#include "http.h"
#include "ledgers.h"
#include "pipeline.h"
#include "version.h"

#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>
#include <sodium.h>
#ifdef UMPIRE_MIMALLOC
#include <mimalloc.h>
#endif

/* The allocator serving malloc and free, as the start-up log names it:
 * mimalloc only where a block malloc gives is its (tests/durability.sh
 * checks the release build says so). */
static const char *allocator_name(void)
{
#ifdef UMPIRE_MIMALLOC
    static char name[80];
    int v = mi_version(); /* e.g. 209 for 2.0.9 */
    void *p = malloc(16);
    bool is_mi = p != NULL && mi_is_in_heap_region(p);

    free(p);
    snprintf(name, sizeof name, "%smimalloc %d.%d.%d%s",
             is_mi ? "" : "another's (", v / 100, v / 10 % 10, v % 10,
             is_mi ? "" : " is linked, but malloc is not its)");
    return name;
#else
    return "glibc malloc";
#endif
}

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: umpire [options]\n"
        "       umpire discord-commands   print the Discord command\n"
        "                                 definitions (docs/discord.md)\n"
        "       umpire backup DEST [--db PATH] [--config FILE]\n"
        "       umpire migrate [--db PATH_OR_URL] [--config FILE]\n"
        "       umpire copy-sqlite SRC.db [--db URL] [--config FILE]\n"
        "\n"
        "Serves the umpire REST API (see README.md and "
        "api-spec/openapi.yaml).\n"
        "The backup command copies the database (found as the server finds\n"
        "it) to the new file DEST while the server runs (docs/operations.md).\n"
        "The migrate command brings the database (found alike) to this\n"
        "build's schema, as the server does when it starts, and says its\n"
        "version before and after.  The copy-sqlite command copies the\n"
        "SQLite database SRC.db (migrated first) into the PostgreSQL\n"
        "database found alike (postgresql://...), which must hold no\n"
        "umpire data, in one transaction, then verifies every campaign's\n"
        "ledger there; stop the server first.\n"
        "\n"
        "  --config FILE              read settings from FILE (key = value)\n"
        "  --listen ADDR              address to listen on (127.0.0.1)\n"
        "  --port N                   TCP port, 0 for any free one (8080)\n"
        "  --db PATH                  SQLite database file "
        "(data/umpire.db, or $UMPIRE_DB),\n"
        "                             or a PostgreSQL URL (postgresql://...)\n"
        "  --threads N                HTTP worker threads (2)\n"
        "  --read-threads N           threads of long reads: reports,\n"
        "                             ledger checks, shared links (2)\n"
        "  --read-queue N             long reads waiting at most, then\n"
        "                             503 busy (64)\n"
        "  --odds-threads N           threads of the odds, apart (2)\n"
        "  --odds-queue N             odds waiting at most, then 503 busy\n"
        "                             (64)\n"
        "  --stream-stall-timeout SEC cut a streamed answer (an export,\n"
        "                             live events) whose client takes\n"
        "                             under 64 KiB in SEC while it is\n"
        "                             half full or more (60)\n"
        "  --export-time-limit SEC    cut a ledger's export or a shared\n"
        "                             link's ledger still streaming after\n"
        "                             SEC, 0 for never (3600)\n"
        "  --connection-timeout SEC   close a connection silent for SEC (30)\n"
        "  --connection-limit N       open connections at most (1024)\n"
        "  --request-timeout SEC      a whole request (line, headers, body)\n"
        "                             must arrive within SEC (10)\n"
        "  --keepalive-timeout SEC    close a kept-alive connection idle\n"
        "                             for SEC between requests (15)\n"
        "  --per-ip-connection-limit N  open connections from one address\n"
        "                             at most, 0 for no limit (256)\n"
        "  --idle-close-percent P     with P%% of the connection limit open,\n"
        "                             close idle kept-alive connections,\n"
        "                             longest idle first; 0 never (90)\n"
        "  --stop-timeout SEC         on SIGTERM, wait SEC at most for\n"
        "                             requests in flight (10)\n"
        "  --body-limit BYTES         largest request body (65536)\n"
        "  --events-limit N           live event streams open at most,\n"
        "                             service-wide (256; a token's: 4)\n"
        "  --events-keepalive SEC     a keep-alive comment on a stream\n"
        "                             after SEC without an event (15)\n"
        "  --access-log DEST          - (stderr), a file, or off (-)\n"
        "  --cors-origin ORIGINS      let web pages of these origins call\n"
        "                             the API (scheme://host[:port], comma-\n"
        "                             separated or repeated; * for any;\n"
        "                             none by default)\n"
        "  --discord-api-base URL     where channel posts go\n"
        "                             (https://discord.com/api)\n"
        "  --discord-timeout-ms MS    one try of a post at most (5000)\n"
        "  --discord-attempts N       tries of a post before it fails (5)\n"
        "  --discord-backoff-ms MS    the wait after a first failed try,\n"
        "                             doubled after each (1000)\n"
        "  --discord-backlog N        a campaign's posts waiting at most\n"
        "                             (100; the oldest beyond are dropped)\n"
        "  --discord-public-key HEX   the Discord application's public key\n"
        "  --discord-application-id ID  its id; with both, POST\n"
        "                             /v1/discord/interactions is on\n"
        "  --help                     this text\n"
        "  --version                  the version\n"
        "\n"
        "Flags override the config file, which overrides UMPIRE_DB;\n"
        "cors_origin lines add up, and --cors-origin flags replace them.\n"
        "SIGTERM or SIGINT stops it gracefully: requests in flight finish\n"
        "and the database is closed cleanly.\n");
}

/* Kept alive for the whole run: settings point into these (one per line
 * of the file; cors_origin lines may be many). */
#define MAX_CONFIG_LINES 64
static char *config_strings[MAX_CONFIG_LINES];
static int n_config_strings;

static int parse_int(const char *key, const char *v, long lo, long hi,
                     long *out)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < lo || n > hi) {
        fprintf(stderr,
                "umpire: %s must be a number from %ld to %ld, not "
                "\"%s\"\n",
                key, lo, hi, v);
        return -1;
    }
    *out = n;
    return 0;
}

/* The settings of the live event streams (docs/events.md), k spelled
 * with _: 1 when applied, 0 when k is none of them, -1 when v is bad. */
static int apply_events(http_config *cfg, const char *k, const char *key,
                        const char *v)
{
    long n;

    if (strcmp(k, "events_limit") == 0) {
        if (parse_int(key, v, 1, 100000, &n))
            return -1;
        cfg->events_limit = (int)n;
        return 1;
    }
    if (strcmp(k, "events_keepalive") == 0) {
        if (parse_int(key, v, 1, 3600, &n))
            return -1;
        cfg->events_keepalive_ms = (int)n * 1000;
        return 1;
    }
    return 0;
}

/* Applies one setting (key spelled with _ or -). */
static int apply(http_config *cfg, const char *key, const char *v)
{
    char k[64];
    long n;
    size_t i;
    int rc;
    err_info e;

    snprintf(k, sizeof k, "%s", key);
    for (i = 0; k[i]; i++)
        if (k[i] == '-')
            k[i] = '_';
    if ((rc = apply_events(cfg, k, key, v)) != 0)
        return rc < 0 ? -1 : 0;
    if (strcmp(k, "listen") == 0)
        cfg->listen = v;
    else if (strcmp(k, "db") == 0)
        cfg->db_path = v;
    else if (strcmp(k, "access_log") == 0)
        cfg->access_log = v;
    else if (strcmp(k, "cors_origin") == 0) {
        err_clear(&e);
        if (cors_config_add(&cfg->cors, v, &e) != ERR_OK) {
            fprintf(stderr, "umpire: %s: %s\n", key, e.message);
            return -1;
        }
    } else if (strcmp(k, "discord_public_key") == 0 ||
               strcmp(k, "discord_application_id") == 0) {
        bool is_key = strcmp(k, "discord_public_key") == 0;
        err_clear(&e);
        if ((is_key
                 ? discord_verify_config_key(&cfg->discord, v, &e)
                 : discord_verify_config_app(&cfg->discord, v, &e)) != ERR_OK) {
            fprintf(stderr, "umpire: %s: %s\n", key, e.message);
            return -1;
        }
    } else if (strcmp(k, "port") == 0) {
        if (parse_int(key, v, 0, 65535, &n))
            return -1;
        cfg->port = (int)n;
    } else if (strcmp(k, "threads") == 0) {
        if (parse_int(key, v, 1, 64, &n))
            return -1;
        cfg->threads = (int)n;
    } else if (strcmp(k, "read_threads") == 0) {
        if (parse_int(key, v, 1, 64, &n))
            return -1;
        cfg->read_threads = (int)n;
    } else if (strcmp(k, "read_queue") == 0) {
        if (parse_int(key, v, 1, 100000, &n))
            return -1;
        cfg->read_queue = (int)n;
    } else if (strcmp(k, "stream_stall_timeout") == 0) {
        if (parse_int(key, v, 1, 86400, &n))
            return -1;
        cfg->stream_stall_timeout = (int)n;
    } else if (strcmp(k, "export_time_limit") == 0) {
        if (parse_int(key, v, 0, 604800, &n))
            return -1;
        cfg->export_time_limit = (int)n;
    } else if (strcmp(k, "odds_threads") == 0) {
        if (parse_int(key, v, 1, 64, &n))
            return -1;
        cfg->odds_threads = (int)n;
    } else if (strcmp(k, "odds_queue") == 0) {
        if (parse_int(key, v, 1, 100000, &n))
            return -1;
        cfg->odds_queue = (int)n;
    } else if (strcmp(k, "connection_timeout") == 0) {
        if (parse_int(key, v, 1, 3600, &n))
            return -1;
        cfg->connection_timeout = (int)n;
    } else if (strcmp(k, "connection_limit") == 0) {
        if (parse_int(key, v, 1, 100000, &n))
            return -1;
        cfg->connection_limit = (int)n;
    } else if (strcmp(k, "request_timeout") == 0) {
        if (parse_int(key, v, 1, 3600, &n))
            return -1;
        cfg->request_timeout = (int)n;
    } else if (strcmp(k, "keepalive_timeout") == 0) {
        if (parse_int(key, v, 1, 3600, &n))
            return -1;
        cfg->keepalive_timeout = (int)n;
    } else if (strcmp(k, "per_ip_connection_limit") == 0) {
        if (parse_int(key, v, 0, 100000, &n))
            return -1;
        cfg->per_ip_connection_limit = (int)n;
    } else if (strcmp(k, "idle_close_percent") == 0) {
        if (parse_int(key, v, 0, 100, &n))
            return -1;
        cfg->idle_close_percent = (int)n;
    } else if (strcmp(k, "stop_timeout") == 0) {
        if (parse_int(key, v, 1, 3600, &n))
            return -1;
        cfg->stop_timeout = (int)n;
    } else if (strcmp(k, "body_limit") == 0) {
        if (parse_int(key, v, 1024, 16L * 1024 * 1024, &n))
            return -1;
        cfg->body_limit = (size_t)n;
    } else if (strcmp(k, "discord_api_base") == 0) {
        cfg->notify.api_base = v; /* checked by http_start */
    } else if (strcmp(k, "discord_timeout_ms") == 0) {
        if (parse_int(key, v, 100, 600000, &n))
            return -1;
        cfg->notify.timeout_ms = (int)n;
    } else if (strcmp(k, "discord_attempts") == 0) {
        if (parse_int(key, v, 1, 100, &n))
            return -1;
        cfg->notify.max_attempts = (int)n;
    } else if (strcmp(k, "discord_backoff_ms") == 0) {
        if (parse_int(key, v, 1, 3600000, &n))
            return -1;
        cfg->notify.backoff_ms = (int)n;
        if (cfg->notify.backoff_max_ms < n)
            cfg->notify.backoff_max_ms = (int)n;
    } else if (strcmp(k, "discord_backlog") == 0) {
        if (parse_int(key, v, 1, 100000, &n))
            return -1;
        cfg->notify.backlog = (int)n;
    } else {
        fprintf(stderr, "umpire: unknown setting \"%s\"\n", key);
        return -1;
    }
    return 0;
}

static char *trim(char *s)
{
    char *end;

    while (*s == ' ' || *s == '\t')
        s++;
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' ||
                       end[-1] == '\r'))
        *--end = '\0';
    return s;
}

static int load_config(http_config *cfg, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int lineno = 0;

    if (f == NULL) {
        fprintf(stderr, "umpire: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char *s = trim(line), *eq, *v;
        lineno++;
        if (*s == '\0' || *s == '#')
            continue;
        eq = strchr(s, '=');
        if (eq == NULL || n_config_strings == MAX_CONFIG_LINES) {
            fprintf(stderr, "umpire: %s:%d: %s\n", path, lineno,
                    eq ? "too many settings" : "expected key = value");
            fclose(f);
            return -1;
        }
        *eq = '\0';
        v = strdup(trim(eq + 1));
        if (v == NULL) {
            fclose(f);
            return -1;
        }
        config_strings[n_config_strings++] = v;
        if (apply(cfg, trim(s), v)) {
            fprintf(stderr, "umpire: in %s:%d\n", path, lineno);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    return 0;
}

/* Creates the database's directory if it is missing (one level). */
static int ensure_dir(const char *db_path)
{
    char dir[PATH_MAX];
    char *slash;

    if (!db_is_file(db_path))
        return 0; /* a database server's URL */
    snprintf(dir, sizeof dir, "%s", db_path);
    slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir)
        return 0;
    *slash = '\0';
    if (mkdir(dir, 0750) == 0 || errno == EEXIST)
        return 0;
    fprintf(stderr, "umpire: cannot create %s: %s\n", dir, strerror(errno));
    return -1;
}

static void free_config_strings(void)
{
    while (n_config_strings > 0)
        free(config_strings[--n_config_strings]);
}

/*
 * umpire backup DEST [--db PATH] [--config FILE]: an online, consistent
 * copy of the database, found as the server finds it (--db, the config
 * file's db, UMPIRE_DB, the default), into DEST, which must not exist
 * (db_backup).  Exit status 0 once DEST is complete and on disk.
 */
static int backup_main(int argc, char **argv)
{
    http_config cfg;
    const char *dest = NULL, *db_flag = NULL;
    db_backup_info info;
    err_info e;
    int i, status = 1;

    http_config_default(&cfg);
    if (getenv("UMPIRE_DB") && getenv("UMPIRE_DB")[0])
        cfg.db_path = getenv("UMPIRE_DB");
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            status = 0;
            goto out;
        }
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
            db_flag = argv[++i];
        else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            if (load_config(&cfg, argv[++i]))
                goto out;
        } else if (argv[i][0] != '-' && dest == NULL)
            dest = argv[i];
        else {
            fprintf(stderr, "umpire backup: unexpected argument \"%s\"\n",
                    argv[i]);
            dest = NULL;
            break;
        }
    }
    if (dest == NULL) {
        fprintf(stderr,
                "usage: umpire backup DEST [--db PATH] [--config FILE]\n");
        goto out;
    }
    if (db_flag)
        cfg.db_path = db_flag;
    err_clear(&e);
    if (db_backup(cfg.db_path, dest, &info, &e) != ERR_OK) {
        fprintf(stderr, "umpire backup: %s\n", e.message);
        goto out;
    }
    printf("umpire backup: copied %s to %s in %.2f s: schema version %d, "
           "%lld bytes, %lld campaigns, %lld combats\n",
           cfg.db_path, dest, info.seconds, info.schema_version, info.size,
           info.n_campaigns, info.n_combats);
    status = 0;
out:
    free_config_strings();
    return status;
}

/*
 * The settings of a subcommand, umpire NAME [ARG] [--db PATH] [--config
 * FILE]: the database found as the server finds it (--db, the config
 * file's db, UMPIRE_DB, the default) into cfg->db_path, and the one
 * other argument into *arg (NULL when none).  0 to go on; 1 when --help
 * was answered; -1 on a bad argument (said).
 */
static int sub_settings(int argc, char **argv, http_config *cfg,
                        const char **arg)
{
    const char *db_flag = NULL;
    int i;

    http_config_default(cfg);
    if (getenv("UMPIRE_DB") && getenv("UMPIRE_DB")[0])
        cfg->db_path = getenv("UMPIRE_DB");
    *arg = NULL;
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 1;
        }
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
            db_flag = argv[++i];
        else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            if (load_config(cfg, argv[++i]))
                return -1;
        } else if (argv[i][0] != '-' && *arg == NULL)
            *arg = argv[i];
        else {
            fprintf(stderr, "umpire %s: unexpected argument \"%s\"\n", argv[1],
                    argv[i]);
            return -1;
        }
    }
    if (db_flag)
        cfg->db_path = db_flag;
    return 0;
}

/*
 * umpire migrate [--db PATH_OR_URL] [--config FILE]: brings the database
 * to this build's schema (db_open runs the migrations that are pending;
 * several at once on one PostgreSQL database take turns), and says its
 * schema version before and after.  Exit status 0 once it is current.
 */
static int migrate_main(int argc, char **argv)
{
    http_config cfg;
    const char *arg;
    db *d = NULL;
    err_info e;
    int before = 0, after, rc, status = 1;

    if ((rc = sub_settings(argc, argv, &cfg, &arg)) != 0 || arg != NULL) {
        if (rc == 0)
            fprintf(stderr, "usage: umpire migrate [--db PATH_OR_URL] "
                            "[--config FILE]\n");
        status = rc > 0 ? 0 : 1;
        goto out;
    }
    err_clear(&e);
    if (ensure_dir(cfg.db_path))
        goto out;
    if (db_schema_version_at(cfg.db_path, &before, &e) != ERR_OK ||
        db_open(cfg.db_path, 1, &d, &e) != ERR_OK) {
        fprintf(stderr, "umpire migrate: %s\n", e.message);
        goto out;
    }
    after = db_schema_version(d);
    if (db_close(d) != ERR_OK) {
        fprintf(stderr, "umpire migrate: the database did not close cleanly\n");
        goto out;
    }
    printf("umpire migrate: %s: schema version %d before, %d after (%s)\n",
           cfg.db_path, before, after,
           before == after ? "nothing to do" : "migrated");
    status = 0;
out:
    free_config_strings();
    return status;
}

/* ---- copy-sqlite: the ledgers checked once copied ---- */

/* Campaign c's ledger checked as GET .../ledger/verify checks it
 * (ledgers_problems): why, its first problem, "" for none. */
static err_code check_ledger(db_conn *c, const char *id, char *why,
                             size_t n_why, err_info *e)
{
    json_t *problems = NULL;
    err_code rc = ledgers_problems(c, id, &problems, e);

    why[0] = '\0';
    if (rc == ERR_OK && json_array_size(problems) > 0)
        snprintf(why, n_why, "%s",
                 json_string_value(
                     json_object_get(json_array_get(problems, 0), "problem")));
    json_decref(problems);
    return rc;
}

/* Every copied campaign's ledger checked on the store at url: the number
 * that verify, or -1 when the store cannot be read.  Those that do not
 * are said. */
static long long verify_ledgers(const char *url, const db_copy_info *info)
{
    db *d = NULL;
    db_conn *c;
    char why[320];
    long long n_ok = 0;
    err_info e;
    size_t i;

    err_clear(&e);
    if (db_open(url, 1, &d, &e) != ERR_OK) {
        fprintf(stderr, "umpire copy-sqlite: %s\n", e.message);
        return -1;
    }
    for (i = 0; i < info->n_campaigns; i++) {
        const char *id = info->campaign_ids[i];
        err_code rc = db_read_begin(d, &c, &e);
        if (rc == ERR_OK) {
            rc = check_ledger(c, id, why, sizeof why, &e);
            db_read_end(d, c, rc == ERR_OK ? &e : NULL);
        }
        if (rc != ERR_OK || e.code != ERR_OK) {
            fprintf(stderr, "umpire copy-sqlite: campaign %s: %s\n", id,
                    e.message);
            n_ok = -1;
            break;
        }
        if (why[0])
            fprintf(stderr,
                    "umpire copy-sqlite: campaign %s: its ledger does not "
                    "verify: %s\n",
                    id, why);
        else
            n_ok++;
    }
    db_close(d);
    return n_ok;
}

/*
 * umpire copy-sqlite SRC.db [--db URL] [--config FILE]: copies the SQLite
 * database SRC.db into the PostgreSQL database found as the server finds
 * it (db_copy: all or nothing, into one that holds no umpire data), then
 * checks every campaign's ledger there.  Exit status 0 when the copy is
 * committed and every ledger verifies.
 */
static int copy_main(int argc, char **argv)
{
    http_config cfg;
    const char *src;
    db_copy_info info;
    long long n_ok;
    err_info e;
    int i, rc, status = 1;

    if ((rc = sub_settings(argc, argv, &cfg, &src)) != 0 || src == NULL) {
        if (rc == 0)
            fprintf(stderr, "usage: umpire copy-sqlite SRC.db [--db URL] "
                            "[--config FILE]\n");
        status = rc > 0 ? 0 : 1;
        goto out;
    }
    err_clear(&e);
    if (db_copy(src, cfg.db_path, &info, &e) != ERR_OK) {
        fprintf(stderr, "umpire copy-sqlite: nothing was copied: %s\n",
                e.message);
        goto out;
    }
    printf("umpire copy-sqlite: copied %s into %s in %.2f s (schema version "
           "%d):\n",
           src, cfg.db_path, info.seconds, info.schema_version);
    for (i = 0; i < info.n_tables; i++)
        printf("  %-22s %lld rows\n", info.tables[i].name,
               info.tables[i].n_rows);
    n_ok = verify_ledgers(cfg.db_path, &info);
    if (n_ok >= 0)
        printf("umpire copy-sqlite: %lld of %zu ledgers verified\n", n_ok,
               info.n_campaigns);
    if (n_ok == (long long)info.n_campaigns)
        status = 0;
    else
        fprintf(stderr, "umpire copy-sqlite: the copy is committed, but not "
                        "every ledger verified there\n");
    db_copy_info_free(&info);
out:
    free_config_strings();
    return status;
}

/* Runs the subcommand argv[1] names: its exit status, or -1 when argv[1]
 * names none. */
static int subcommand_main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "backup") == 0)
        return backup_main(argc, argv);
    if (argc > 1 && strcmp(argv[1], "migrate") == 0)
        return migrate_main(argc, argv);
    if (argc > 1 && strcmp(argv[1], "copy-sqlite") == 0)
        return copy_main(argc, argv);
    return -1;
}

/* Where the campaign combats since the start were worked out (the writer
 * only writes what a request worker worked out, but for those it worked
 * out again: docs/operations.md), for the log; bench/run.sh shows it. */
static void log_campaign_combats(void)
{
    long long landed, redone;

    pipeline_stats(&landed, &redone);
    if (landed + redone > 0)
        fprintf(stderr,
                "umpire: campaign combats since the start: %lld worked out "
                "off the writer (%lld of them ahead of others of their "
                "campaign in flight), %lld worked out again by the writer\n",
                landed, pipeline_n_ahead(), redone);
}

int main(int argc, char **argv)
{
    http_config cfg;
    http_server *srv = NULL;
    sigset_t sigs;
    err_info e, closed;
    int i, sig, status = 1;
    bool has_cors_flag = false;

    if ((status = subcommand_main(argc, argv)) >= 0)
        return status;
    status = 1;
    http_config_default(&cfg);
    if (getenv("UMPIRE_DB") && getenv("UMPIRE_DB")[0])
        cfg.db_path = getenv("UMPIRE_DB");
    if (argc == 2 && strcmp(argv[1], "discord-commands") == 0) {
        json_t *defs = discord_commands_json();
        json_dumpf(defs, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(defs);
        return 0;
    }
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("umpire %s\n", UMPIRE_VERSION);
            return 0;
        }
    }
    for (i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--config") == 0 && load_config(&cfg, argv[i + 1]))
            goto out;
    for (i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) != 0 || i + 1 >= argc) {
            fprintf(stderr, "umpire: unexpected argument \"%s\"\n", argv[i]);
            usage(stderr);
            goto out;
        }
        /* The first --cors-origin drops the configuration file's list. */
        if (!has_cors_flag && (strcmp(argv[i], "--cors-origin") == 0 ||
                               strcmp(argv[i], "--cors_origin") == 0)) {
            cors_config_init(&cfg.cors);
            has_cors_flag = true;
        }
        if (strcmp(argv[i], "--config") != 0 &&
            apply(&cfg, argv[i] + 2, argv[i + 1]))
            goto out;
        i++;
    }
#ifndef UMPIRE_MIMALLOC
    /* Keep freed memory in glibc's arenas: a busy server would otherwise
     * give it back and take it again (an mprotect each time).  (mimalloc,
     * the release build's allocator (Makefile, ALLOC_LIBS), keeps freed
     * pages a while by itself.) */
    mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
    mallopt(M_TOP_PAD, 4 * 1024 * 1024);
#endif
    if (sodium_init() < 0) {
        fprintf(stderr, "umpire: libsodium failed to start\n");
        goto out;
    }
    if (ensure_dir(cfg.db_path))
        goto out;
    /* Block the stop signals in every thread; main waits for them. */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    err_clear(&e);
    if (http_start(&cfg, &srv, &e) != ERR_OK) {
        fprintf(stderr, "umpire: %s\n", e.message);
        goto out;
    }
    /* Before the line that says the server is up, which scripts wait
     * for (tests/durability.sh reads this one). */
    fprintf(stderr, "umpire: allocator %s\n", allocator_name());
    fprintf(stderr, "umpire %s listening on http://%s:%d (database %s)\n",
            UMPIRE_VERSION, cfg.listen, http_port(srv), cfg.db_path);
    if (cfg.cors.is_any)
        fprintf(stderr, "umpire: CORS: web pages of any origin may call the "
                        "API\n");
    if (discord_verify_is_on(&cfg.discord))
        fprintf(stderr,
                "umpire: Discord: interactions of application %s at "
                "POST /v1/discord/interactions\n",
                cfg.discord.application_id);
    else
        fprintf(stderr, "umpire: Discord: the interactions endpoint is off "
                        "(no discord_public_key and discord_application_id)\n");
    for (i = 0; i < cfg.cors.n_origins; i++)
        fprintf(stderr, "umpire: CORS: web pages of %s may call the API\n",
                cfg.cors.origins[i]);
    sigwait(&sigs, &sig);
    fprintf(stderr, "umpire: %s received, stopping\n",
            sig == SIGTERM ? "SIGTERM" : "SIGINT");
    /* The database's final checkpoint says whether it closed cleanly. */
    db_close_report(http_db(srv), &closed);
    if (!http_stop(srv)) { /* it said why */
        fprintf(stderr, "umpire: stopped without closing the database\n");
        goto out;
    }
    log_campaign_combats();
    if (closed.code != ERR_OK)
        fprintf(stderr, "umpire: stopped; %s\n", closed.message);
    else
        fprintf(stderr, "umpire: stopped cleanly\n");
    status = 0;
out:
    free_config_strings();
    return status;
}
