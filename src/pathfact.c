/* What a path is: its lexical normal form for a target, its canonical form on
 * this host (a component-wise walk that records every symlink it passes), and
 * whether one path lies within another. The rules that use these facts live
 * in resolve.c; nothing here decides what is allowed. */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#  include <sys/stat.h>
#  include <unistd.h>
#else
#  include <windows.h>
#endif

void sbx_path_fact_free(struct sbx_path_fact *f)
{
    size_t i;
    if (!f)
        return;
    free(f->final);
    for (i = 0; i < f->n_links; i++) {
        free(f->links[i].at);
        free(f->links[i].parent);
    }
    free(f->links);
    free(f->base);
    memset(f, 0, sizeof *f);
}

static int is_sep(int target, char c)
{
    return c == '/' || (target == SANDBOX_TARGET_WINDOWS && c == '\\');
}

/* Length of the part of a Windows path that ".." cannot climb above:
 * "C:\" (3), or "\\server\share" (to the share's end); `s` already has its
 * \\?\ prefix removed and '/' turned into '\'. */
static size_t win_root_len(const char *s)
{
    size_t n;
    if (s[0] && s[1] == ':')
        return s[2] == '\\' ? 3 : 2;
    if (s[0] == '\\' && s[1] == '\\') {
        n = 2;
        while (s[n] && s[n] != '\\')
            n++;
        if (s[n] == '\\')
            n++;
        while (s[n] && s[n] != '\\')
            n++;
        return n;
    }
    return 0;
}

char *sbx_path_lexical(int target, const char *path)
{
    int win = target == SANDBOX_TARGET_WINDOWS;
    char sep = win ? '\\' : '/';
    size_t n = strlen(path), root, len, i;
    char *src, *out, *s;

    src = malloc(n + 2);
    out = malloc(n + 3);
    if (!src || !out) {
        free(src);
        free(out);
        return NULL;
    }
    memcpy(src, path, n + 1);
    s = src;
    if (win) {
        for (i = 0; s[i]; i++)
            if (s[i] == '/')
                s[i] = '\\';
        /* \\?\C:\x and \\.\C:\x are C:\x; \\?\UNC\srv\share is \\srv\share. */
        if (s[0] == '\\' && s[1] == '\\' && (s[2] == '?' || s[2] == '.') && s[3] == '\\') {
            if (strncmp(s + 4, "UNC\\", 4) == 0 || strncmp(s + 4, "unc\\", 4) == 0) {
                s += 6;
                s[0] = '\\';
                s[1] = '\\';
            } else {
                s += 4;
            }
        }
        if (s[0] >= 'a' && s[0] <= 'z' && s[1] == ':')
            s[0] = (char)(s[0] - 'a' + 'A');
        root = win_root_len(s);
        memcpy(out, s, root);
        len = root;
        if (root == 2) /* "C:" alone: the drive's root */
            out[len++] = '\\';
        s += root;
        root = len;
    } else {
        out[0] = '/';
        len = root = 1;
    }
    while (*s) {
        const char *c;
        size_t cl;
        while (is_sep(target, *s))
            s++;
        if (!*s)
            break;
        c = s;
        while (*s && !is_sep(target, *s))
            s++;
        cl = (size_t)(s - c);
        if (cl == 1 && c[0] == '.')
            continue;
        if (cl == 2 && c[0] == '.' && c[1] == '.') {
            while (len > root && out[len - 1] != sep)
                len--;
            if (len > root)
                len--; /* the separator */
            if (len < root)
                len = root;
            continue;
        }
        /* Windows drops trailing dots and spaces from a name: "me." is "me". */
        while (win && cl > 0 && (c[cl - 1] == '.' || c[cl - 1] == ' '))
            cl--;
        if (cl == 0)
            continue;
        if (len > 0 && out[len - 1] != sep)
            out[len++] = sep;
        memcpy(out + len, c, cl);
        len += cl;
    }
    out[len] = '\0';
    free(src);
    return out;
}

static int fold(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Could the Windows names a and b be the same file, one an 8.3 short name
 * ("ME~1", "PROGRA~1.TXT") of the other? Without the file system this can only
 * say "maybe": the short name's stem must begin the long name. */
static int short_name_may_match(const char *a, size_t al, const char *b, size_t bl)
{
    size_t tilde = 0, i, j;
    while (tilde < al && a[tilde] != '~')
        tilde++;
    if (tilde == 0 || tilde > 6 || tilde + 1 >= al || a[tilde + 1] < '0' || a[tilde + 1] > '9')
        return 0;
    for (i = tilde + 1; i < al && a[i] >= '0' && a[i] <= '9'; i++)
        ;
    if (i < al && a[i] != '.')
        return 0;
    /* The stem compares against the long name with its spaces and dots gone. */
    for (i = 0, j = 0; i < tilde && j < bl; j++) {
        if (b[j] == ' ' || b[j] == '.')
            continue;
        if (fold(a[i]) != fold(b[j]))
            return 0;
        i++;
    }
    return i == tilde;
}

static int same_component(int target, const char *a, size_t al, const char *b, size_t bl)
{
    size_t i;
    if (al == bl) {
        for (i = 0; i < al; i++)
            if (target == SANDBOX_TARGET_LINUX ? a[i] != b[i] : fold(a[i]) != fold(b[i]))
                break;
        if (i == al)
            return 1;
    }
    return target == SANDBOX_TARGET_WINDOWS &&
           (short_name_may_match(a, al, b, bl) || short_name_may_match(b, bl, a, al));
}

static size_t next_component(int target, const char **p)
{
    const char *s = *p;
    size_t n = 0;
    while (is_sep(target, *s))
        s++;
    while (s[n] && !is_sep(target, s[n]))
        n++;
    *p = s;
    return n;
}

int sbx_path_within(int target, const char *path, const char *dir)
{
    const char *p = path, *d = dir;
    size_t pl, dl;
    if (target == SANDBOX_TARGET_WINDOWS) {
        /* The drive or share must match as a whole. */
        pl = win_root_len(p);
        dl = win_root_len(d);
        if (pl != dl || !same_component(SANDBOX_TARGET_MACOS, p, pl, d, dl))
            return 0;
        p += pl;
        d += dl;
    } else if (p[0] != '/' || d[0] != '/') {
        return 0;
    }
    for (;;) {
        dl = next_component(target, &d);
        if (dl == 0)
            return 1;
        pl = next_component(target, &p);
        if (pl == 0 || !same_component(target, p, pl, d, dl))
            return 0;
        p += pl;
        d += dl;
    }
}

#if defined(__linux__) || defined(__APPLE__)
static int push_link(struct sbx_path_fact *f, const char *at, const char *parent)
{
    struct sbx_link_fact *grown = realloc(f->links, (f->n_links + 1) * sizeof *grown);
    if (!grown)
        return -1;
    f->links = grown;
    struct stat pst;
    grown[f->n_links].at = sbx_strdup(at);
    grown[f->n_links].parent = sbx_strdup(parent);
    grown[f->n_links].parent_known = 0;
    if (lstat(parent, &pst) == 0) {
        grown[f->n_links].parent_known = 1;
        grown[f->n_links].parent_uid = (unsigned long)pst.st_uid;
        grown[f->n_links].parent_mode = (unsigned long)pst.st_mode;
    }
    f->n_links++;
    return grown[f->n_links - 1].at && grown[f->n_links - 1].parent ? 0 : -1;
}

/* The walk: `cur` is the canonical directory reached so far, `rest` what is
 * left to resolve. Like realpath(3), but every link is recorded, and a
 * missing component ends the walk with the lexical remainder. */
static int walk(const char *path, struct sbx_path_fact *f)
{
    /* On the stack: this runs for every root of every launch, and buffers
     * this size would be an mmap and munmap each with some allocators. */
    char cur[PATH_MAX], rest[PATH_MAX], cand[PATH_MAX], target[PATH_MAX];
    const size_t cap = PATH_MAX;
    size_t links = 0;
    struct stat st;
    int rc = 0;

    if (strlen(path) >= cap) {
        errno = ENAMETOOLONG;
        f->unresolved = "it is too long to look up";
        f->final = sbx_path_lexical(SANDBOX_TARGET_LINUX, path);
        return f->final ? 0 : -1;
    }
    strcpy(cur, "/");
    strcpy(rest, path);
    for (;;) {
        const char *c = rest;
        size_t cl, clen = strlen(cur);
        ssize_t tl;
        while (*c == '/')
            c++;
        if (!*c)
            break;
        cl = strcspn(c, "/");
        if (cl == 1 && c[0] == '.') {
            memmove(rest, c + 1, strlen(c + 1) + 1);
            continue;
        }
        if (cl == 2 && c[0] == '.' && c[1] == '.') {
            char *slash = strrchr(cur, '/');
            if (slash && slash != cur)
                *slash = '\0';
            else
                strcpy(cur, "/");
            memmove(rest, c + 2, strlen(c + 2) + 1);
            continue;
        }
        if (clen + cl + 2 > cap) {
            errno = ENAMETOOLONG;
            goto missing;
        }
        memcpy(cand, cur, clen);
        if (clen > 1)
            cand[clen++] = '/';
        memcpy(cand + clen, c, cl);
        cand[clen + cl] = '\0';
        if (lstat(cand, &st) != 0)
            goto missing;
        if (S_ISLNK(st.st_mode)) {
            if (++links > 40 || push_link(f, cand, cur) != 0) {
                if (links <= 40) {
                    rc = -1;
                    goto out;
                }
                errno = ELOOP;
                goto missing;
            }
            tl = readlink(cand, target, cap - 1);
            if (tl < 0 || (size_t)tl + strlen(c + cl) + 2 > cap)
                goto missing;
            target[tl] = '\0';
            strcat(target, "/");
            strcat(target, c + cl);
            strcpy(rest, target);
            if (target[0] == '/')
                strcpy(cur, "/");
            continue;
        }
        strcpy(cur, cand);
        memmove(rest, c + cl, strlen(c + cl) + 1);
        if (!S_ISDIR(st.st_mode)) {
            const char *r = rest;
            while (*r == '/')
                r++;
            if (*r) {
                errno = ENOTDIR;
                goto missing;
            }
        }
    }
    if (stat(cur, &st) != 0)
        goto missing;
    f->exists = 1;
    f->is_dir = S_ISDIR(st.st_mode);
    f->dev = (unsigned long long)st.st_dev;
    f->ino = (unsigned long long)st.st_ino;
    f->uid = (unsigned long)st.st_uid;
    f->mode = (unsigned long)st.st_mode;
    f->final = sbx_strdup(cur);
    rc = f->final ? 0 : -1;
    goto out;
missing:
    /* Where a creation would start (src/caches.c): the directory reached,
     * its owner, and why the walk stopped. */
    {
        int why = errno;
        if (lstat(cur, &st) == 0 && S_ISDIR(st.st_mode)) {
            f->base = sbx_strdup(cur);
            if (!f->base) {
                rc = -1;
                goto out;
            }
            f->base_uid = (unsigned long)st.st_uid;
            f->missing_errno = why;
        }
        errno = why;
    }
    /* What is left is named lexically: it may be created later, and a
     * missing root is only ever skipped, never widened to its parent. So
     * ".." in what is left cannot be applied to the text ("/etc/none/.."
     * is not /etc: what is created at "none" decides), and a name too long
     * to hold cannot be looked up at all: both are unresolved. */
    {
        const char *r = rest;
        while (*r) {
            size_t n;
            while (*r == '/')
                r++;
            n = strcspn(r, "/");
            if (n == 2 && r[0] == '.' && r[1] == '.')
                f->unresolved = "it climbs with \"..\" out of a directory that does not exist";
            r += n;
        }
    }
    if (errno == ENAMETOOLONG || errno == ELOOP)
        f->unresolved = errno == ELOOP ? "it passes too many symbolic links"
                                       : "it is too long to look up";
    if (strlen(cur) + strlen(rest) + 2 > cap) {
        f->unresolved = "it is too long to look up";
        f->final = sbx_path_lexical(SANDBOX_TARGET_LINUX, path);
        rc = f->final ? 0 : -1;
        goto out;
    }
    strcpy(cand, cur);
    strcat(cand, "/");
    strcat(cand, rest);
    f->final = sbx_path_lexical(SANDBOX_TARGET_LINUX, cand);
    rc = f->final ? 0 : -1;
out:
    return rc;
}
#endif

#ifdef _WIN32
/* Windows: what the file system says the path is, by handle: the final path
 * (8.3 names expanded, links and junctions followed, the case on disk) and
 * the volume serial and file index as its identity. Links passed are not
 * recorded here; a path that cannot be opened is named lexically. */
static int win_lookup(const char *path, struct sbx_path_fact *out)
{
    const DWORD cap = 32768;
    wchar_t *w = malloc(cap * sizeof *w), *fin = malloc(cap * sizeof *fin);
    char *utf8 = malloc(cap * 3);
    BY_HANDLE_FILE_INFORMATION info;
    HANDLE h = INVALID_HANDLE_VALUE;
    DWORD n;
    int rc = -1;

    if (!w || !fin || !utf8)
        goto out;
    if (MultiByteToWideChar(CP_UTF8, 0, path, -1, w, (int)cap) > 0)
        h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                        NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h != INVALID_HANDLE_VALUE) {
        n = GetFinalPathNameByHandleW(h, fin, cap, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
        if (n > 0 && n < cap && GetFileInformationByHandle(h, &info) &&
            WideCharToMultiByte(CP_UTF8, 0, fin, -1, utf8, (int)(cap * 3), NULL, NULL) > 0) {
            out->final = sbx_path_lexical(SANDBOX_TARGET_WINDOWS, utf8);
            out->exists = out->final != NULL;
            out->is_dir = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
            out->dev = info.dwVolumeSerialNumber;
            out->ino = ((unsigned long long)info.nFileIndexHigh << 32) | info.nFileIndexLow;
        }
        CloseHandle(h);
    }
    if (!out->final)
        out->final = sbx_path_lexical(SANDBOX_TARGET_WINDOWS, path);
    rc = out->final ? 0 : -1;
out:
    free(w);
    free(fin);
    free(utf8);
    return rc;
}
#endif

int sbx_lookup_host(void *ctx, int target, const char *path, struct sbx_path_fact *out)
{
#if defined(__linux__)
    const int here = target == SANDBOX_TARGET_LINUX;
#elif defined(__APPLE__)
    const int here = target == SANDBOX_TARGET_MACOS;
#endif
    (void)ctx;
    memset(out, 0, sizeof *out);
#if defined(__linux__) || defined(__APPLE__)
    if (here && path[0] == '/') {
        if (walk(path, out) == 0)
            return 0;
        sbx_path_fact_free(out);
        return -1;
    }
#elif defined(_WIN32)
    if (target == SANDBOX_TARGET_WINDOWS)
        return win_lookup(path, out);
#endif
    /* Another target's plan: this machine's files say nothing about it. */
    out->final = sbx_path_lexical(target, path);
    return out->final ? 0 : -1;
}
