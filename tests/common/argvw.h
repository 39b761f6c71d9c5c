/* A reimplementation of CommandLineToArgvW's parsing rules, shared by the
 * Windows plan unit test and the quoting fuzzer (fuzz/fuzz_win_quote.c), so
 * both check the quoter against the same reading. Test code only: header-only,
 * file-local functions, allocation failures abort. */
#ifndef SBX_TEST_ARGVW_H
#define SBX_TEST_ARGVW_H

#include <stdlib.h>
#include <string.h>

static void *argvw_alloc(size_t n)
{
    void *p = calloc(n ? n : 1, 1);
    if (!p)
        abort();
    return p;
}

/* ---- CommandLineToArgvW, as documented ----
 * Program name: if it starts with a quote, everything up to the next quote;
 * otherwise up to the first space or tab; backslashes are never special.
 * Later arguments: split on unquoted spaces and tabs; 2n backslashes before a
 * quote give n backslashes and the quote toggles quoting; 2n+1 give n and a
 * literal quote; other backslashes are literal; inside quotes, a doubled
 * quote gives a literal quote. */
static char *argvw_strdup(const char *s)
{
    char *d = argvw_alloc(strlen(s) + 1);
    memcpy(d, s, strlen(s) + 1);
    return d;
}

static char **parse_command_line(const char *s, int *argc)
{
    char **out = argvw_alloc((strlen(s) + 2) * sizeof *out);
    char *cur = argvw_alloc(strlen(s) + 1);
    size_t len = 0;
    int n = 0, inq = 0;
    if (*s == '"') {
        s++;
        while (*s && *s != '"')
            cur[len++] = *s++;
        if (*s == '"')
            s++;
    } else {
        while (*s && *s != ' ' && *s != '\t')
            cur[len++] = *s++;
    }
    cur[len] = '\0';
    out[n++] = argvw_strdup(cur);
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        len = 0;
        inq = 0;
        while (*s && (inq || (*s != ' ' && *s != '\t'))) {
            if (*s == '\\') {
                size_t k = 0, i;
                while (*s == '\\') {
                    k++;
                    s++;
                }
                if (*s == '"') {
                    for (i = 0; i < k / 2; i++)
                        cur[len++] = '\\';
                    if (k % 2) {
                        cur[len++] = '"';
                        s++;
                    }
                } else {
                    for (i = 0; i < k; i++)
                        cur[len++] = '\\';
                }
            } else if (*s == '"') {
                s++;
                if (inq && *s == '"') {
                    cur[len++] = '"';
                    s++;
                } else {
                    inq = !inq;
                }
            } else {
                cur[len++] = *s++;
            }
        }
        cur[len] = '\0';
        out[n++] = argvw_strdup(cur);
    }
    free(cur);
    *argc = n;
    return out;
}

static void free_args(char **a, int n)
{
    int i;
    for (i = 0; i < n; i++)
        free(a[i]);
    free(a);
}

#endif
