/*
 * main.c: umpire-verify, the command line of the standalone dice verifier
 * (verifier/README.md).  It parses the arguments and hands the file to
 * vf_verify.c; the exit code is the check's vf_result.
 */
#include <stdio.h>
#include <string.h>

#include "vf_verify.h"

static const char usage[] =
    "usage: umpire-verify [--ledger] FILE\n"
    "\n"
    "Checks an umpire combat report (GET /v1/combats/{id}) or, with\n"
    "--ledger, a campaign ledger (GET /v1/campaigns/{id}/ledger), using its\n"
    "own SHA-256, HMAC-SHA256 and ChaCha20; a share link's answer\n"
    "(GET /v1/shared/{secret}, the share page's JSON) is checked as one,\n"
    "its report's dice and its ledger, either way.  FILE - reads standard\n"
    "input.\n"
    "\n"
    "exit codes:\n"
    "  0  everything that can be checked was checked and holds\n"
    "  1  a die, a commitment or a link of the chain does not match\n"
    "  2  unusable input: unreadable, not JSON, fields missing or malformed\n"
    "  3  nothing to verify: entered dice, or seeds not yet revealed\n";

int main(int argc, char **argv)
{
    vf_mode mode = VF_MODE_COMBAT;
    const char *path = NULL;
    int i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--ledger") == 0) {
            mode = VF_MODE_LEDGER;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "umpire-verify: unknown option %s\n\n%s", argv[i],
                    usage);
            return VF_BAD_INPUT;
        } else if (path == NULL) {
            path = argv[i];
        } else {
            fprintf(stderr, "umpire-verify: one file at a time\n\n%s", usage);
            return VF_BAD_INPUT;
        }
    }
    if (path == NULL) {
        fputs(usage, stderr);
        return VF_BAD_INPUT;
    }
    return (int)vf_verify_path(path, mode, stdout);
}
