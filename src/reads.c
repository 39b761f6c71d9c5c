/* Read roots: what a command of an activity class may read besides its
 * writable roots (docs/classes.md, "Reads"). With an explicit class (not the
 * tool server, whose spec reads everything), reads are confined to the OS
 * trees of the target, the toolchains found in the home, the project and
 * working directory, and the host's --add-read directories; the writable
 * roots are readable too. Pure data from the environment and the facts: the
 * Linux backend turns the list into Landlock rules, the macOS renderer into
 * Seatbelt allowances. Windows lists nothing: an AppContainer reads only
 * what is granted to it already (docs/windows.md). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *sbx_read_kind_name(int kind)
{
    switch (kind) {
    case SBX_READ_SYSTEM: return "system";
    case SBX_READ_TOOLCHAIN: return "toolchain";
    case SBX_READ_PROJECT: return "project";
    case SBX_READ_WORKDIR: return "workdir";
    case SBX_READ_ADDED: return "added";
    case SBX_READ_CACHE: return "cache";
    default: return "?";
    }
}

struct os_tree {
    const char *path;
    unsigned flags;
    const char *why;
};

/* Linux: decided entry by entry (docs/classes.md has the table and what is
 * left out: /home, /root, /mnt, /media, /srv, /boot, /run, /var but the
 * package databases, /tmp unless a writable root). /dev is the device list
 * of the Landlock plan, never the disks. */
static const struct os_tree linux_trees[] = {
    {"/usr", SBX_READ_EXEC, "programs, libraries, headers, shared data"},
    {"/bin", SBX_READ_EXEC, "programs (a link into /usr on merged-usr systems)"},
    {"/sbin", SBX_READ_EXEC, "system programs"},
    {"/lib", SBX_READ_EXEC, "libraries and the dynamic loader"},
    {"/lib32", SBX_READ_EXEC, "32-bit libraries"},
    {"/lib64", SBX_READ_EXEC, "the dynamic loader"},
    {"/libx32", SBX_READ_EXEC, "x32 libraries"},
    {"/opt", SBX_READ_EXEC, "add-on software"},
    {"/nix", SBX_READ_EXEC, "the Nix store, world-readable by design"},
    {"/snap", SBX_READ_EXEC, "snap packages"},
    /* root reads every file by its capabilities: only what others may read */
    {"/etc", SBX_READ_OTHERS, "configuration (no shadow, sudoers or private keys for root)"},
    {"/proc", 0, "processes and kernel state (ps, /proc/self); other processes' private "
                 "files stay behind ptrace checks"},
    {"/sys", 0, "devices and CPU topology (nproc, lscpu)"},
    {"/var/lib/dpkg", 0, "the package database (dpkg -l)"},
    {"/var/lib/apt", 0, "package lists (apt-cache)"},
    {"/var/lib/rpm", 0, "the package database (rpm -q)"},
    {"/var/cache/fontconfig", 0, "font caches"},
};

/* Links in /etc that lead out of the OS trees on some systems: their
 * targets are granted as files (systemd-resolved's stub-resolv.conf). */
static const char *const linux_link_files[] = {"/etc/resolv.conf", "/etc/localtime"};

/* macOS: the same set in its own places. /Library/Keychains and the
 * password and host-key files in /private/etc are taken back by the
 * renderer; the dyld shared cache is in /System (Cryptexes on 13+) and
 * /private/var/db/dyld (older). /dev is rendered as a device list. */
static const struct os_tree macos_trees[] = {
    {"/System", SBX_READ_EXEC, "the OS, its frameworks and the dyld shared cache"},
    {"/usr", SBX_READ_EXEC, "programs and libraries (/usr/local included)"},
    {"/bin", SBX_READ_EXEC, "programs"},
    {"/sbin", SBX_READ_EXEC, "system programs"},
    {"/Library", SBX_READ_EXEC, "system-wide frameworks, Command Line Tools (not Keychains)"},
    {"/Applications", SBX_READ_EXEC, "applications (Xcode's toolchain)"},
    {"/opt/homebrew", SBX_READ_EXEC, "Homebrew"},
    {"/opt/local", SBX_READ_EXEC, "MacPorts"},
    {"/nix", SBX_READ_EXEC, "the Nix store"},
    {"/private/etc", 0, "configuration (not master.passwd, sudoers or host keys)"},
    {"/private/var/db/timezone", 0, "time zones (/etc/localtime)"},
    {"/private/var/db/dyld", 0, "the dyld shared cache of older releases"},
    {"/private/var/select", 0, "xcode-select's choice"},
    {"/private/var/run/resolv.conf", 0, "the resolver configuration"},
};

/* A toolchain in the home: its programs and what they read to run, each
 * only if present, never its credential files. `var` overrides the base
 * (`tail` appended); `dflt` is the base under the home (NULL: only the
 * variable names it); `subs` NULL grants the base itself. */
struct tool {
    const char *var;
    const char *tail;
    const char *dflt;
    const char *const *subs;
    unsigned flags;
    const char *why;
};

static const char *const cargo_subs[] = {"bin", "env", "config.toml", "config", NULL};
static const char *const rustup_subs[] = {"toolchains", "settings.toml", "update-hashes", NULL};
static const char *const nvm_subs[] = {"versions", "alias", "nvm.sh", "nvm-exec", NULL};
static const char *const bin_subs[] = {"bin", NULL};
static const char *const pyenv_subs[] = {"versions", "shims", "bin",    "libexec",
                                         "plugins",  "version", NULL};
static const char *const local_subs[] = {"bin", "lib", NULL};
static const char *const sdkman_subs[] = {"candidates", "bin", "src", "libexec", "etc", "var", NULL};
static const char *const wrapper_subs[] = {"wrapper", NULL};
static const char *const gitconfig_subs[] = {".gitconfig", NULL};
static const char *const git_subs[] = {"config", "ignore", "attributes", NULL};

static const struct tool tools[] = {
    {"CARGO_HOME", NULL, ".cargo", cargo_subs, SBX_READ_EXEC,
     "cargo: its programs and configuration (not credentials.toml)"},
    {"RUSTUP_HOME", NULL, ".rustup", rustup_subs, SBX_READ_EXEC, "rustup: installed toolchains"},
    {"NVM_DIR", NULL, ".nvm", nvm_subs, SBX_READ_EXEC, "nvm: installed Node versions"},
    {"PNPM_HOME", NULL, ".local/share/pnpm", NULL, SBX_READ_EXEC,
     "pnpm: its programs and global packages"},
    /* pnpm's default on macOS; only granted where it exists */
    {NULL, NULL, "Library/pnpm", NULL, SBX_READ_EXEC, "pnpm: its programs and global packages"},
    {"BUN_INSTALL", NULL, ".bun", bin_subs, SBX_READ_EXEC, "bun: its programs"},
    {"DENO_INSTALL", NULL, ".deno", bin_subs, SBX_READ_EXEC, "deno: its programs"},
    {"PYENV_ROOT", NULL, ".pyenv", pyenv_subs, SBX_READ_EXEC, "pyenv: installed Pythons"},
    {NULL, NULL, ".local", local_subs, SBX_READ_EXEC,
     "per-user programs and libraries (pip --user, pipx)"},
    {"UV_PYTHON_INSTALL_DIR", NULL, ".local/share/uv/python", NULL, SBX_READ_EXEC,
     "uv: installed Pythons"},
    {"GOPATH", NULL, "go", bin_subs, SBX_READ_EXEC, "go: installed commands"},
    {"GOROOT", NULL, NULL, NULL, SBX_READ_EXEC, "go: the toolchain GOROOT names"},
    {"SDKMAN_DIR", NULL, ".sdkman", sdkman_subs, SBX_READ_EXEC, "sdkman: JDKs, gradle, maven"},
    {"GRADLE_USER_HOME", NULL, ".gradle", wrapper_subs, SBX_READ_EXEC,
     "gradle: distributions ./gradlew runs (not gradle.properties or init.d)"},
    {NULL, NULL, ".m2", wrapper_subs, SBX_READ_EXEC,
     "maven: distributions ./mvnw runs (not settings.xml)"},
    {"MAVEN_HOME", NULL, NULL, NULL, SBX_READ_EXEC, "maven: the installation MAVEN_HOME names"},
    {"M2_HOME", NULL, NULL, NULL, SBX_READ_EXEC, "maven: the installation M2_HOME names"},
    {"JAVA_HOME", NULL, NULL, NULL, SBX_READ_EXEC, "the JDK JAVA_HOME names"},
    {NULL, NULL, "", gitconfig_subs, 0, "git: your configuration"},
    {"XDG_CONFIG_HOME", "git", ".config/git", git_subs, 0,
     "git: your configuration (not the credentials file)"},
};

/* Home entries no toolchain grant may be, lie in or contain: an override
 * that points a toolchain at them (PNPM_HOME=~/.config) grants nothing. */
static const char *const home_secrets[] = {
    ".ssh",     ".gnupg",  ".aws",           ".kube",          ".docker",
    ".netrc",   ".npmrc",  ".pypirc",        ".git-credentials", ".password-store",
    ".mozilla", ".thunderbird", ".config/gh", ".config/git/credentials",
    ".config/google-chrome", ".config/chromium", ".local/share/keyrings",
    ".cargo/credentials.toml", ".cargo/credentials", ".m2/settings.xml",
    ".gradle/gradle.properties", "Library/Keychains",
};

static const char *const shared_temps[] = {"/tmp", "/var/tmp", "/dev/shm", "/private/tmp",
                                           "/private/var/tmp"};

struct rctx {
    const sandbox_policy *p;
    sbx_resolved *r;
    const struct sbx_facts *f;
    char *homes[2];
    size_t n_homes;
    sandbox_error *err;
};

static int oom(struct rctx *c)
{
    return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while listing read roots");
}

static int push(struct rctx *c, const char *path, int kind, unsigned flags, const char *why,
                const char *from, int fixed)
{
    struct sbx_read_root *grown;
    size_t i;
    for (i = 0; i < c->r->n_reads; i++)
        if (strcmp(c->r->reads[i].path, path) == 0)
            return SANDBOX_OK;
    grown = realloc(c->r->reads, (c->r->n_reads + 1) * sizeof *grown);
    if (!grown)
        return oom(c);
    c->r->reads = grown;
    grown += c->r->n_reads;
    memset(grown, 0, sizeof *grown);
    grown->path = sbx_strdup(path);
    if (!grown->path)
        return oom(c);
    grown->kind = kind;
    grown->flags = flags;
    grown->why = why;
    grown->from = from;
    grown->fixed = fixed;
    c->r->n_reads++;
    return SANDBOX_OK;
}

static int lookup(struct rctx *c, const char *path, struct sbx_path_fact *out)
{
    memset(out, 0, sizeof *out);
    if (c->f->lookup(c->f->lookup_ctx, c->r->target, path, out) != 0 || !out->final) {
        sbx_path_fact_free(out);
        return oom(c);
    }
    return SANDBOX_OK;
}

static int find_homes(struct rctx *c)
{
    const char *cand[2] = {c->f->account_home, c->f->env_home};
    size_t i;
    for (i = 0; i < 2; i++) {
        struct sbx_path_fact hf;
        int rc;
        if (!cand[i] || cand[i][0] != '/')
            continue;
        rc = lookup(c, cand[i], &hf);
        if (rc != SANDBOX_OK)
            return rc;
        if (strcmp(hf.final, "/") == 0 || (c->n_homes && strcmp(c->homes[0], hf.final) == 0)) {
            sbx_path_fact_free(&hf);
            continue;
        }
        c->homes[c->n_homes++] = hf.final;
        hf.final = NULL;
        sbx_path_fact_free(&hf);
    }
    return SANDBOX_OK;
}

/* Why `f` may not be read as a whole, or NULL: "/", a home, an ancestor of
 * one, or (by identity, on the host) another name for one of those. */
static const char *too_wide(const struct rctx *c, const struct sbx_path_fact *f)
{
    size_t i;
    if (strcmp(f->final, "/") == 0)
        return "the file system root";
    for (i = 0; i < c->n_homes; i++)
        if (sbx_path_within(c->r->target, c->homes[i], f->final))
            return strcmp(c->homes[i], f->final) == 0 ? "your home directory"
                                                       : "a directory that holds your home";
    for (i = 0; f->exists && i < c->r->n_forbidden; i++)
        if (c->r->forbidden[i].dev == f->dev && c->r->forbidden[i].ino == f->ino)
            return "another name for the file system root, your home or one of its ancestors";
    return NULL;
}

/* A symbolic link on the way that a sandboxed command could have planted:
 * its directory lies in a writable root of this launch or a shared temp
 * directory, or is one the caller can write, where a writable root of an
 * earlier launch (a project class before this research one) could have put
 * it: the rule writable roots follow (review of issue 28). The link it
 * found, or NULL. */
static const char *planted_link(const struct rctx *c, const struct sbx_path_fact *f)
{
    size_t k, j;
    for (k = 0; k < f->n_links; k++) {
        const char *parent = f->links[k].parent;
        for (j = 0; j < c->r->n_roots; j++)
            if (c->r->roots[j].kind != SBX_ROOT_DEV &&
                sbx_path_within(c->r->target, parent, c->r->roots[j].path))
                return f->links[k].at;
        for (j = 0; j < sizeof shared_temps / sizeof shared_temps[0]; j++)
            if (sbx_path_within(c->r->target, parent, shared_temps[j]))
                return f->links[k].at;
        if (sbx_link_plantable_earlier(c->f->euid, (const char *const *)c->homes, c->n_homes,
                                       &f->links[k]))
            return f->links[k].at;
    }
    return NULL;
}

/* A secret of the home that `path` is, lies in or contains; NULL if none. */
static const char *home_secret(const struct rctx *c, const char *path)
{
    size_t h, i;
    for (h = 0; h < c->n_homes; h++) {
        for (i = 0; i < sizeof home_secrets / sizeof home_secrets[0]; i++) {
            char *s = sbx_path_join(c->homes[h], '/', home_secrets[i]);
            int hit = s && (sbx_path_within(c->r->target, path, s) ||
                            sbx_path_within(c->r->target, s, path));
            free(s);
            if (hit)
                return home_secrets[i];
        }
    }
    return NULL;
}

/* One toolchain path: granted when it exists (or, for another target, is
 * named), and is none of the things a toolchain grant may never be. */
static int add_tool_path(struct rctx *c, const struct tool *t, const char *path, const char *from,
                         int kind)
{
    struct sbx_path_fact f;
    const char *bad, *link;
    int rc = lookup(c, path, &f);
    if (rc != SANDBOX_OK)
        return rc;
    if (c->f->on_host && (!f.exists || f.unresolved)) {
        sbx_path_fact_free(&f);
        return SANDBOX_OK; /* "each only if present" */
    }
    if ((bad = too_wide(c, &f)) != NULL || (bad = home_secret(c, f.final)) != NULL) {
        sbx_warn(c->r->read_notes, sizeof c->r->read_notes,
                 "%s%s%s (%s) is not readable: it resolves to %s, which is or holds %s",
                 from ? from : "", from ? " names " : "", path, t->why, f.final, bad);
    } else if ((link = planted_link(c, &f)) != NULL) {
        sbx_warn(c->r->read_notes, sizeof c->r->read_notes,
                 "%s (%s) is not readable: the link %s lies where a sandboxed command could "
                 "have planted it", path, t->why, link);
    } else {
        rc = push(c, f.final, kind, t->flags, t->why, from, 0);
    }
    sbx_path_fact_free(&f);
    return rc;
}

static int add_tools(struct rctx *c)
{
    size_t i, k;
    int rc = SANDBOX_OK;
    const char *home = c->f->env_home && c->f->env_home[0] == '/' ? c->f->env_home
                                                                  : c->f->account_home;
    for (i = 0; rc == SANDBOX_OK && i < sizeof tools / sizeof tools[0]; i++) {
        const struct tool *t = &tools[i];
        const char *v = t->var ? getenv(t->var) : NULL, *from = NULL;
        char *base = NULL;
        /* GOPATH is a list: its first entry installs commands. */
        if (v && t->var && strcmp(t->var, "GOPATH") == 0) {
            size_t n = strcspn(v, ":");
            base = malloc(n + 1);
            if (!base)
                return oom(c);
            memcpy(base, v, n);
            base[n] = '\0';
        } else if (v) {
            base = t->tail ? sbx_path_join(v, '/', t->tail) : sbx_strdup(v);
            if (!base)
                return oom(c);
        }
        if (base && base[0] == '/') {
            from = t->var;
        } else {
            free(base);
            base = NULL;
            if (!t->dflt || !home)
                continue;
            base = t->dflt[0] ? sbx_path_join(home, '/', t->dflt) : sbx_strdup(home);
            if (!base)
                return oom(c);
        }
        if (!t->subs) {
            rc = add_tool_path(c, t, base, from, SBX_READ_TOOLCHAIN);
        } else {
            for (k = 0; rc == SANDBOX_OK && t->subs[k]; k++) {
                char *p = sbx_path_join(base, '/', t->subs[k]);
                if (!p) {
                    free(base);
                    return oom(c);
                }
                rc = add_tool_path(c, t, p, from, SBX_READ_TOOLCHAIN);
                free(p);
            }
        }
        free(base);
    }
    return rc;
}

/* The package caches (src/presets.c: go's module cache, cargo's registry,
 * pip's, npm's...) for the classes that build nothing there but must read
 * what the project's tools fetched: `go build` with a filled module cache,
 * `cargo build --offline`, `pip install --no-index` from its cache. Read
 * only, no execution; never a tool's configuration or credentials (the
 * presets name only the cache parts), judged like a toolchain grant. A
 * cache that does not exist yet is not granted: these classes never make
 * it. The build class writes them (writable roots), media reads none. */
static int add_caches(struct rctx *c)
{
    static const struct tool cache_tool = {NULL, NULL, NULL, NULL, 0,
                                           "a package cache: fetched packages, read only"};
    sbx_resolved pc;
    size_t i;
    int rc = sbx_presets_package_caches(c->r->target, c->f->on_host, &pc, c->err);
    for (i = 0; rc == SANDBOX_OK && i < pc.n_roots; i++)
        if (!pc.roots[i].create)
            rc = add_tool_path(c, &cache_tool, pc.roots[i].path, pc.roots[i].from,
                               SBX_READ_CACHE);
    sbx_resolved_free(&pc);
    return rc;
}

/* The project, working directory or an --add-read directory: refused like
 * a writable root when it would open the home or "/" to reading, or was
 * reached through a link a command could have planted. */
static int add_named(struct rctx *c, const char *path, int kind, const char *why)
{
    struct sbx_path_fact f;
    const char *bad, *link;
    size_t j;
    int rc = lookup(c, path, &f);
    if (rc != SANDBOX_OK)
        return rc;
    /* Inside a writable root: readable with it, and judged as one already. */
    for (j = 0; j < c->r->n_roots; j++)
        if (c->r->roots[j].kind != SBX_ROOT_DEV && !c->r->roots[j].shared &&
            sbx_path_within(c->r->target, f.final, c->r->roots[j].path))
            break;
    if (j < c->r->n_roots && kind != SBX_READ_ADDED)
        rc = SANDBOX_OK;
    else if (kind == SBX_READ_WORKDIR && !c->p->working_dir && (bad = too_wide(c, &f)) != NULL)
        /* A working directory the host did not name, outside the project
         * (a cd elsewhere): as it is not made writable (resolve.c), it is
         * not opened to reading when that would read the home or "/". */
        sbx_warn(c->r->read_notes, sizeof c->r->read_notes,
                 "the working directory %s (%s; name it with --add-read to read it)", path, bad);
    else if ((bad = too_wide(c, &f)) != NULL)
        rc = sbx_fail(c->err, SANDBOX_E_PATH, 0,
                      "refusing to make %s root %s readable: it resolves to %s, %s, and the "
                      "class would then read every file there; %s",
                      sbx_read_kind_name(kind), path, f.final, bad,
                      kind == SBX_READ_ADDED ? "name the directory that should be read "
                                               "(--add-read)"
                                             : "run the command from the project directory, "
                                               "or set the project root (--project)");
    else if (f.unresolved)
        rc = sbx_fail(c->err, SANDBOX_E_PATH, 0,
                      "refusing %s root %s as a read root: %s, so what it names cannot be known",
                      sbx_read_kind_name(kind), path, f.unresolved);
    else if ((link = planted_link(c, &f)) != NULL)
        rc = sbx_fail(c->err, SANDBOX_E_PATH, 0,
                      "refusing %s root %s as a read root: its component %s is a symbolic link "
                      "inside a writable root or a shared temp directory, so a sandboxed command "
                      "may have planted it (to %s); name the real directory instead",
                      sbx_read_kind_name(kind), path, link, f.final);
    else
        rc = push(c, f.final, kind, SBX_READ_EXEC, why, NULL, 0);
    sbx_path_fact_free(&f);
    return rc;
}

/* 1 when `path` lies beneath one of the OS trees already listed. */
static int in_os_trees(const struct rctx *c, const char *path)
{
    size_t i;
    for (i = 0; i < c->r->n_reads; i++)
        if (c->r->reads[i].kind == SBX_READ_SYSTEM && c->r->reads[i].flags != SBX_READ_OTHERS &&
            sbx_path_within(c->r->target, path, c->r->reads[i].path))
            return 1;
    return 0;
}

static int add_os(struct rctx *c)
{
    const struct os_tree *t = c->r->target == SANDBOX_TARGET_MACOS ? macos_trees : linux_trees;
    size_t n = c->r->target == SANDBOX_TARGET_MACOS ? sizeof macos_trees / sizeof macos_trees[0]
                                                     : sizeof linux_trees / sizeof linux_trees[0];
    size_t i, h;
    int rc = SANDBOX_OK;
    for (i = 0; rc == SANDBOX_OK && i < n; i++) {
        /* A home inside an OS tree (HOME=/opt/app) would be read through
         * it: that tree is left out instead. */
        for (h = 0; h < c->n_homes && !sbx_path_within(c->r->target, c->homes[h], t[i].path); h++)
            ;
        if (h < c->n_homes) {
            sbx_warn(c->r->read_notes, sizeof c->r->read_notes,
                     "%s is not readable: it holds the home directory %s", t[i].path, c->homes[h]);
            continue;
        }
        rc = push(c, t[i].path, SBX_READ_SYSTEM, t[i].flags, t[i].why, NULL, 1);
    }
    /* Where /etc/resolv.conf and /etc/localtime lead, when it is outside. */
    for (i = 0; rc == SANDBOX_OK && c->f->on_host && c->r->target == SANDBOX_TARGET_LINUX &&
                i < sizeof linux_link_files / sizeof linux_link_files[0];
         i++) {
        struct sbx_path_fact f;
        rc = lookup(c, linux_link_files[i], &f);
        if (rc != SANDBOX_OK)
            break;
        if (f.exists && f.n_links && !f.is_dir && !in_os_trees(c, f.final) && !too_wide(c, &f) &&
            !home_secret(c, f.final)) {
            for (h = 0; h < c->n_homes && !sbx_path_within(c->r->target, f.final, c->homes[h]); h++)
                ;
            if (h == c->n_homes)
                rc = push(c, f.final, SBX_READ_SYSTEM, 0,
                          i == 0 ? "where /etc/resolv.conf leads" : "where /etc/localtime leads",
                          NULL, 1);
        }
        sbx_path_fact_free(&f);
    }
    return rc;
}

int sbx_reads_resolve(const sandbox_policy *p, sbx_resolved *r, const struct sbx_facts *facts,
                      sandbox_error *err)
{
    struct rctx c;
    size_t i;
    int rc, k = p->klass;

    r->reads_confined = 0;
    r->read_notes[0] = '\0';
    /* Windows: the AppContainer reads only what is granted already. The
     * tool server keeps spec 003's open reads; no class, no narrowing. */
    if (!p->class_chosen || k == SANDBOX_CLASS_TOOL_SERVER ||
        r->filesystem != SANDBOX_FS_CONFINED || r->target == SANDBOX_TARGET_WINDOWS)
        return SANDBOX_OK;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.r = r;
    c.f = facts;
    c.err = err;
    r->reads_confined = 1;
    rc = find_homes(&c);
    if (rc == SANDBOX_OK)
        rc = add_os(&c);
    /* Media reads the project and its output folder, no toolchain. */
    if (rc == SANDBOX_OK && k != SANDBOX_CLASS_MEDIA)
        rc = add_tools(&c);
    if (rc == SANDBOX_OK && k != SANDBOX_CLASS_MEDIA && k != SANDBOX_CLASS_BUILD)
        rc = add_caches(&c);
    /* No project (the working directory is the home, "/" or a store; spec
     * 004): the command works in its scratch, which it reads as a writable
     * root; opening that directory to reading would read the user's whole
     * life. A working directory the host named is still judged below. */
    if (rc == SANDBOX_OK && r->project_root && r->project_root[0] && !r->no_project)
        rc = add_named(&c, r->project_root, SBX_READ_PROJECT, "the project");
    if (rc == SANDBOX_OK && k != SANDBOX_CLASS_MEDIA && r->working_dir &&
        (!r->no_project || p->working_dir))
        rc = add_named(&c, r->working_dir, SBX_READ_WORKDIR, "the working directory");
    for (i = 0; rc == SANDBOX_OK && i < p->n_read_dirs; i++)
        rc = add_named(&c, p->read_dirs[i], SBX_READ_ADDED, "added with --add-read");
    for (i = 0; i < c.n_homes; i++)
        free(c.homes[i]);
    return rc;
}

void sbx_reads_explain(const sbx_resolved *r, int json, sbx_buf *out)
{
    size_t i;
    const char *open_why =
        r->target == SANDBOX_TARGET_WINDOWS
            ? "the AppContainer reads only what is granted to it or to every app "
              "(docs/windows.md)"
        : r->filesystem == SANDBOX_FS_READ_ONLY ? "read-only mode reads what the account can"
        : !r->class_chosen ? "not confined: no class was chosen (--class), so the command "
                             "reads what the account can"
        : r->klass == SANDBOX_CLASS_TOOL_SERVER ? "not confined: a tool server reads what the "
                                                  "account can (spec 003)"
                                                : "not confined: writes are not confined";
    if (json) {
        sbx_buf_printf(out, "{\"confined\":%s", r->reads_confined ? "true" : "false");
        if (!r->reads_confined) {
            sbx_buf_add(out, ",\"why\":");
            sbx_buf_json_str(out, open_why);
        } else {
            sbx_buf_add(out, ",\"also\":\"every writable root\",\"roots\":[");
            for (i = 0; i < r->n_reads; i++) {
                sbx_buf_add(out, i ? ",{\"kind\":" : "{\"kind\":");
                sbx_buf_json_str(out, sbx_read_kind_name(r->reads[i].kind));
                sbx_buf_add(out, ",\"path\":");
                sbx_buf_json_str(out, r->reads[i].path);
                sbx_buf_add(out, ",\"what\":");
                sbx_buf_json_str(out, r->reads[i].why);
                sbx_buf_printf(out, ",\"execute\":%s",
                               (r->reads[i].flags & SBX_READ_EXEC) ? "true" : "false");
                if (r->reads[i].flags & SBX_READ_OTHERS)
                    sbx_buf_add(out, ",\"root_reads_world_readable_only\":true");
                if (r->reads[i].from) {
                    sbx_buf_add(out, ",\"from\":");
                    sbx_buf_json_str(out, r->reads[i].from);
                }
                sbx_buf_add(out, "}");
            }
            sbx_buf_add(out, "]");
            if (r->read_notes[0]) {
                sbx_buf_add(out, ",\"left_out\":");
                sbx_buf_json_str(out, r->read_notes);
            }
        }
        sbx_buf_add(out, "}");
        return;
    }
    if (!r->reads_confined) {
        sbx_buf_printf(out, "reads: %s\n", open_why);
        return;
    }
    sbx_buf_add(out, "reads: only the writable roots and these read roots (the class):\n");
    for (i = 0; i < r->n_reads; i++) {
        const struct sbx_read_root *rd = &r->reads[i];
        sbx_buf_printf(out, "  %-10s %s%s (%s%s%s%s)\n", sbx_read_kind_name(rd->kind), rd->path,
                       (rd->flags & SBX_READ_EXEC) ? " +x" : "", rd->why,
                       (rd->flags & SBX_READ_OTHERS) ? "; root: world-readable files only" : "",
                       rd->from ? "; from " : "", rd->from ? rd->from : "");
    }
    if (r->read_notes[0])
        sbx_buf_printf(out, "  left out: %s\n", r->read_notes);
}
