/* Fuzz target: Windows command-line quoting must round-trip.
 *
 * The input is split at NUL bytes into an argv. sbx_win_command_line() joins
 * it into one command line; reading that line back with CommandLineToArgvW's
 * rules (tests/common/argvw.h, the same reimplementation the unit test uses)
 * must give the argv back exactly: same count, same bytes. The only refusal
 * allowed is a program name holding a double quote. */
#include "fuzz_common.h"

#include "internal.h"
#include "windows/plan.h"

#include "../tests/common/argvw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *storage, *argv[FUZZ_MAX_STRINGS + 1];
    sandbox_error err;
    char *line, **back;
    int n, i;

    fuzz_split(data, size, &storage, argv);
    line = sbx_win_command_line((const char *const *)argv, &err);
    if (!line) {
        FUZZ_CHECK(err.code == SANDBOX_E_INVALID);
        FUZZ_CHECK(strchr(argv[0], '"') != NULL);
        free(storage);
        return 0;
    }
    FUZZ_CHECK(strchr(argv[0], '"') == NULL);
    back = parse_command_line(line, &n);
    for (i = 0; argv[i]; i++) {
        FUZZ_CHECK(i < n);
        FUZZ_CHECK(strcmp(back[i], argv[i]) == 0);
    }
    FUZZ_CHECK(n == i);
    free_args(back, n);
    free(line);
    free(storage);
    return 0;
}
