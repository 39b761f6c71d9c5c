#!/usr/bin/env bash
# A directory made into a repository (issues 18 and 23): a later git, run
# OUTSIDE the sandbox in or below a directory of the project, must find the
# repository it found before the run, never one the command assembled there
# with a config or hooks of its own. git calls a directory a repository when it
# holds a .git (a directory, or a file "gitdir: PATH", or a link), or when it
# is one itself: HEAD plus objects/ and refs/, or HEAD plus commondir
# (setup.c, is_git_directory). Each route is first shown to work unconfined
# (the control); the check is made from outside, by the planted code running
# or not: core.fsmonitor on `git status`, core.pager on `git branch` in a
# terminal (a bare repository has no work tree for status).
. "$SBX_TESTLIB"

proj=$_scratch/proj
home=$_home/home
tmp=$_scratch/tmp
mark=$_scratch/pwned
mkdir -p "$proj/src" "$home" "$tmp"
export HOME=$home TMPDIR=$tmp MARK=$mark
unset XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_DIR GIT_WORK_TREE GIT_PAGER PAGER
export GIT_CONFIG_NOSYSTEM=1
git config --global user.email t@example.invalid
git config --global user.name t
git config --global init.defaultBranch main
(cd "$proj" && git init -q . && echo 'int a;' >src/a.c && git add -A && git commit -qm one) ||
  { fail "cannot make the fixture repository"; finish; }
if ! "$L" --sandbox --protect-secrets --project "$proj" -- true >"$_out" 2>"$_err"; then
  skip_all "guard: the launcher cannot confine with protected paths here: $(head -1 "$_err")"
fi
command -v script >/dev/null || skip_all "script: script(1) is missing, no terminal for the pager route"
pristine=$_scratch/pristine
cp -a "$proj" "$pristine"
S=("$L" --sandbox --protect-secrets --project "$proj" --)
G=("$L" --sandbox --protect-secrets --git-writable --project "$proj" --)

# fooled DIR HOW: an unconfined git in DIR runs the planted code. PAGER=cat:
# a planted core.pager still wins over it, and without one git's default
# pager must not wait on the terminal (a fresh Debian root's is more(1), which
# hung the unfooled case until ctest's timeout; less with git's LESS=FRX
# exits by itself).
fooled() {
  rm -f "$mark"
  case $2 in
    status) (cd "$1" && git status) ;;
    pager) (cd "$1" && PAGER=cat script -qec "git branch" /dev/null) ;;
  esac </dev/null >/dev/null 2>&1
  [ -e "$mark" ]
}
restore() { cd / && rm -rf "$proj" "$tmp" && mkdir -p "$tmp" && cp -a "$pristine" "$proj" && cd "$proj"; }

# attack NAME DIR HOW SCRIPT [MODE]: SCRIPT (sh, in the project) plants a
# repository; unconfined on a copy it fools a git in DIR; under the sandbox
# (MODE: S, the default, or G for --git-writable) it must not.
attack() {
  local name=$1 dir=$2 how=$3 script=$4 mode=${5:-S} copy=$_scratch/copy got=0
  local -a run
  if [ "$mode" = G ]; then run=("${G[@]}"); else run=("${S[@]}"); fi
  restore; rm -rf "$copy"; cp -a "$proj" "$copy"
  (cd "$copy" && sh -c "$script") >/dev/null 2>&1 || true
  if fooled "$copy/$dir" "$how"; then pass "control: $name fools a later git unconfined"
  else fail "control: $name fools no git even unconfined (the case proves nothing)"; fi
  rm -rf "$copy"; restore
  (cd "$proj" && "${run[@]}" sh -c "$script") >"$_out" 2>"$_err" || got=$?
  if fooled "$proj/$dir" "$how"; then
    fail "$name: the later git ran the command's code (exit $got)"
    sed 's/^/    | /' "$_err" | head -5
  else pass "$name: the later git ran nothing of the command's (exit $got)"; fi
}

PAGER_CFG='printf "[core]\n\tpager = touch $MARK\n"'
# ---- 1. an existing folder made a bare repository ----
attack "HEAD, objects/, refs/ and a config written into src/" src pager \
  "cd src && mkdir objects refs && echo 'ref: refs/heads/main' > HEAD && $PAGER_CFG > config"
attack "the same, refs/ made last" src pager \
  "cd src && $PAGER_CFG > config && echo 'ref: refs/heads/main' > HEAD && mkdir objects && mkdir refs"
attack "the same, copied in from a bare repository in TMPDIR" src pager \
  "git init -q --bare \"\$TMPDIR/b\" && $PAGER_CFG >> \"\$TMPDIR/b/config\" && cp -r \"\$TMPDIR/b/.\" src/"
attack "HEAD first, then objects and refs as sockets" src pager \
  "cd src && $PAGER_CFG > config && echo 'ref: refs/heads/main' > HEAD && python3 -c 'import socket
for n in (\"objects\", \"refs\"): socket.socket(socket.AF_UNIX).bind(n)'"
attack "HEAD and a commondir naming a repository in TMPDIR" src pager \
  "git init -q --bare \"\$TMPDIR/b\" && $PAGER_CFG >> \"\$TMPDIR/b/config\" && echo \"\$TMPDIR/b\" > src/commondir && echo 'ref: refs/heads/main' > src/HEAD"
attack "a bare repository built in TMPDIR, renamed into the project" src/lib pager \
  "git init -q --bare \"\$TMPDIR/b\" && $PAGER_CFG >> \"\$TMPDIR/b/config\" && mv \"\$TMPDIR/b\" src/lib"
attack "a folder holding a repository, renamed in from TMPDIR" src/vendor/dep status \
  "mkdir -p \"\$TMPDIR/v\" && git init -q \"\$TMPDIR/v/dep\" && git -C \"\$TMPDIR/v/dep\" config core.fsmonitor \"touch \$MARK\" && mv \"\$TMPDIR/v\" src/vendor"

# ---- 1b. renames across directories (the masks' Landlock layer grants REFER) ----
attack "--git-writable: a repository built inside .git, renamed out into the project" src/evil pager \
  "mkdir -p .git/x/objects .git/x/refs/heads && echo 'ref: refs/heads/main' > .git/x/HEAD && $PAGER_CFG > .git/x/config && mv .git/x src/evil" G
# A folder holding a masked secret moves nowhere: moved to /tmp, the secret
# would lie outside the scanned roots for the next launch to read.
restore
mkdir -p "$proj/cfg" && echo 'SECRET_TOKEN=mv-secret' >"$proj/cfg/.env"
expect_status 1 "a folder holding a masked .env is not renamed to TMPDIR" \
  "${S[@]}" python3 -c 'import os, sys
os.rename("cfg", os.environ["TMPDIR"] + "/cfg-out")'
[ -e "$proj/cfg/.env" ] && pass "  ...the folder and its secret stayed in the project" ||
  fail "  ...the folder left the project"
cp -a "$proj/cfg" "$_scratch/cfg-copy"
expect_status 0 "unconfined, the same rename works" python3 -c 'import os, sys
os.rename(sys.argv[1], sys.argv[1] + "-out")' "$_scratch/cfg-copy"
restore

# ---- 2. a .git in an existing folder ----
attack "git init in src/ with core.fsmonitor" src status \
  "git init -q src && git -C src config core.fsmonitor \"touch \$MARK\""
attack "a .git file (gitdir:) in src/ naming a repository in TMPDIR" src status \
  "git init -q \"\$TMPDIR/w\" && git -C \"\$TMPDIR/w\" config core.fsmonitor \"touch \$MARK\" && echo \"gitdir: \$TMPDIR/w/.git\" > src/.git"
attack "a .git symlink in src/" src status \
  "git init -q \"\$TMPDIR/w\" && git -C \"\$TMPDIR/w\" config core.fsmonitor \"touch \$MARK\" && ln -s \"\$TMPDIR/w/.git\" src/.git"
attack "a .git renamed into src/ from TMPDIR" src status \
  "git init -q \"\$TMPDIR/w\" && git -C \"\$TMPDIR/w\" config core.fsmonitor \"touch \$MARK\" && mv \"\$TMPDIR/w/.git\" src/.git"
attack "a .git file (gitdir:) hard-linked into src/ from TMPDIR" src status \
  "git init -q \"\$TMPDIR/w\" && git -C \"\$TMPDIR/w\" config core.fsmonitor \"touch \$MARK\" && echo \"gitdir: \$TMPDIR/w/.git\" > \"\$TMPDIR/gf\" && ln \"\$TMPDIR/gf\" src/.git"

# ---- 3. --git-writable: the project root itself as a bare repository ----
attack "--git-writable: .git/HEAD invalidated, the root made a bare repository" . pager \
  "echo junk > .git/HEAD && mkdir objects refs && echo 'ref: refs/heads/main' > HEAD && $PAGER_CFG > config" G
restore

# ---- everyday work keeps working ----
expect_status 0 "--git-writable: git add and commit (git renames HEAD.lock over HEAD)" "${G[@]}" \
  sh -c 'echo b > src/b.c && git add src/b.c && git commit -qm two && git checkout -q -b topic && git checkout -q main &&
    git symbolic-ref refs/remotes/origin/HEAD refs/heads/main'
[ "$(git -C "$proj" log --oneline | wc -l)" = 2 ] && pass "  ...the commit is there" || fail "  ...no commit"
restore
expect_status 0 "git init, add and commit in a folder of TMPDIR" "${S[@]}" \
  sh -c 'cd "$TMPDIR" && mkdir -p r && cd r && git init -q && echo x > f && git add f && git commit -qm x'
expect_status 0 "a bare repository in a folder of TMPDIR" "${S[@]}" sh -c 'git init -q --bare "$TMPDIR/x.git"'
expect_status 0 "names git uses, short of a repository: objects/ and refs/, HEAD.txt, a commondir" "${S[@]}" \
  sh -c 'mkdir -p vendor/a/objects vendor/a/refs vendor/b && echo x > vendor/b/commondir && echo y > vendor/c && mv vendor/c vendor/a/HEAD.txt'
expect_status 1 "a file named HEAD in the project is refused (every repository needs one)" "${S[@]}" \
  sh -c 'echo x > src/HEAD 2>/dev/null || exit 1'
expect_status 0 "a folder renamed in from TMPDIR arrives (copied, as between file systems)" "${S[@]}" \
  sh -c 'mkdir -p "$TMPDIR/d/e" && echo x > "$TMPDIR/d/e/f" && mv "$TMPDIR/d" src/d && test -f src/d/e/f && test ! -e "$TMPDIR/d"'
expect_status 0 "a folder renamed inside the project stays a rename" "${S[@]}" \
  sh -c 'mkdir -p src/m/n && echo x > src/m/n/f && mv src/m src/moved && test -f src/moved/n/f'
restore

# ---- refused outright ----
expect_status 1 "git init of a new folder in the project is refused" "${S[@]}" \
  sh -c 'git init -q src/new 2>/dev/null || exit 1'
[ ! -e "$proj/src/new/.git" ] && pass "  ...no src/new/.git" || fail "  ...src/new/.git exists"
expect_status 1 "a .git at the top of TMPDIR is refused (a git in any new folder of it would find it)" \
  "${S[@]}" sh -c 'mkdir "$TMPDIR/.git" 2>/dev/null || exit 1'
expect_status 1 "...and so is a bare repository at the top of TMPDIR" "${S[@]}" \
  sh -c 'cd "$TMPDIR" && mkdir objects refs && { echo "ref: refs/heads/main" > HEAD; } 2>/dev/null || exit 1'
expect_status 0 "--unprotect .git gives the repository back: git init in the project" \
  "$L" --sandbox --protect-secrets --unprotect .git --project "$proj" -- sh -c 'git init -q src/new'
restore
# ---- a name the guard saw existing, gone before the guard's own call ----
# A thread binds a socket at the name and unlinks it in a loop while another
# creates the name. (bind() was not guarded then; since issue 18's F3 the
# guard refuses those binds too, and the race stays as a regression check.) A guard that exempted the name
# because it existed, then made the call itself, made it once the socket
# was unlinked between the two (review g23 G1). Checked from outside: no
# regular file, directory or link stands at the name afterwards.
RACE='import os, socket, sys, threading, time
name, op, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
done = []
def flip():
    while not done:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.bind(name)
            bound = True
        except OSError:
            bound = False
        s.close()
        if bound:
            os.unlink(name)
t = threading.Thread(target=flip)
t.start()
end = time.time() + secs
while time.time() < end:
    try:
        if op == "open":
            os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        elif op == "mkdir":
            os.mkdir(name)
        else:
            os.symlink("elsewhere", name)
        break
    except OSError:
        pass
done.append(1)
t.join()'
# made NAME: something other than a socket stands at NAME.
made() { [ -e "$1" ] || [ -L "$1" ]; }
for race in "src/HEAD open" "src/.git open" "src/.git mkdir" "src/.git symlink"; do
  set -- $race
  restore
  (cd "$proj" && python3 -c "$RACE" "$1" "$2" 6) >/dev/null 2>&1  # stops at the first success; 6 s for a loaded machine
  if made "$proj/$1"; then pass "control: $2 makes $1 unconfined"
  else fail "control: $2 makes no $1 even unconfined (the case proves nothing)"; fi
  restore
  (cd "$proj" && "${S[@]}" python3 -c "$RACE" "$1" "$2" 4) >"$_out" 2>"$_err" || true
  if made "$proj/$1"; then fail "$2 of $1 raced with a socket bound and unlinked there: $1 was made"
    ls -la "$proj/$1" | sed 's/^/    | /'
  else pass "$2 of $1 raced with a socket bound and unlinked there: nothing made"; fi
done
restore
expect_status 0 "an existing .git is still found: mkdir -p through it, open of its HEAD" "${G[@]}" \
  sh -c 'mkdir -p .git/info && test -s .git/HEAD && : >>.git/description'
restore

# ---- the directories between a temp root and a project below it ----
# _scratch is below /tmp, and the project below it: a later git in the
# project walks up through every one of them (review g23 G2).
X=$_scratch/x
rm -rf "$X"; mkdir -p "$X/proj/src"
PLANT='git init -q "$X" && git -C "$X" config core.fsmonitor "touch $MARK"'
(X=$X sh -c "$PLANT") >/dev/null 2>&1
if fooled "$X/proj/src" status; then pass "control: a repository made in the project's parent fools a later git"
else fail "control: a repository in the project's parent fools no git (the case proves nothing)"; fi
rm -rf "$X/.git"
(cd "$X/proj" && X=$X "$L" --sandbox --protect-secrets --project "$X/proj" -- sh -c "$PLANT") \
  >"$_out" 2>"$_err" || true
if fooled "$X/proj/src" status; then fail "git init in the project's parent (below /tmp): the later git ran the command's code"
else pass "git init in the project's parent (below /tmp) is refused"; fi
[ ! -e "$X/.git" ] && pass "  ...no $X/.git" || fail "  ...$X/.git exists"
rm -rf "$X"; mkdir -p "$X/proj/src"
(cd "$X/proj" && git init -q . && echo 'int a;' >src/a.c && git add -A && git commit -qm one) >/dev/null
(cd "$X/proj" && X=$X "$L" --sandbox --protect-secrets --git-writable --project "$X/proj" -- \
  sh -c "$PLANT; echo junk > .git/HEAD") >"$_out" 2>"$_err" || true
if fooled "$X/proj/src" status; then fail "--git-writable: junk .git/HEAD and a repository in the parent: the later git ran the command's code"
else pass "--git-writable: junk .git/HEAD and a repository in the parent: the later git ran nothing"; fi
expect_status 1 "a HEAD in the project's parent (below /tmp) is refused" \
  "$L" --sandbox --protect-secrets --project "$X/proj" -- sh -c "echo x > '$X/HEAD' 2>/dev/null || exit 1"
expect_status 0 "a new folder next to the project (below /tmp) may still be a repository" \
  "$L" --sandbox --protect-secrets --project "$X/proj" -- sh -c "git init -q '$X/other'"
rm -rf "$X"
# ---- --protect-write .git alone (review g23 G3) ----
# It carries the repository rule, so it needs the guard and its supervisor:
# the library must say so, or every such run fails (126) for want of one.
expect_status 0 "--protect-write .git alone runs a command" \
  "$L" --sandbox --protect-write .git --project "$proj" -- true
expect_status 1 "--protect-write .git alone: git init of a new folder in the project is refused" \
  "$L" --sandbox --protect-write .git --project "$proj" -- sh -c 'git init -q src/new2 2>/dev/null || exit 1'
[ ! -e "$proj/src/new2/.git" ] && pass "  ...no src/new2/.git" || fail "  ...src/new2/.git exists"
restore

# ---- bind() makes a name (issue 18, F3) ----
# A folder that holds a HEAD at launch, completed with AF_UNIX sockets named
# objects and refs (git's access(X_OK) passes on a socket) and a config:
# a later git outside takes it as a bare repository. Checked from outside
# with `git rev-parse --git-dir` and the pager route; each first shown
# working unconfined.
BIND='import socket, sys
for n in sys.argv[1:]:
    socket.socket(socket.AF_UNIX).bind(n)'
restore
mkdir -p "$proj/hd" && echo 'ref: refs/heads/main' >"$proj/hd/HEAD"
cp -a "$proj" "$_scratch/bcopy"
(cd "$_scratch/bcopy/hd" && sh -c "$PAGER_CFG > config" && python3 -c "$BIND" objects refs) >/dev/null 2>&1
if [ "$(git -C "$_scratch/bcopy/hd" rev-parse --git-dir 2>/dev/null)" = . ]; then
  pass "control: sockets objects and refs beside a HEAD make a repository git takes, unconfined"
else fail "control: the bound sockets make no repository even unconfined (the case proves nothing)"; fi
fooled "$_scratch/bcopy/hd" pager && pass "control: ...and its pager runs" ||
  fail "control: ...its pager does not run (the case proves nothing)"
rm -rf "$_scratch/bcopy"
(cd "$proj/hd" && "${S[@]}" sh -c "$PAGER_CFG > config; python3 -c '$BIND' objects; python3 -c '$BIND' refs") \
  >"$_out" 2>"$_err" || true
if [ "$(git -C "$proj/hd" rev-parse --git-dir 2>/dev/null)" = . ]; then
  fail "sockets objects and refs bound beside a HEAD of the launch: git takes the folder as a repository"
else pass "sockets objects and refs bound beside a HEAD of the launch: git takes no repository there"; fi
fooled "$proj/hd" pager && fail "  ...and the later git ran the command's pager" ||
  pass "  ...and the later git ran nothing of the command's"
[ -S "$proj/hd/objects" ] && [ -S "$proj/hd/refs" ] && fail "  ...both sockets were made" ||
  pass "  ...the socket completing the set was refused"
restore
# A socket named like a protected name, refused as mknod's FIFO is.
(cd "$_scratch" && rm -f .env.local && python3 -c "$BIND" .env.local) >/dev/null 2>&1
[ -S "$_scratch/.env.local" ] && pass "control: a socket named .env.local is bound unconfined" ||
  fail "control: no socket .env.local even unconfined (the case proves nothing)"
rm -f "$_scratch/.env.local"
expect_status 1 "a socket bound at .env.local is refused" "${S[@]}" python3 -c "$BIND" .env.local
[ ! -e "$proj/.env.local" ] && [ ! -L "$proj/.env.local" ] && pass "  ...no .env.local in the project" ||
  fail "  ...$proj/.env.local exists"
expect_status 1 "...and reported as a refused creation (bind)" \
  "$L" --report --sandbox --protect-secrets --project "$proj" -- python3 -c "$BIND" src/.env.local
grep -q 'protected name .*src/.env.local (bind)' "$_err" && pass "  ...--report names the bind" ||
  { fail "  ...--report does not name the bind"; sed 's/^/    | /' "$_err" | head -5; }
expect_status 1 "a socket bound at .git through a relative path with dots is refused" "${S[@]}" \
  python3 -c "$BIND" src/../src/.git
[ ! -e "$proj/src/.git" ] && pass "  ...no src/.git" || fail "  ...src/.git exists"
# Ordinary binds keep working under the guard.
restore
mkdir -p "$proj/real" && ln -s real "$proj/via"
BINDS='import os, socket
def b(fam, typ, addr):
    s = socket.socket(fam, typ)
    s.bind(addr)
    return s
u = socket.AF_UNIX
r = b(u, socket.SOCK_STREAM, "app.sock")
assert r.getsockname() == "app.sock", r.getsockname()
ab = b(u, socket.SOCK_DGRAM, os.getcwd() + "/abs.sock")
assert ab.getsockname() == os.getcwd() + "/abs.sock", ab.getsockname()
b(u, socket.SOCK_STREAM, "via/link.sock")
# getsockname() reports the name as spelled (multiprocessing.Manager
# publishes it; review of issue 18: it was the last component only).
from multiprocessing.connection import Listener, Client
L = Listener(os.getcwd() + "/mp.sock", family="AF_UNIX")
assert L.address == os.getcwd() + "/mp.sock", L.address
L.close()
# All 108 bytes of sun_path may be the name (no NUL), as the kernel allows.
n108 = "x" * 108
s108 = socket.socket(u)
import ctypes
sa = bytes([1, 0]) + n108.encode()
libc = ctypes.CDLL(None, use_errno=True)
assert libc.bind(s108.fileno(), sa, len(sa)) == 0, os.strerror(ctypes.get_errno())
os.unlink(n108)
a = b(u, socket.SOCK_STREAM, "\0sbx-abstract-%d" % os.getpid())
assert a.getsockname().startswith(b"\0sbx-abstract"), a.getsockname()
auto = b(u, socket.SOCK_DGRAM, "")
assert auto.getsockname()[:1] == b"\0", auto.getsockname()
srv = b(u, socket.SOCK_STREAM, "srv.sock"); srv.listen()
c = socket.socket(u); c.connect("srv.sock"); srv.accept()[0].sendall(b"hi")
assert c.recv(2) == b"hi"
try:
    b(u, socket.SOCK_STREAM, "app.sock")
    raise SystemExit("a second bind of app.sock worked")
except OSError as e:
    assert e.errno == 98, e
n = b(socket.AF_NETLINK, socket.SOCK_RAW, (0, 0))
assert n.getsockname()[0] == os.getpid(), (n.getsockname(), os.getpid())
st = os.stat("app.sock")
assert oct(st.st_mode & 0o777) == oct(0o777 & ~0o027), oct(st.st_mode)
print("ok")'
expect_status 0 "ordinary binds under the guard: relative, absolute, through a symlinked folder, abstract, autobind, netlink, a listener" \
  "${S[@]}" sh -c "umask 027 && python3 -c '$BINDS'"
[ -S "$proj/app.sock" ] && [ -S "$proj/abs.sock" ] && [ -S "$proj/real/link.sock" ] &&
  pass "  ...the sockets are there" || fail "  ...a socket is missing"
restore
NETB='import socket
for fam, typ, a in ((socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0)),
                    (socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 0))):
    s = socket.socket(fam, typ); s.bind(a); assert s.getsockname()[1] > 0
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); s.accept()[0].sendall(b"hi"); assert c.recv(2) == b"hi"'
expect_status 0 "with the network allowed: TCP and UDP sockets bound under the guard" \
  "$L" --confine-fs --protect-secrets --project "$proj" -- python3 -c "$NETB"
restore
finish
