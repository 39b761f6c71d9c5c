/* Errors, warnings and a growable string buffer. Platform-neutral. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sandbox_strerror(int code)
{
    switch (code) {
    case SANDBOX_OK: return "success";
    case SANDBOX_E_INVALID: return "invalid argument";
    case SANDBOX_E_NOMEM: return "out of memory";
    case SANDBOX_E_UNSUPPORTED: return "not supported on this system";
    case SANDBOX_E_PATH: return "path cannot be used";
    case SANDBOX_E_SYSTEM: return "system call failed";
    case SANDBOX_E_REFUSED: return "refused by a pre-flight check";
    case SANDBOX_E_EXEC: return "command cannot be executed";
    default: return "unknown error";
    }
}

void sbx_error_clear(sandbox_error *err)
{
    if (err) {
        err->code = SANDBOX_OK;
        err->sys_errno = 0;
        err->message[0] = '\0';
    }
}

int sbx_fail(sandbox_error *err, int code, int sys_errno, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->sys_errno = sys_errno;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

void sbx_warn(char *buf, size_t size, const char *fmt, ...)
{
    size_t used;
    va_list ap;
    buf[size - 1] = '\0';
    used = strlen(buf);
    if (used + 3 >= size)
        return;
    if (used > 0) {
        memcpy(buf + used, "; ", 3);
        used += 2;
    }
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

int sbx_strncasecmp_ascii(const char *a, const char *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char ca = (unsigned char)a[i], cb = (unsigned char)b[i];
        if (ca >= 'A' && ca <= 'Z')
            ca = (unsigned char)(ca - 'A' + 'a');
        if (cb >= 'A' && cb <= 'Z')
            cb = (unsigned char)(cb - 'A' + 'a');
        if (ca != cb || ca == '\0')
            return (int)ca - (int)cb;
    }
    return 0;
}

char *sbx_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

char *sbx_path_join(const char *a, char sep, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *p;
    /* "/" + "x" is "/x", not "//x". A backslash separates only in
     * Windows-style paths (sep '\\'); on unix it is part of the name. */
    while (na > 0 && (a[na - 1] == '/' || (sep == '\\' && a[na - 1] == '\\')))
        na--;
    p = malloc(na + 1 + nb + 1);
    if (!p)
        return NULL;
    memcpy(p, a, na);
    p[na] = sep;
    memcpy(p + na + 1, b, nb + 1);
    return p;
}

void sbx_buf_init(sbx_buf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

void sbx_buf_free(sbx_buf *b)
{
    free(b->data);
    sbx_buf_init(b);
}

static int buf_reserve(sbx_buf *b, size_t extra)
{
    size_t need, cap;
    char *p;
    if (b->oom)
        return 0;
    need = b->len + extra + 1;
    if (need <= b->cap)
        return 1;
    cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    p = realloc(b->data, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->data = p;
    b->cap = cap;
    return 1;
}

void sbx_buf_addn(sbx_buf *b, const char *s, size_t n)
{
    if (!buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sbx_buf_add(sbx_buf *b, const char *s)
{
    sbx_buf_addn(b, s, strlen(s));
}

void sbx_buf_printf(sbx_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t n, i;
    unsigned long cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void sbx_buf_json_str(sbx_buf *b, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    sbx_buf_add(b, "\"");
    while (*s) {
        size_t n = utf8_seq(s);
        if (*s == '"' || *s == '\\') {
            char esc[3] = {'\\', (char)*s, 0};
            sbx_buf_add(b, esc);
            s++;
        } else if (*s < 0x20 || n == 0) {
            sbx_buf_printf(b, "\\u%04x", *s);
            s++;
        } else {
            sbx_buf_addn(b, (const char *)s, n);
            s += n;
        }
    }
    sbx_buf_add(b, "\"");
}

char *sbx_buf_take(sbx_buf *b)
{
    char *p;
    if (b->oom || !buf_reserve(b, 0)) {
        sbx_buf_free(b);
        return NULL;
    }
    p = b->data;
    sbx_buf_init(b);
    return p;
}
