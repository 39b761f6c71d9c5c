#!/usr/bin/env bash
# The creation guard end to end through the launcher: protected names that do
# not exist at launch cannot be created by any route, while ordinary creation
# still works through the guard. Every refusal is first shown succeeding
# unconfined (the control), and the name must not exist afterwards.
. "$SBX_TESTLIB"

proj=$_scratch/proj
# Outside /tmp: the sandbox writes /tmp, so a home beneath it is refused.
home=$(mktemp -d /var/tmp/sbx-home.XXXXXX)
trap 'rm -rf "$home"' EXIT
mkdir -p "$proj"/{sub,keys} "$home"
cd "$proj" || exit 1
export HOME=$home
require guard "--sandbox --protect-secrets" "$L" --sandbox --protect-secrets -- true
S=("$L" --sandbox --protect-secrets --project "$proj" --)

# refused NAME CREATED SHELL-CMD: works unconfined (then undone), is refused
# confined, and CREATED does not exist afterwards.
refused() {
  local name=$1 created=$2 cmd=$3
  expect_status 0 "unconfined: $name" sh -c "$cmd"
  rm -rf "$created"
  expect_status 1 "guarded: $name is refused" "${S[@]}" sh -c "$cmd 2>&1 || exit 1"
  if [ -e "$created" ] || [ -L "$created" ]; then fail "$name: $created exists"; rm -rf "$created"
  else pass "$name: $created was not created"; fi
}

echo data >existing.txt
echo notes >notes.txt
refused "echo x > .env.production" .env.production 'echo x > .env.production'
expect_output_has "Permission denied" "the refusal is EACCES"
refused "echo x > sub/.ENV.local (case)" sub/.ENV.local 'echo x > sub/.ENV.local'
refused "touch keys/new.pem" keys/new.pem 'touch keys/new.pem'
refused "mkdir .ssh" .ssh 'mkdir .ssh'
refused "mkdir -p a/b/.aws" a/b/.aws 'mkdir -p a/b/.aws'
rm -rf a
refused "ln -s /etc/hostname id_rsa" id_rsa 'ln -s /etc/hostname id_rsa'
refused "ln existing.txt new.key" new.key 'ln existing.txt new.key'
expect_status 0 "unconfined: mv notes.txt .env.local" sh -c 'mv notes.txt .env.local && mv .env.local notes.txt'
expect_status 1 "guarded: mv notes.txt .env.local is refused" "${S[@]}" sh -c 'mv notes.txt .env.local || exit 1'
[ -e notes.txt ] && [ ! -e .env.local ] && pass "notes.txt kept its name" || fail "the rename happened"
refused "mkfifo .env.x" .env.x 'mkfifo .env.x'
refused "python os.mknod" .env.y 'python3 -c "import os; os.mknod(\".env.y\")"'
refused "cp to a .pem" copy.pem 'cp existing.txt copy.pem'
# Home-only patterns. A home is never writable now: not a root of its own,
# and a home beneath the writable /tmp is refused (issue-16 review, finding 5),
# so the guard's home-only patterns back up Landlock rather than stand alone.
mkdir -p "$_scratch/tmphome"
expect_status 126 "a home beneath the writable /tmp is refused" \
  env HOME="$_scratch/tmphome" "$L" --sandbox --protect-secrets --project "$proj" -- sh -c "echo x > $_scratch/tmphome/notes.txt"
expect_status 1 "guarded: a new ~/.npmrc is refused" \
  "$L" --sandbox --protect-secrets --project "$proj" -- sh -c "echo x > $home/.npmrc 2>/dev/null || exit 1"
expect_status 0 "guarded: a project .npmrc is not home-only protected" "${S[@]}" sh -c 'echo x > .npmrc && rm .npmrc'
[ ! -e "$home/.npmrc" ] && pass "~/.npmrc was not created" || fail "~/.npmrc exists"
# HOME through a symlink (a symlinked /home): the guard matches real paths,
# so home is made real too.
ln -s "$home" "$_scratch/homelink"
expect_status 1 "guarded, HOME via a symlink: a new ~/.npmrc is refused" \
  env HOME="$_scratch/homelink" "$L" --sandbox --protect-secrets --project "$proj" \
  -- sh -c "echo x > $_scratch/homelink/.npmrc 2>/dev/null || exit 1"
[ ! -e "$home/.npmrc" ] && pass "~/.npmrc was not created through the link" || fail "~/.npmrc exists"
rm -f "$home/.npmrc" "$_scratch/homelink"
refused "O_TMPFILE linked as .env.tmp" .env.tmp "$P/guard tmpfile-link .env.tmp"
# A dangling symlink made under an allowed name must not create its target.
ln -s .env.via-link dangling
expect_status 1 "guarded: O_CREAT through a dangling symlink to .env.via-link" "${S[@]}" "$P/guard" dangling dangling
[ ! -e .env.via-link ] && pass "the symlink's target was not created" || { fail ".env.via-link exists"; rm -f .env.via-link; }
rm -f dangling
ln -s made-through-link.txt dangling
expect_status 0 "guarded: O_CREAT through a dangling symlink to an allowed name" "${S[@]}" "$P/guard" dangling dangling
[ -f made-through-link.txt ] && pass "the allowed target was created" || fail "made-through-link.txt is missing"
rm -f dangling made-through-link.txt
# RENAME_EXCHANGE gives both names new contents.
echo a >x1; echo b >.env.swap-target
expect_status 0 "unconfined: renameat2 RENAME_EXCHANGE" "$P/guard" exchange x1 .env.swap-target
expect_status 1 "guarded: RENAME_EXCHANGE onto a protected name is refused" "${S[@]}" "$P/guard" exchange x1 .env.swap-target
rm -f x1 .env.swap-target
# 32-bit calls take the same route (x86_64 with IA32 emulation only).
if ! have i386; then
  skip "i386: 32-bit creation calls: this kernel has no IA32 emulation (int 0x80 faults before any filter)"
else
  expect_status 0 "unconfined: i386 open(O_CREAT)" "$P/guard" i386-open i386.txt
  rm -f i386.txt
  expect_status 1 "guarded: i386 open(.env.i386, O_CREAT) is refused" "${S[@]}" "$P/guard" i386-open .env.i386
  expect_status 1 "guarded: i386 creat(k.pem) is refused" "${S[@]}" "$P/guard" i386-creat k.pem
  [ ! -e .env.i386 ] && [ ! -e k.pem ] && pass "no 32-bit name was created" || fail "a 32-bit call created a protected name"
  expect_status 0 "guarded: i386 open(O_CREAT) of an allowed name works" "${S[@]}" "$P/guard" i386-open i386.txt
  rm -f i386.txt
fi

# /dev/stderr and /proc/self mean the command, not the guard.
expect_status 0 "guarded: echo > /dev/stderr and > /proc/self/fd/1 reach the command" \
  "${S[@]}" sh -c 'echo to-stderr >> /dev/stderr; echo to-stdout >> /proc/self/fd/1; echo to-fd >> /dev/fd/1'
grep -q to-stderr "$_err" && grep -q to-stdout "$_out" && grep -q to-fd "$_out" \
  && pass "... and the text arrived" || fail "the text went elsewhere"
# A link of the command's own into /proc/self resolves in the guard: it must
# fail loudly, never hand over one of the guard's descriptors or files.
ln -s /proc/self/fd/1 my-stdout
expect_status 1 "guarded: a symlink into /proc/self/fd fails instead of writing elsewhere" \
  "${S[@]}" sh -c 'echo x > my-stdout || exit 1'
rm -f my-stdout
# The guard's own /proc files (mem, environ, fdinfo, namespaces) are
# test_guard_paths's (check_opened). Its descriptors, the listener among
# them: --no-network, where no Landlock file-system rule stands in the way.
expect_status 0 "guarded: none of the guard's descriptors (the listener!) can be reopened" \
  "$L" --no-network --protect-secrets --project "$proj" -- python3 -c 'import os, sys
bad = 0
for n in range(0, 16):
    for acc in (os.O_RDWR, os.O_RDONLY):
        try:
            fd = os.open("/proc/%d/fd/%d" % (os.getppid(), n), acc | os.O_CREAT)
            print(n, "opened", os.readlink("/proc/self/fd/%d" % fd)); bad = 1
        except OSError:
            pass
sys.exit(bad)'

# The race: another thread rewrites the path while the guard checks it.
expect_status 1 "guarded: 20000 O_CREAT opens against a flipping buffer never create .env.race" \
  "${S[@]}" "$P/guard" race 20000
[ ! -e .env.race ] && pass ".env.race never appeared" || { fail ".env.race appeared"; rm -f .env.race; }

# Ordinary creation still works, through the guard.
expect_status 0 "guarded: create, append, truncate, mkdir -p, symlink, hard link, rename" "${S[@]}" sh -c '
  set -e
  echo one > f.txt; echo two >> f.txt; [ "$(wc -l < f.txt)" = 2 ]
  : > f.txt; [ ! -s f.txt ]
  mkdir -p d1/d2/d3; ln -s ../f.txt d1/sym; ln f.txt hard.txt; mv hard.txt d1/d2/moved.txt
  [ -L d1/sym ] && [ -f d1/d2/moved.txt ] && [ -d d1/d2/d3 ]
  rm -rf d1 f.txt'
expect_status 0 "guarded: umask 077 gives mode 600 and 700" "${S[@]}" sh -c '
  umask 077; echo x > m.txt; mkdir md; [ "$(stat -c %a m.txt)" = 600 ] && [ "$(stat -c %a md)" = 700 ]; s=$?; rm -rf m.txt md; exit $s'
expect_status 0 "guarded: umask 022 gives mode 644" "${S[@]}" sh -c '
  umask 022; echo x > m.txt; [ "$(stat -c %a m.txt)" = 644 ]; s=$?; rm -f m.txt; exit $s'
expect_status 0 "guarded: O_CLOEXEC on a created descriptor is honoured" "${S[@]}" "$P/guard" cloexec c.txt
expect_status 0 "guarded: the created descriptor gets the lowest free number" "${S[@]}" "$P/guard" lowest l.txt
expect_status 1 "guarded: O_EXCL on an existing file fails" "${S[@]}" "$P/guard" excl c.txt
expect_output_has "errno 17" "... with EEXIST"
rm -f c.txt l.txt
expect_status 0 "guarded: O_TMPFILE linked through /proc/self/fd under an allowed name" "${S[@]}" "$P/guard" tmpfile-link tmp-linked.txt
rm -f tmp-linked.txt
expect_status 0 "guarded: mktemp in \$TMPDIR" "${S[@]}" sh -c 't=$(mktemp) && echo x > "$t" && rm "$t"'
# A new repository is made below a temp root, never in the project
# (tests/linux/test_protect_repo.sh, the repository rule).
expect_status 0 "guarded: git init, add, commit (in a folder of the temp directory)" "${S[@]}" sh -c '
  set -e; d=$(mktemp -d); mkdir "$d/repo"; cd "$d/repo"; git init -q .; git config user.email t@t; git config user.name t
  echo hi > a.txt; mkdir -p src; echo "int f(void){return 1;}" > src/f.c
  git add -A; git commit -qm first; git log --oneline | grep -q first; cd /; rm -rf "$d"'
rm -rf repo
# A rename into another directory with no copying fallback (rustc's rmeta,
# pip's and npm's installs do this): the masks' Landlock layer granted no
# REFER, so every one failed with EXDEV; mv hid it by copying.
if have python3; then
  expect_status 0 "guarded: os.rename of a file and a directory into another directory" "${S[@]}" \
    python3 -c 'import os
os.makedirs("mv_a/d"); os.makedirs("mv_b"); open("mv_a/x", "w").close()
os.rename("mv_a/x", "mv_b/x"); os.rename("mv_a/d", "mv_b/d")'
  rm -rf mv_a mv_b
fi
if command -v cc >/dev/null && command -v make >/dev/null; then
  printf 'all: f.o\nf.o: f.c\n\tcc -c -o f.o f.c\n' >Makefile
  echo 'int f(void) { return 1; }' >f.c
  expect_status 0 "guarded: make (cc -c -o)" "${S[@]}" make -s
  [ -f f.o ] && pass "f.o was built" || fail "f.o is missing"
  rm -f Makefile f.c f.o
fi

# The guard is inside the same Landlock domain: outside the writable roots
# nothing is created, with the guard as without it.
expect_status 1 "confined without protection: /etc/nope is refused" "$L" --sandbox -- sh -c 'echo x > /etc/nope 2>/dev/null || exit 1'
expect_status 1 "guarded: /etc/nope is refused" "${S[@]}" sh -c 'echo x > /etc/nope 2>/dev/null || exit 1'
[ ! -e /etc/nope ] && pass "/etc/nope does not exist" || { fail "/etc/nope exists"; rm -f /etc/nope; }
expect_status 0 "guarded: --no-network --protect-secrets still creates ordinary files" \
  "$L" --no-network --protect-secrets --project "$proj" -- sh -c 'echo x > nn.txt && rm nn.txt'
expect_status 1 "guarded: --no-network --protect-secrets refuses .env.nn" \
  "$L" --no-network --protect-secrets --project "$proj" -- sh -c 'echo x > .env.nn 2>/dev/null || exit 1'
expect_status 0 "guarded: --protect-secrets alone still creates ordinary files" \
  "$L" --protect-secrets --project "$proj" -- sh -c 'echo x > pp.txt && rm pp.txt'
expect_status 1 "guarded: --protect-secrets alone refuses .env.pp" \
  "$L" --protect-secrets --project "$proj" -- sh -c 'echo x > .env.pp 2>/dev/null || exit 1'
[ ! -e .env.nn ] && [ ! -e .env.pp ] && pass "no name was created in the other modes" || fail "a name was created in another mode"

# openat2 and io_uring open files without open(2): refused in every mode
# with the guard. (Every launcher mode also runs a main program refusing
# them; the guard's own copies alone are test_guard_spawn's, through a
# library policy without one.)
for mode in "--sandbox" "--no-network" "--confine-fs"; do
  expect_status 1 "guarded $mode: openat2 is refused" \
    "$L" $mode --protect-secrets --project "$proj" -- "$P/esc_kernel" openat2
  u=0; "$P/uring" setup >/dev/null 2>&1 || u=$?
  if [ "$u" = 0 ]; then
    expect_status 1 "guarded $mode: io_uring_setup is refused" \
      "$L" $mode --protect-secrets --project "$proj" -- "$P/uring" setup
  else skip "io_uring: io_uring is not available here (exit $u)"; fi
done

# A sandbox inside a guarded one fails closed: the guard would create names
# outside the inner Landlock domain, so it refuses landlock_restrict_self.
expect_status 126 "guarded: a nested --read-only launcher fails closed" "${S[@]}" "$L" --read-only -- true
expect_output_has "creation guard refuses every further Landlock domain" "... and says why"

# Exit status and signals pass through the guard.
expect_status 7 "guarded: exit 7 comes through" "${S[@]}" sh -c 'exit 7'
expect_signal SYS "guarded --no-network: an AF_INET socket still kills with SIGSYS" \
  "$L" --no-network --protect-secrets --project "$proj" -- python3 -c 'import socket; socket.socket()'
"${S[@]}" sh -c 'trap "echo got-term > term.txt; exit 3" TERM; echo ready > ready.txt; while :; do sleep 0.05; done' \
  >"$_out" 2>"$_err" &
lpid=$!
for _ in $(seq 100); do [ -e ready.txt ] && break; sleep 0.05; done
kill -TERM "$lpid"
st=0; wait "$lpid" || st=$?
[ "$st" = 3 ] && grep -q got-term term.txt 2>/dev/null && pass "SIGTERM to the launcher reached the command (exit $st)" \
  || fail "SIGTERM did not reach the command (exit $st)"
rm -f ready.txt term.txt

# The command cannot disarm the guard.
expect_status 1 "guarded: the command cannot ptrace the guard, read or write its memory, take its descriptors" "${S[@]}" "$P/guard" ptrace-parent
expect_status 1 "guarded --no-network (no Landlock file-system rules): the same" \
  "$L" --no-network --protect-secrets --project "$proj" -- "$P/guard" ptrace-parent
"${S[@]}" "$P/guard" kill-guard after-kill.txt >"$_out" 2>"$_err"
for _ in $(seq 60); do [ -s "$_out" ] && break; sleep 0.05; done
sleep 0.2
if [ -e after-kill.txt ]; then fail "a file was created after the guard was killed"; rm -f after-kill.txt
elif grep -q "kill the guard: errno 1 " "$_out"; then pass "the command cannot signal its guard (EPERM)"
elif grep -q "errno 38" "$_out"; then pass "once the guard is killed, creation fails with ENOSYS"
else fail "no ENOSYS after the guard was killed: $(head -1 "$_out")"; fi

# A pattern of several components: renaming a directory, or naming a symlink,
# after its leading part would make the protected path without creating it.
G=("$L" --sandbox --protect 'conf/secret.yml' --project "$proj" --)
mkdir -p t && echo s > t/secret.yml
expect_status 0 "unconfined: mv t conf makes conf/secret.yml" sh -c 'mv t conf && mv conf t'
expect_status 1 "guarded: mv t conf (a directory holding secret.yml) is refused" \
  "${G[@]}" sh -c 'mv t conf 2>/dev/null || exit 1'
expect_status 1 "guarded: ln -s t conf is refused" "${G[@]}" sh -c 'ln -s t conf 2>/dev/null || exit 1'
[ -e conf ] || [ -L conf ] && fail "conf exists" || pass "conf was not made"
expect_status 0 "guarded: mv t other-name works" "${G[@]}" sh -c 'mv t other && mv other t'
expect_status 1 "guarded: conf/secret.yml itself is refused" \
  "${G[@]}" sh -c 'mkdir conf && echo x > conf/secret.yml 2>/dev/null || exit 1'
rm -rf t conf

# O_CREAT|O_DIRECTORY through a dangling symlink: before Linux 6.4 the kernel
# created the link's target as a file; the guard answers EINVAL as 6.4+ does.
ln -s .env.dir dirlink
expect_status 1 "guarded: O_CREAT|O_DIRECTORY through a link to .env.dir" "${S[@]}" python3 -c '
import os, sys
try:
    os.open("dirlink", os.O_CREAT | os.O_DIRECTORY | os.O_WRONLY)
except OSError as e:
    print("errno", e.errno); sys.exit(1)'
expect_output_has "errno 22" "O_CREAT|O_DIRECTORY is EINVAL"
[ -e .env.dir ] && fail ".env.dir was created" || pass ".env.dir was not created"
rm -f dirlink .env.dir

# A FIFO opened for writing waits for its reader without stalling the guard:
# the command exiting meanwhile ends the guard (and the launcher) at once.
expect_status 0 "guarded: a writer waits for its FIFO reader" "${S[@]}" \
  sh -c 'mkfifo ff; (sleep 0.3; cat ff) & echo through-fifo > ff; wait'
expect_output_has "through-fifo" "the FIFO carried the data"
rm -f ff
start=$(date +%s)
expect_status 0 "guarded: a command that exits while a FIFO writer waits" \
  timeout -k 2 20 "${S[@]}" sh -c 'mkfifo ff; (exec 3>ff) & sleep 0.3; exit 0'
[ $(( $(date +%s) - start )) -lt 10 ] && pass "the guard did not hang on the FIFO" \
  || fail "the launcher took $(( $(date +%s) - start )) s"
rm -f ff

# fs.protected_symlinks and protected_regular, which the guard applies itself
# where it follows a dangling link or opens an existing file (as root: the
# scenario needs three owners).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  stk=$(mktemp -d /tmp/sbx-guard-sticky.XXXXXX)
  u=$(mktemp -d /tmp/sbx-guard-user.XXXXXX)
  chmod 1777 "$stk"
  chmod 755 "$u"
  chown 12345:12345 "$u"
  setpriv --reuid=daemon --regid=daemon --clear-groups sh -c "ln -s $u/target $stk/link; echo d > $stk/dfile; chmod 666 $stk/dfile"
  # as12345 CMD: the launcher as uid 12345 from its project $u
  as12345() {
    (cd "$u" && setpriv --reuid=12345 --regid=12345 --clear-groups env HOME=/nonexistent \
       "$L" --protect-secrets --add-dir "$stk" -- sh -c "$1")
  }
  expect_status 1 "guarded: a dangling link of another user's in a sticky directory is not followed" \
    as12345 "echo x > $stk/link || exit 1"
  [ -e "$u/target" ] && fail "the link's target was created" || pass "the link's target was not created"
  expect_status 1 "guarded: another user's file in a sticky directory is not opened with O_CREAT" \
    as12345 "echo y >> $stk/dfile || exit 1"
  expect_status 0 "guarded: the command's own new file in a sticky directory works" \
    as12345 "echo z > $stk/mine && echo w >> $stk/mine"
  rm -rf "$stk" "$u"
fi

expect_status 0 "--self-test names the creation guard" "$L" --self-test
expect_output_has "refused by the creation guard" "--self-test says names created later are refused"
# A process that made itself non-dumpable (ssh-agent -a, gpg-agent) refuses
# ptrace-level access to the same uid; the guard reads its callers' memory
# and takes their sockets, so every creation under protected paths failed
# with EPERM (review of 2 December, F4). The supervisor now keeps
# CAP_SYS_PTRACE in the masks' user namespace; the command holds none.
nd_py='import ctypes, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
if sys.argv[1] == "nd" and libc.prctl(4, 0, 0, 0, 0) != 0:
    sys.exit("PR_SET_DUMPABLE failed")
os.mkdir("nd-dir"); open("nd-file", "w").write("x")
socket.socket(socket.AF_UNIX).bind("nd.sock")
try:
    open(".env.nd", "w")
    print("protected: made")
except PermissionError:
    print("protected: refused")
st = open("/proc/self/status").read().split("\n")
print([l for l in st if l.startswith("CapEff")][0].split()[1])'
for m in d nd; do
  rm -rf nd-dir nd-file nd.sock .env.nd
  st=0; "${S[@]}" /usr/bin/python3 -c "$nd_py" "$m" >"$_out" 2>"$_err" || st=$?
  if [ "$st" = 0 ] && grep -q "protected: refused" "$_out" && [ -d nd-dir ] && [ -f nd-file ] && [ -S nd.sock ] && [ ! -e .env.nd ]; then
    pass "guarded, $m: mkdir, open(O_CREAT) and bind work, a protected name is refused"
  else fail "guarded, $m: exit $st, $(ls -A | tr '\n' ' ') $(head -c 300 "$_out" "$_err")"; fi
  grep -qx 0000000000000000 "$_out" && pass "  ...and the command holds no capability ($m)" ||
    fail "  ...the command's capabilities: $(tail -1 "$_out")"
done
rm -rf nd-dir nd-file nd.sock .env.nd
# That capability is in effect only for the guard's reads of its caller, not
# while it opens for the command (review r59 F1): a process of the run that
# added O_CREAT to an open of a non-dumpable sibling's /proc/PID/mem read its
# memory as root (environ, an unlinked file's descriptor too), and as nobody
# its maps. Each such open must fail as the plain open does.
nd_victim='import ctypes, os, sys, time
if sys.argv[1] == "victim":
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
    secret = ctypes.create_string_buffer(b"NDSECRET-4242")
    print(ctypes.addressof(secret), flush=True)
    time.sleep(30)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.dup2(w, 1)
    os.execv(sys.executable, [sys.executable, "-c", sys.argv[2], "victim", ""])
os.close(w)
addr = int(os.read(r, 64))
for name in ("mem", "environ", "maps", "fd/1"):
    try:
        fd = os.open("/proc/%d/%s" % (pid, name), os.O_RDONLY | os.O_CREAT)
        data = os.pread(fd, 13, addr) if name == "mem" else os.read(fd, 64)
        print(name, "READ", data)
    except OSError as e:
        print(name, "refused", e.strerror)
os.kill(pid, 9)'
st=0; "${S[@]}" /usr/bin/python3 -c "$nd_victim" x "$nd_victim" >"$_out" 2>"$_err" || st=$?
if [ "$st" = 0 ] && [ "$(grep -c refused "$_out")" = 4 ]; then
  pass "guarded: a non-dumpable sibling's mem, environ, maps and fd stay refused with O_CREAT"
else fail "guarded: a non-dumpable sibling's /proc files with O_CREAT: exit $st, $(tr '\n' ' ' <"$_out") $(head -c 200 "$_err")"; fi
expect_status 0 "--explain lists the guard's program" "$L" --explain --sandbox --protect-secrets -- true
expect_output_has "creation guard (seccomp program create-notify" "--explain shows the creation guard"
expect_output_has "renameat2" "--explain lists renameat2"
finish
