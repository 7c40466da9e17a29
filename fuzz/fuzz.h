/*
 * fuzz.h: what the libFuzzer targets (fuzz/fuzz_requests.c,
 * fuzz/fuzz_documents.c) share: dice that repeat from one run of an input
 * to the next, the checks every rendered report must pass, and the
 * seed-writing mode that fuzz/seed.sh drives (fuzz/README.md).
 *
 * A target aborts on anything the service promises never to do: a crash,
 * a leak or undefined behaviour (the sanitizers), and the checks below
 * (fuzz_check fails loudly, with the input's story on stderr, so libFuzzer
 * keeps the input as a crash artifact).
 */
#ifndef UMPIRE_FUZZ_H
#define UMPIRE_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "report.h"

/* libFuzzer's entry points (each target defines them). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Replaces libsodium's random bytes with a stream that restarts for every
 * input (fuzz_dice_reset), so that a seeded combat draws the same server
 * seed each time its input runs and a crash reproduces; then sodium_init.
 * Call once, from LLVMFuzzerInitialize.
 */
void fuzz_init(void);
void fuzz_dice_reset(void);

/* Fails the run (abort) with a message when is_ok is false. */
#define fuzz_check(is_ok, ...)                                                 \
    ((is_ok) ? (void)0 : fuzz_fail(__FILE__, __LINE__, __VA_ARGS__))
void fuzz_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));

/*
 * Renders json with render in both formats and checks each document
 * (fuzz_check_doc).  what names the renderer in a failure.
 */
void fuzz_render_both(const char *what,
                      char *(*render)(const json_t *, report_format),
                      const json_t *json);

/*
 * The checks of a rendered document, text (NUL-terminated): valid UTF-8,
 * no control character but a newline; HTML: only the writer's own tags
 * (report_doc.c), balanced, nothing from the JSON unescaped; Markdown: its
 * code blocks closed.
 */
void fuzz_check_doc(const char *what, const char *text, report_format fmt);

/* True when text[0..len) is valid UTF-8. */
bool fuzz_utf8_ok(const char *text, size_t len);

/*
 * The seed-writing mode: with UMPIRE_FUZZ_EMIT set to a folder, writes
 * selector then len bytes of text there as a new seed of the documents
 * target (named by its hash); otherwise does nothing.
 */
void fuzz_emit(char selector, const char *text, size_t len);
bool fuzz_is_emitting(void);

/* The router's matching (fuzz_router.c): the route of method and
 * path_query ("/path" or "/path?name=value&..."), its parameters cut apart
 * as router_dispatch cuts them, and the query's names against the route's
 * list (router_takes); all checked. */
void fuzz_router_check(const char *method, const char *path_query);
/* Writes a seed for each route: its template with sample parameters and
 * the query parameters it takes. */
void fuzz_router_emit(void);

#endif
