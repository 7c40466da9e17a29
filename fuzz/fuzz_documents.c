/*
 * fuzz_documents.c: the libFuzzer target of everything else a client's
 * bytes reach without a database: combat results tables, the choice of a
 * report's format, the report renderers on any JSON, and the router's
 * path matching.
 *
 * Input: one selector byte, then:
 *   't'  a table document (PUT .../tables/{name}): scs_json_table_parse;
 *        a table it accepts is stored as scs_json_table_doc writes it,
 *        and that text must parse again into the same table;
 *   'f'  "query\naccept" (no newline: no query, all of it Accept; an
 *        empty query: none): report_format_choose; a valid ?format= wins
 *        whatever Accept says;
 *   'c', 'b', 'p'  any JSON, rendered as a combat, a battle, a campaign
 *        report, in both formats (fuzz_check_doc);
 *   'u'  "METHOD /path?query": the route router_dispatch would pick, its
 *        parameters cut apart, the query's names it takes (fuzz_router.c).
 */
#include "fuzz.h"

#include "jsonb.h"
#include "report.h"
#include "scs_json.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    json_t *tables;
    size_t i;

    (void)argc;
    (void)argv;
    fuzz_init();
    if (fuzz_is_emitting()) {
        /* Seeds from the code itself: the built-in tables, the routes. */
        tables = scs_json_builtin_tables();
        for (i = 0; i < json_array_size(tables); i++) {
            char *t = json_dumps(json_array_get(tables, i), JSON_COMPACT);
            fuzz_check(t != NULL, "cannot write a built-in table");
            fuzz_emit('t', t, strlen(t));
            free(t);
        }
        json_decref(tables);
        fuzz_router_emit();
    }
    return 0;
}

static void fuzz_table(const char *text, size_t len)
{
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL), *again;
    scs_table *t = malloc(sizeof *t), *t2 = malloc(sizeof *t2);
    err_info e;
    char *stored;

    fuzz_check(t != NULL && t2 != NULL, "out of memory");
    err_clear(&e);
    if (doc != NULL && scs_json_table_parse(doc, "", t, &e) == ERR_OK) {
        /* As resources/tables.c stores it and reads it back. */
        stored = jsonb_text(scs_json_table_doc(doc, "fuzz-table"));
        fuzz_check(stored != NULL, "the stored table is not JSON");
        again = json_loads(stored, 0, NULL);
        err_clear(&e);
        fuzz_check(again != NULL &&
                       scs_json_table_parse(again, "table", t2, &e) == ERR_OK,
                   "a stored table does not parse again: %s: %s\n%s", e.field,
                   e.message, stored);
        fuzz_check(memcmp(t, t2, sizeof *t) == 0,
                   "a stored table parses into another table:\n%s", stored);
        json_decref(again);
        free(stored);
    }
    json_decref(doc);
    free(t);
    free(t2);
}

static void fuzz_format(const char *text, size_t len)
{
    static const char *const queries[] = {"json", "md", "markdown", "html"};
    static const report_format wants[] = {REPORT_JSON, REPORT_MARKDOWN,
                                          REPORT_MARKDOWN, REPORT_HTML};
    const char *nl = memchr(text, '\n', len);
    char *copy = malloc(len + 1), *query = NULL, *accept = copy;
    report_format f = REPORT_JSON, g = REPORT_JSON;
    size_t i;
    int rc;

    fuzz_check(copy != NULL, "out of memory");
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (nl != NULL) {
        copy[nl - text] = '\0';
        query = copy[0] ? copy : NULL;
        accept = copy + (nl - text) + 1;
    }
    rc = report_format_choose(query, accept, &f);
    fuzz_check(rc == 0 || rc == -1, "report_format_choose returned %d", rc);
    fuzz_check(rc == -1 || f == REPORT_JSON || f == REPORT_MARKDOWN ||
                   f == REPORT_HTML,
               "report_format_choose chose %d", (int)f);
    fuzz_check(rc == 0 || query != NULL, "no ?format=, yet invalid");
    /* Accept alone always gives a format; a valid query wins over it. */
    fuzz_check(report_format_choose(NULL, accept, &g) == 0,
               "an Accept header alone refused: %s", accept);
    for (i = 0; query && i < sizeof queries / sizeof queries[0]; i++)
        if (strcmp(query, queries[i]) == 0)
            fuzz_check(rc == 0 && f == wants[i],
                       "?format=%s gave %d (Accept: %s)", query, (int)f,
                       accept);
    free(copy);
}

static void fuzz_route(const char *text, size_t len)
{
    char *copy = malloc(len + 1), *sp, *path;
    const char *method = "GET";

    fuzz_check(copy != NULL, "out of memory");
    memcpy(copy, text, len);
    copy[len] = '\0'; /* a NUL inside ends the path, as in C it would */
    path = copy;
    if ((sp = strchr(copy, ' ')) != NULL) {
        *sp = '\0';
        method = copy;
        path = sp + 1;
    }
    fuzz_router_check(method, path);
    free(copy);
}

static void fuzz_render(char selector, const char *text, size_t len)
{
    json_t *doc = json_loadb(text, len, JSON_DECODE_ANY, NULL);

    if (doc == NULL)
        return;
    if (selector == 'c')
        fuzz_render_both("combat report", report_combat, doc);
    else if (selector == 'b')
        fuzz_render_both("battle report", report_battle, doc);
    else
        fuzz_render_both("campaign report", report_campaign, doc);
    json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data + 1;

    if (size < 1)
        return 0;
    fuzz_dice_reset();
    switch (data[0]) {
    case 't': fuzz_table(text, size - 1); break;
    case 'f': fuzz_format(text, size - 1); break;
    case 'u': fuzz_route(text, size - 1); break;
    case 'c':
    case 'b':
    case 'p': fuzz_render((char)data[0], text, size - 1); break;
    default: return -1; /* not a selector: keep it out of the corpus */
    }
    return 0;
}
