/* A small strict JSON validator for the fuzzers: RFC 8259 grammar (objects,
 * arrays, strings with escapes, numbers, true/false/null), no trailing bytes
 * except whitespace, bounded nesting. Returns 1 when `s` is one valid JSON
 * value. Test code only: header-only, file-local functions. */
#ifndef SBX_FUZZ_JSON_CHECK_H
#define SBX_FUZZ_JSON_CHECK_H

#include <stddef.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

static void json_ws(const char **p)
{
    while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
        (*p)++;
}

static int json_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Strings: no raw control bytes, only the escapes JSON defines, and the
 * bytes must be UTF-8 (the library promises \u00XX for anything else). */
static int json_string(const char **p)
{
    const unsigned char *s = (const unsigned char *)*p;
    if (*s != '"')
        return 0;
    s++;
    for (;;) {
        unsigned char c = *s;
        if (c == '"') {
            *p = (const char *)s + 1;
            return 1;
        }
        if (c < 0x20)
            return 0; /* includes the terminating NUL */
        if (c == '\\') {
            s++;
            if (*s == 'u') {
                int i;
                for (i = 1; i <= 4; i++)
                    if (!json_hex((char)s[i]))
                        return 0;
                s += 5;
            } else if (*s && strchr("\"\\/bfnrt", *s)) {
                s++;
            } else {
                return 0;
            }
            continue;
        }
        if (c < 0x80) {
            s++;
            continue;
        }
        {
            /* A UTF-8 sequence: lead byte, then 1-3 continuation bytes, no
             * overlong forms, no surrogates, nothing above U+10FFFF. */
            int n, i;
            unsigned long cp;
            if (c >= 0xc2 && c <= 0xdf) {
                n = 1;
                cp = c & 0x1f;
            } else if (c >= 0xe0 && c <= 0xef) {
                n = 2;
                cp = c & 0x0f;
            } else if (c >= 0xf0 && c <= 0xf4) {
                n = 3;
                cp = c & 0x07;
            } else {
                return 0;
            }
            for (i = 1; i <= n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                    return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
            }
            if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
                (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
                return 0;
            s += n + 1;
        }
    }
}

static int json_number(const char **p)
{
    const char *s = *p;
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return 0;
    if (*s == '.') {
        s++;
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    *p = s;
    return 1;
}

static int json_value(const char **p, int depth);

static int json_word(const char **p, const char *w)
{
    size_t n = strlen(w);
    if (strncmp(*p, w, n) != 0)
        return 0;
    *p += n;
    return 1;
}

static int json_value(const char **p, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return 0;
    json_ws(p);
    switch (**p) {
    case '{':
        (*p)++;
        json_ws(p);
        if (**p == '}') {
            (*p)++;
            return 1;
        }
        for (;;) {
            json_ws(p);
            if (!json_string(p))
                return 0;
            json_ws(p);
            if (**p != ':')
                return 0;
            (*p)++;
            if (!json_value(p, depth + 1))
                return 0;
            json_ws(p);
            if (**p == '}') {
                (*p)++;
                return 1;
            }
            if (**p != ',')
                return 0;
            (*p)++;
        }
    case '[':
        (*p)++;
        json_ws(p);
        if (**p == ']') {
            (*p)++;
            return 1;
        }
        for (;;) {
            if (!json_value(p, depth + 1))
                return 0;
            json_ws(p);
            if (**p == ']') {
                (*p)++;
                return 1;
            }
            if (**p != ',')
                return 0;
            (*p)++;
        }
    case '"':
        return json_string(p);
    case 't':
        return json_word(p, "true");
    case 'f':
        return json_word(p, "false");
    case 'n':
        return json_word(p, "null");
    default:
        return json_number(p);
    }
}

static int json_valid(const char *s)
{
    const char *p = s;
    if (!json_value(&p, 0))
        return 0;
    json_ws(&p);
    return *p == '\0';
}

#endif
