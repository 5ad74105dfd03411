/* A hosted bot in C for the tests: over stdin/stdout it says hello, answers every request
   (and every error that leaves tries) with its first legal action, and ends at bye. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

static char line[1 << 20];

static const char *after(const char *text, const char *key) {
    const char *at = strstr(text, key);
    if (!at) return NULL;
    at += strlen(key);
    while (*at == ' ' || *at == ':') at++;
    return at;
}

static void answer(const char *message) {
    const char *id = after(message, "\"id\"");
    const char *legal = after(message, "\"legal\"");
    if (!id || !legal || *id < '0' || *id > '9') return;
    const char *start = strchr(legal, '"');
    if (!start) return;
    const char *end = strchr(start + 1, '"');
    if (!end) return;
    printf("{\"type\": \"action\", \"id\": %ld, \"action\": \"%.*s\"}\n", strtol(id, NULL, 10),
           (int)(end - start - 1), start + 1);
    fflush(stdout);
}

int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        const char *type = after(line, "\"type\"");
        if (!type) continue;
        if (!strncmp(type, "\"welcome\"", 9)) {
            puts("{\"type\": \"hello\", \"name\": \"c-bot\"}");
            fflush(stdout);
        } else if (!strncmp(type, "\"request\"", 9) || !strncmp(type, "\"error\"", 7)) {
            if (strstr(line, "\"fatal\": true") || strstr(line, "\"fatal\":true")) return 1;
            answer(line);
        } else if (!strncmp(type, "\"bye\"", 5)) {
            return 0;
        }
    }
    return 0;
}
