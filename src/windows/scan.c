/* The host file system for the Windows plan's protected-path walk: Windows'
 * own listing on Windows, POSIX elsewhere (so `--explain --target windows`
 * on Linux shows the matches of the real directory it was given). */
#if !defined(_WIN32)
#  define _DEFAULT_SOURCE /* d_type, lstat */
#endif
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#  ifndef _WIN32_WINNT
#    define _WIN32_WINNT 0x0A00
#  endif
#  define WIN32_LEAN_AND_MEAN
#  include <windows.h>

/* UTF-16, "\\?\"-prefixed so deep trees (node_modules) are not cut off at
 * MAX_PATH, with `suffix` appended. */
static wchar_t *wide(const char *s, const char *suffix)
{
    char *lp = sbx_win_long_path(s);
    size_t ls, lx = strlen(suffix);
    char *joined;
    wchar_t *w = NULL;
    int n;
    if (!lp)
        return NULL;
    ls = strlen(lp);
    joined = malloc(ls + lx + 1);
    if (!joined) {
        free(lp);
        return NULL;
    }
    memcpy(joined, lp, ls);
    memcpy(joined + ls, suffix, lx + 1);
    free(lp);
    n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, joined, -1, NULL, 0);
    if (n > 0 && (w = malloc((size_t)n * sizeof *w)) != NULL &&
        MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, joined, -1, w, n) != n) {
        free(w);
        w = NULL;
    }
    free(joined);
    return w;
}

static int host_kind(void *ctx, const char *path)
{
    wchar_t *w = wide(path, "");
    DWORD a;
    (void)ctx;
    if (!w)
        return -1;
    a = GetFileAttributesW(w);
    free(w);
    if (a == INVALID_FILE_ATTRIBUTES)
        return -1;
    return (a & FILE_ATTRIBUTE_DIRECTORY) ? 1 : 0;
}

static int host_list(void *ctx, const char *dir,
                     int (*each)(void *arg, const char *name, int is_dir, unsigned long tag),
                     void *arg)
{
    size_t n = strlen(dir);
    wchar_t *pattern = wide(dir, n && (dir[n - 1] == '\\' || dir[n - 1] == '/') ? "*" : "\\*");
    WIN32_FIND_DATAW fd;
    HANDLE h;
    int rc = 0;
    (void)ctx;
    if (!pattern)
        return -1;
    h = FindFirstFileExW(pattern, FindExInfoBasic, &fd, FindExSearchNameMatch, NULL,
                         FIND_FIRST_EX_LARGE_FETCH);
    free(pattern);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD e = GetLastError();
        if (e == ERROR_ACCESS_DENIED)
            return SBX_WIN_LIST_DENIED;
        return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? SBX_WIN_LIST_VANISHED : -1;
    }
    do {
        char name[MAX_PATH * 4];
        if (wcscmp(fd.cFileName, L".") == 0 || wcscmp(fd.cFileName, L"..") == 0)
            continue;
        if (WideCharToMultiByte(CP_UTF8, 0, fd.cFileName, -1, name, sizeof name, NULL, NULL) <= 0) {
            rc = -1;
            break;
        }
        /* dwReserved0 holds the reparse tag when the attribute is set. */
        rc = each(arg, name, (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0,
                  (fd.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) ? (unsigned long)fd.dwReserved0
                                                                       : 0ul);
    } while (rc == 0 && FindNextFileW(h, &fd));
    if (rc == 0 && GetLastError() != ERROR_NO_MORE_FILES)
        rc = -1;
    FindClose(h);
    return rc;
}


/* The volume serial and the file ID of what `path` opens (links followed,
 * as the container's own open would). */
static int file_id(const char *path, BY_HANDLE_FILE_INFORMATION *info)
{
    wchar_t *w = wide(path, "");
    HANDLE h;
    int ok;
    if (!w)
        return 0;
    h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                    OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return 0;
    ok = GetFileInformationByHandle(h, info) != 0;
    CloseHandle(h);
    return ok;
}

static int host_same(void *ctx, const char *a, const char *b)
{
    BY_HANDLE_FILE_INFORMATION ia, ib;
    (void)ctx;
    if (!file_id(a, &ia) || !file_id(b, &ib))
        return -1; /* cannot tell: the caller denies */
    return ia.dwVolumeSerialNumber == ib.dwVolumeSerialNumber &&
           ia.nFileIndexHigh == ib.nFileIndexHigh && ia.nFileIndexLow == ib.nFileIndexLow;
}
#else
#  include <dirent.h>
#  include <errno.h>
#  include <sys/stat.h>

static int host_kind(void *ctx, const char *path)
{
    struct stat st;
    (void)ctx;
    if (lstat(path, &st) != 0)
        return -1;
    return S_ISDIR(st.st_mode) ? 1 : 0;
}

static int host_list(void *ctx, const char *dir,
                     int (*each)(void *arg, const char *name, int is_dir, unsigned long tag),
                     void *arg)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;
    (void)ctx;
    if (!d) {
        if (errno == EACCES || errno == EPERM)
            return SBX_WIN_LIST_DENIED;
        return errno == ENOENT || errno == ENOTDIR ? SBX_WIN_LIST_VANISHED : -1;
    }
    while (rc == 0 && (errno = 0, e = readdir(d)) != NULL) {
        int is_dir = 0, is_link = 0;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (e->d_type == DT_UNKNOWN) {
            struct stat st;
            size_t ld = strlen(dir), ln = strlen(e->d_name);
            char *full = malloc(ld + 1 + ln + 1);
            if (!full) {
                rc = -1;
                break;
            }
            memcpy(full, dir, ld);
            full[ld] = '/';
            memcpy(full + ld + 1, e->d_name, ln + 1);
            if (lstat(full, &st) == 0) {
                is_dir = S_ISDIR(st.st_mode);
                is_link = S_ISLNK(st.st_mode);
            }
            free(full);
        } else {
            is_dir = e->d_type == DT_DIR;
            is_link = e->d_type == DT_LNK;
        }
        /* A POSIX symlink stands for a Windows one. */
        rc = each(arg, e->d_name, is_dir, is_link ? SBX_WIN_TAG_SYMLINK : 0ul);
    }
    if (rc == 0 && errno != 0)
        rc = -1;
    closedir(d);
    return rc;
}

/* Same device and inode: the POSIX stand-in for a volume and a file ID. */
static int host_same(void *ctx, const char *a, const char *b)
{
    struct stat sa, sb;
    (void)ctx;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return strcmp(a, b) == 0 ? 1 : 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
#endif

void sbx_win_fs_host(struct sbx_win_fs *fs)
{
    fs->kind = host_kind;
    fs->list = host_list;
    fs->same = host_same;
    fs->ctx = NULL;
}
