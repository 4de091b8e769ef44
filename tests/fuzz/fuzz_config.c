/* libFuzzer harness of the configuration parser: any text either loads or is refused with a
 * message (never a crash, leak or undefined behaviour under ASan + UBSan), and a configuration
 * that loads renders to text that loads back to the same rendering (the `config` a file stores
 * must reproduce the run). The double free of a malformed sweep over a swept key (issue 15) was
 * this harness's first find. Seed corpus: tests/fuzz/config/. Built by `make -f
 * Makefile.workflow fuzz` with clang (-fsanitize=fuzzer,address,undefined). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    cohort_config c;
    char err[1024];
    if (config_load_text(&c, "fuzz.ini", text, err, sizeof err) == 0) {
        char *rendered = config_render(&c);
        cohort_config again;
        if (rendered) {
            if (config_load_text(&again, "rendered", rendered, err, sizeof err) != 0)
                __builtin_trap(); /* the stored configuration would not load */
            char *twice = config_render(&again);
            if (!twice || strcmp(rendered, twice) != 0) __builtin_trap();
            free(twice);
            config_free(&again);
        }
        free(rendered);
        config_free(&c);
    }
    free(text);
    return 0;
}
