#!/usr/bin/env bash
# Every security rule of the seccomp tables (src/linux/seccomp_rules.c),
# against the real kernel, generated from the table itself: the rules come
# from the launcher's --explain --json, one program per mode, and each one is
# driven by exactly the system call it names (tests/probes/rawsys), on the
# native ABI and on i386, both unconfined (the call reaches the kernel, which
# answers something other than the rule's verdict) and confined (the rule's
# verdict: the errno, SIGSYS, or for the creation guard EACCES with the name
# left uncreated). A rule without a recipe below fails: a new rule needs one.
. "$SBX_TESTLIB"
have python3 || skip_all "python3: needed to read --explain --json"
[ -x "$P/rawsys" ] || { fail "probe rawsys is not built"; finish; }
SIGSYS_STATUS=$((128 + $(kill -l SYS)))

proj=$_scratch/proj
mkdir -p "$proj"
cd "$proj" || exit 1
export HOME=$_home

# Recipes: rawsys arguments that reach the kernel without side effects (a
# missing path, a bad descriptor, an invalid size), keyed "syscall" or
# "syscall|condition text". @ is the project; the creation-guard recipes
# create the protected name @/.env and work on @/plain.
declare -A R=(
  [io_uring_setup]="i:0 b:" [io_uring_enter]="i:-1 i:0 i:0 i:0 i:0" [io_uring_register]="i:-1 i:0 i:0 i:0"
  [openat2]="i:-100 s:/ b: i:24" [truncate]="s:/nonexistent-sbx i:0" [truncate64]="s:/nonexistent-sbx i:0 i:0"
  [socketpair]="i:1 i:1 i:0 b:"
  [chmod]="s:/nonexistent-sbx i:0" [fchmod]="i:-1 i:0" [fchmodat]="i:-100 s:/nonexistent-sbx i:0"
  [fchmodat2]="i:-100 s:/nonexistent-sbx i:0 i:0"
  [chown]="s:/nonexistent-sbx i:0 i:0" [fchown]="i:-1 i:0 i:0" [lchown]="s:/nonexistent-sbx i:0 i:0"
  [fchownat]="i:-100 s:/nonexistent-sbx i:0 i:0 i:0" [chown32]="s:/nonexistent-sbx i:0 i:0"
  [fchown32]="i:-1 i:0 i:0" [lchown32]="s:/nonexistent-sbx i:0 i:0"
  [setxattr]="s:/nonexistent-sbx s:user.sbx b: i:0 i:0" [lsetxattr]="s:/nonexistent-sbx s:user.sbx b: i:0 i:0"
  [fsetxattr]="i:-1 s:user.sbx b: i:0 i:0" [removexattr]="s:/nonexistent-sbx s:user.sbx"
  [lremovexattr]="s:/nonexistent-sbx s:user.sbx" [fremovexattr]="i:-1 s:user.sbx"
  [utime]="s:/nonexistent-sbx i:0" [utimes]="s:/nonexistent-sbx i:0" [futimesat]="i:-100 s:/nonexistent-sbx i:0"
  [utimensat]="i:-100 s:/nonexistent-sbx i:0 i:0" [utimensat_time64]="i:-100 s:/nonexistent-sbx i:0 i:0"
  [shmget]="i:1 i:0 i:0" [shmat]="i:-1 i:0 i:0" [shmdt]="i:0" [shmctl]="i:-1 i:0 i:0"
  [semget]="i:1 i:0 i:0" [semop]="i:-1 b: i:1" [semtimedop]="i:-1 b: i:1 i:0"
  [semtimedop_time64]="i:-1 b: i:1 i:0" [semctl]="i:-1 i:0 i:0 i:0"
  [msgget]="i:1 i:0" [msgsnd]="i:-1 b: i:0 i:0" [msgrcv]="i:-1 b: i:0 i:0 i:0" [msgctl]="i:-1 i:0 i:0"
  [ipc]="i:1 i:-1 i:1 i:0 b:"
  [mq_open]="s:sbx-none i:0 i:0 i:0" [mq_unlink]="s:sbx-none" [mq_timedsend]="i:-1 b: i:0 i:0 b:"
  [mq_timedsend_time64]="i:-1 b: i:0 i:0 b:" [mq_timedreceive]="i:-1 b: i:0 b: b:"
  [mq_timedreceive_time64]="i:-1 b: i:0 b: b:" [mq_notify]="i:-1 i:0" [mq_getsetattr]="i:-1 i:0 i:0"
  [add_key]="s:user s:sbx b: i:1 i:0" [request_key]="s:user s:sbx-none i:0 i:0" [keyctl]="i:-1"
  [bpf]="i:-1 i:0 i:0" [perf_event_open]="b: i:0 i:-1 i:-1 i:0" [userfaultfd]="i:1"
  [personality]="i:0xffffffff" [landlock_restrict_self]="i:-1 i:0"
  [socketcall]="i:1 b:"
  # the new mount API (refused everywhere): a missing path, a bad descriptor,
  # an unknown file system type, an invalid flag; open_tree without
  # OPEN_TREE_CLONE is a plain O_PATH open of / (no mount is made)
  [open_tree]="i:-100 s:/ i:0"
  [move_mount]="i:-100 s:/nonexistent-sbx i:-100 s:/nonexistent-sbx i:0"
  [fsopen]="s:sbx-nofs i:0" [fsconfig]="i:-1 i:0 i:0 i:0 i:0" [fsmount]="i:-1 i:0 i:0"
  [fspick]="i:-100 s:/nonexistent-sbx i:0" [mount_setattr]="i:-100 s:/nonexistent-sbx i:1 b: i:32"
  # RLIMIT_CORE (4): set soft and hard to 0 (a zeroed buffer); a silent no-op
  # confined, so rawsys's "core before -> after" line is what is checked
  ["setrlimit|resource is RLIMIT_CORE"]="i:4 b:"
  ["prlimit64|resource is RLIMIT_CORE and a new limit is given"]="i:0 i:4 b: i:0"
  # read-only: another process's limits and scheduling. prlimit64 reads the
  # test shell's RLIMIT_NOFILE (no new limit: nothing changes); the setters
  # name a pid or group that cannot exist (above PID_MAX_LIMIT), so the kernel
  # answers ESRCH and nothing is changed
  ["prlimit64|pid is not 0 (the caller)"]="i:$$ i:7 i:0 b:"
  ["setpriority|which is not PRIO_PROCESS"]="i:1 i:0x3fffffff i:0"
  ["setpriority|who is not 0 (the caller)"]="i:0 i:0x3fffffff i:0"
  [sched_setaffinity]="i:0x3fffffff i:8 b:" [sched_setscheduler]="i:0x3fffffff i:0 b:"
  [sched_setparam]="i:0x3fffffff b:" [sched_setattr]="i:0x3fffffff b: i:0"
  ["ioprio_set|which is not IOPRIO_WHO_PROCESS"]="i:2 i:0x3fffffff i:0"
  ["ioprio_set|who is not 0 (the caller)"]="i:1 i:0x3fffffff i:0"
  [migrate_pages]="i:0x3fffffff i:0 i:0 i:0" [move_pages]="i:0x3fffffff i:0 i:0 i:0 i:0"
  # the user-namespace switch: unshare(CLONE_NEWUSER) makes one for rawsys
  # alone; clone with CLONE_NEWUSER|CLONE_FS is the kernel's own EINVAL (no
  # child); clone3 with size 0 is EINVAL unconfined, ENOSYS confined; setns
  # into the caller's own user namespace is the kernel's EINVAL
  [unshare]="i:0x10000000" [clone]="i:0x10000200 i:0 i:0 i:0 i:0" [clone3]="b: i:0"
  ["setns|nstype has CLONE_NEWUSER"]="d:/proc/self/ns/user i:0x10000000"
  ["setns|nstype is 0 (any)"]="d:/proc/self/ns/user i:0"
  # the socket rules: the family decides
  ["socket|domain is not a local family"]="i:2 i:1 i:0"
  ["socket|domain is AF_INET or AF_INET6"]="i:2 i:1 i:0"
  ["socket|domain is any other family"]="i:1 i:1 i:0"
  ["socket|the ABI is i386, whatever the domain"]="i:1 i:1 i:0"
  # truncation of a file opened for reading
  ["open|flags are O_RDONLY|O_TRUNC"]="s:/nonexistent-sbx i:0x200"
  ["openat|flags are O_RDONLY|O_TRUNC"]="i:-100 s:/nonexistent-sbx i:0x200"
  ["open_by_handle_at|flags are O_RDONLY|O_TRUNC"]="i:-1 b: i:0x200"
  # the creation guard: create the protected name
  ["open|flags have O_CREAT"]="s:@/.env i:0x41 i:0600"
  ["openat|flags have O_CREAT"]="i:-100 s:@/.env i:0x41 i:0600"
  [creat]="s:@/.env i:0600" [mkdir]="s:@/.env i:0700" [mkdirat]="i:-100 s:@/.env i:0700"
  [mknod]="s:@/.env i:0x1180 i:0" [mknodat]="i:-100 s:@/.env i:0x1180 i:0"
  [symlink]="s:plain s:@/.env" [symlinkat]="s:plain i:-100 s:@/.env"
  [link]="s:@/plain s:@/.env" [linkat]="i:-100 s:@/plain i:-100 s:@/.env i:0"
  [rename]="s:@/plain s:@/.env" [renameat]="i:-100 s:@/plain i:-100 s:@/.env"
  [renameat2]="i:-100 s:@/plain i:-100 s:@/.env i:0"
  [bind]="u: a:@/.env i:110"
)
# ioctl rules: the request is the rule's value, on /dev/null (ENOTTY unconfined).
# The requests the tables must refuse (docs/seccomp.md), stated here rather
# than read from the table, so that a deleted rule is noticed.
IOCTLS=("request is TIOCSTI" "request is TIOCLINUX" "request is FS_IOC_SETFLAGS"
        "request is FS_IOC32_SETFLAGS" "request is FS_IOC_FSSETXATTR"
        "request is BTRFS_IOC_SNAP_CREATE" "request is BTRFS_IOC_SNAP_CREATE_V2"
        "request is BTRFS_IOC_SUBVOL_CREATE" "request is BTRFS_IOC_SUBVOL_CREATE_V2"
        "request is BTRFS_IOC_SNAP_DESTROY" "request is BTRFS_IOC_SNAP_DESTROY_V2"
        "request is 0x4C00-0x4CFF (LOOP_*, LOOP_CTL_*)" "request is TUNSETIFF" "request is TUNSETQUEUE")
declare -A USED=() UNCONF=() DONE_PROG=()
# The i386-only rule ("the ABI is i386, whatever the domain") runs on i386 only.
declare -A ONLY_ABI=(["socket|the ABI is i386, whatever the domain"]=32)
# Unconfined, landlock_restrict_self wants no_new_privs before it looks at the descriptor.
declare -A PRE=([landlock_restrict_self]="setpriv --no-new-privs")
# The mount API wants CAP_SYS_ADMIN over the mount namespace before it looks at
# its arguments: unconfined, a non-root caller makes the call in a user+mount
# namespace of its own, where the kernel goes on to the arguments.
if [ "$(id -u)" != 0 ] && have userns; then
  for sc in move_mount fsopen fsmount fspick mount_setattr; do PRE[$sc]="unshare -Urm"; done
fi

# The rules of one mode's programs: syscall, action, condition, ioctl request
# and program, separated by \x1f (a condition may hold | and spaces).
rules_of() {
  "$L" --explain --json "$@" -- true | python3 -c '
import json, sys
d = json.load(sys.stdin)
progs = [d[k] for k in ("seccomp", "creation_guard", "user_namespaces") if isinstance(d.get(k), dict) and d[k].get("groups")]
for prog in progs:
    for g in prog["groups"]:
        for r in g["rules"]:
            w = r["when"]
            if w == "always": text, value = "always", ""
            elif "text" in w: text, value = w["text"], (hex(w["value"]) if r["syscall"] == "ioctl" else "")
            elif "domain_in" in w: text, value = "domain is " + " or ".join(w["domain_in"]), ""
            else: text, value = "domain_not_in " + ",".join(w["domain_not_in"]), ""
            print(r["syscall"], r["action"], text, value, prog["program"], sep="\x1f")'
}

# fresh: the project as each creation-guard recipe expects it.
fresh() { rm -rf "$proj/.env"; : >"$proj/plain"; }

# run_one MODE-ARGS... -- ABI ARGS: rawsys confined (or unconfined without a mode).
n_rules=0
check_rule() {
  local sc=$2 action=$3 text=$4 value=$5 prog=$6
  local key="$sc|$text" args abi got want_errno conf out ckey
  case $text in "domain_not_in AF_UNIX,AF_NETLINK") key="socket|domain is not a local family" ;;
               "domain_not_in AF_INET,AF_INET6") key="socket|domain is any other family" ;;
               "domain is AF_INET or AF_INET6") key="socket|domain is AF_INET or AF_INET6" ;; esac
  [ "$sc" = socket ] && [ "$text" = always ] && key="socket|the ABI is i386, whatever the domain"
  if [ "$sc" = ioctl ]; then args="d:/dev/null i:$value b:"; USED["ioctl|$text"]=1
  elif [ -n "${R[$key]+x}" ]; then args=${R[$key]}; USED[$key]=1
  elif [ -n "${R[$sc]+x}" ]; then args=${R[$sc]}; USED[$sc]=1
  else fail "$prog: no recipe for the rule '$sc' when '$text' (add one to test_rule_table.sh)"; return; fi
  args=${args//@/$proj}
  n_rules=$((n_rules + 1))
  case $action in
    EPERM) want_errno=1 ;; EACCES) want_errno=13 ;; ENOSYS) want_errno=38 ;;
    kill-process) want_errno=kill ;; notify-guard) want_errno=13 ;; no-op) want_errno=noop ;;
    *) fail "$prog: $sc: unknown action $action"; return ;;
  esac
  for abi in 64 32; do
    [ -n "${ONLY_ABI[$key]+x}" ] && [ "${ONLY_ABI[$key]}" != "$abi" ] && continue
    if [ "$abi" = 32 ] && ! have i386; then
      skip "i386: $prog: $sc on the i386 ABI"; continue
    fi
    [ "$action" = notify-guard ] && fresh
    # The unconfined answer does not depend on the mode: asked once per call
    # and arguments (the guard's recipes create .env and no-op reads the
    # limits, so those run every time).
    ckey="$abi|$sc|$args"
    if [ "$action" != notify-guard ] && [ "$action" != no-op ] && [ -n "${UNCONF[$ckey]+x}" ]; then
      got=${UNCONF[$ckey]%%|*}; out=${UNCONF[$ckey]#*|}
    else
      got=0; out=$(${PRE[$sc]:-} "$P/rawsys" "$abi" "$sc" $args 2>&1) || got=$?
      UNCONF[$ckey]="$got|$out"
    fi
    [ "$got" = 2 ] && continue   # no such call on this ABI: the rule has nothing to catch there
    local name="$prog/$abi: $sc ($text)"
    if [ "$got" = "$SIGSYS_STATUS" ]; then fail "$name: SIGSYS unconfined"; continue; fi
    if [ "$action" = no-op ]; then noop_rule "$name" "$got" "$out" "$abi" "$sc" "$args"; continue; fi
    if [ "$action" = notify-guard ]; then
      if [ "$got" = 0 ] && { [ -e "$proj/.env" ] || [ -L "$proj/.env" ]; }; then pass "$name: creates .env unconfined"
      else fail "$name: unconfined did not create .env: $out"; fi
      fresh
    elif [ "$got" = 1 ] && [ "$out" != "${out#errno $want_errno }" ]; then
      case $sc in
        bpf|perf_event_open|userfaultfd|personality)
          local k=kernel_${sc%%_*}; [ "$sc" = perf_event_open ] && k=kernel_perf
          if have "$k"; then fail "$name: unconfined already $out"; else skip "$k: $name: refused unconfined already ($out)"; fi ;;
        open_by_handle_at) skip "root: $name: needs CAP_DAC_READ_SEARCH unconfined ($out)" ;;
        move_mount|fsopen|fsmount|fspick|mount_setattr)
          if have mountns; then fail "$name: unconfined already $out"; else skip "mountns: $name: needs CAP_SYS_ADMIN over a mount namespace unconfined ($out)"; fi ;;
        unshare) if have userns; then fail "$name: unconfined already $out"; else skip "userns: $name: user namespaces are refused unconfined ($out)"; fi ;;
        *) fail "$name: unconfined already answers the rule's errno: $out" ;;
      esac
    elif [ "$got" = 1 ] && [ "$out" != "${out#errno 38 }" ]; then
      fail "$name: ENOSYS unconfined: this kernel lacks the call ($out)"; continue
    else
      pass "$name: reaches the kernel unconfined (${out%%$'\n'*})"
    fi
    got=0; conf=$("$L" "${mode[@]}" -- "$P/rawsys" "$abi" "$sc" $args 2>&1) || got=$?
    if [ "$want_errno" = kill ]; then
      [ "$got" = "$SIGSYS_STATUS" ] && pass "$name: killed by SIGSYS" || fail "$name: exit $got, wanted SIGSYS: $conf"
    elif [ "$got" = 1 ] && [ "$conf" != "${conf#errno $want_errno }" ]; then
      pass "$name: $action"
    else
      fail "$name: exit $got, wanted errno $want_errno ($action): $conf"
    fi
    if [ "$action" = notify-guard ]; then
      if [ -e "$proj/.env" ] || [ -L "$proj/.env" ]; then fail "$name: .env was created"; else pass "$name: .env was not created"; fi
    fi
  done
}

# noop_rule NAME GOT OUT ABI SC ARGS: a rule whose verdict is "return 0,
# change nothing" (RLIMIT_CORE). Unconfined the zeroed limit must take effect
# (the hard limit drops); confined the call must return 0 with the limit as
# the launcher left it (1/1).
noop_rule() {
  local name=$1 got=$2 out=$3 abi=$4 sc=$5 args=$6 conf before after
  before=$(sed -n 's/^core \(.*\) -> .*/\1/p' <<<"$out"); after=$(sed -n 's/^core .* -> //p' <<<"$out")
  if ! have core_hard; then skip "core_hard: $name: the hard core limit is 0 already, so no change can show"; return; fi
  if [ "$got" = 0 ] && [ -n "$before" ] && [ "$after" = 0/0 ] && [ "$before" != 0/0 ]; then
    pass "$name: unconfined the limit changes ($before -> $after)"
  else fail "$name: unconfined the limit did not change: $out"; return; fi
  got=0; conf=$("$L" "${mode[@]}" -- "$P/rawsys" "$abi" "$sc" $args 2>&1) || got=$?
  before=$(sed -n 's/^core \(.*\) -> .*/\1/p' <<<"$conf"); after=$(sed -n 's/^core .* -> //p' <<<"$conf")
  if [ "$got" = 0 ] && [ "${conf%%$'\n'*}" = "ok 0" ] && [ -n "$before" ] && [ "$before" = "$after" ] && [ "$after" != 0/0 ]; then
    pass "$name: no-op: returns 0, the limit stays $after"
  else fail "$name: exit $got, wanted 0 with the limit unchanged: $conf"; fi
}

# mode_rules KEY MODE...: check every rule of MODE's programs. A program
# already driven under an earlier mode is the same BPF, so it is not driven
# again (the suite runs on two shared cores: time is what it costs).
mode_rules() {
  local key=$1 sc action text value prog p
  local -A here=()
  shift
  mode=("$@")
  if ! have "$key"; then skip "$key: the rules of ${mode[*]}"; return; fi
  while IFS=$'\x1f' read -r sc action text value prog; do
    here[$prog]=1
    [ -n "${DONE_PROG[$prog]+x}" ] && continue
    check_rule "${mode[*]}" "$sc" "$action" "$text" "$value" "$prog"
  done < <(rules_of "${mode[@]}")
  for p in "${!here[@]}"; do DONE_PROG[$p]=1; done
}
mode_rules seccomp --no-network
mode_rules landlock --confine-fs
mode_rules landlock6 --read-only --project "$proj"
# The user-namespace switch outside read-only is a stacked program of its own
# (here on --sandbox's main program, net-confined, driven with it).
mode_rules seccomp --no-user-namespaces
# The creation guard's program, stacked on --sandbox's main program: its
# copies of main-program rules (io_uring, openat2, the btrfs ioctls) answer
# behind that program's here. Every launcher mode has a main program; the
# guard's program alone (a library policy) is test_guard_spawn's.
mode_rules guard --protect-secrets --project "$proj"
# Calls newer than libseccomp's table, refused by number (the explanation's
# newer_syscalls.eperm of each program): their numbers (the kernel's, the
# same on both ABIs) and harmless arguments. On i386 rawsys passes five
# arguments, so setxattrat's size is whatever is left in the register: the
# kernel still answers it with its own errno.
declare -A NEWER_NR=([setxattrat]=463 [removexattrat]=466 [open_tree_attr]=467 [file_setattr]=469)
declare -A NEWER_ARGS=(
  [setxattrat]="i:-100 s:/nonexistent-sbx i:0 s:user.sbx i:0"
  [removexattrat]="i:-100 s:/nonexistent-sbx i:0 s:user.sbx"
  [open_tree_attr]="i:-100 s:/ i:0 i:0 i:0"
  [file_setattr]="i:-100 s:/nonexistent-sbx b: i:24 i:0")
declare -A NEWER_USED=()
newer_of() {
  "$L" --explain --json "$@" -- true | python3 -c '
import json, sys
d = json.load(sys.stdin)
for k in ("seccomp", "creation_guard", "user_namespaces"):
    p = d.get(k)
    if isinstance(p, dict) and isinstance(p.get("newer_syscalls"), dict):
        for n in p["newer_syscalls"]["eperm"]: print(p["program"], n)'
}
newer_rules() {
  local key=$1 prog sc abi got out conf name
  shift
  have "$key" || { skip "$key: the newer calls of $*"; return; }
  while read -r prog sc; do
    if [ -z "${NEWER_NR[$sc]+x}" ]; then fail "$prog: no number and recipe for the newer call '$sc'"; continue; fi
    NEWER_USED[$sc]=1
    if ! have "nr_${NEWER_NR[$sc]}"; then skip "nr_${NEWER_NR[$sc]}: $prog: this kernel lacks $sc"; continue; fi
    for abi in 64 32; do
      if [ "$abi" = 32 ] && ! have i386; then skip "i386: $prog: $sc on the i386 ABI"; continue; fi
      name="$prog/$abi: $sc (newer than libseccomp, by number ${NEWER_NR[$sc]})"
      got=0; out=$("$P/rawsys" "$abi" "nr:${NEWER_NR[$sc]}" ${NEWER_ARGS[$sc]} 2>&1) || got=$?
      if [ "$got" = 1 ] && { [ "$out" != "${out#errno 1 }" ] || [ "$out" != "${out#errno 38 }" ]; }; then
        fail "$name: unconfined already $out"; continue
      elif [ "$got" -gt 1 ]; then fail "$name: unconfined exit $got: $out"; continue; fi
      pass "$name: reaches the kernel unconfined ($out)"
      got=0; conf=$("$L" "$@" -- "$P/rawsys" "$abi" "nr:${NEWER_NR[$sc]}" ${NEWER_ARGS[$sc]} 2>&1) || got=$?
      [ "$got" = 1 ] && [ "$conf" != "${conf#errno 1 }" ] && pass "$name: EPERM" || fail "$name: exit $got, wanted EPERM: $conf"
    done
  done < <(newer_of "$@")
}
newer_rules seccomp --no-network
newer_rules landlock6 --read-only --project "$proj"
if have seccomp && have landlock6; then
  for k in "${!NEWER_NR[@]}"; do
    [ -n "${NEWER_USED[$k]+x}" ] || fail "no program refuses the newer call '$k' any more: was it removed?"
  done
fi

# Two refusals the generated checks cannot reach. The loop rule is a range
# (a mask): a request from its middle, LOOP_CTL_GET_FREE, is refused too. In
# read-only, ioctl is an allowlist (docs/seccomp.md): requests outside it are
# EPERM whatever they are, those in it still reach the driver. All on
# /dev/null, which answers ENOTTY (or, for FICLONE, EBADF: the source is the
# buffer's address, no descriptor) unconfined: nothing is changed anywhere.
# ioctl_check MODE-KEY NAME REQUEST WANT-CONFINED MODE...
ioctl_check() {
  local key=$1 name=$2 req=$3 want=$4 abi got out conf
  shift 4
  have "$key" || { skip "$key: $name"; return; }
  for abi in 64 32; do
    if [ "$abi" = 32 ] && ! have i386; then skip "i386: $name on the i386 ABI"; continue; fi
    got=0; out=$("$P/rawsys" "$abi" ioctl d:/dev/null "i:$req" b: 2>&1) || got=$?
    if [ "$got" = 1 ] && [ "$out" = "${out#errno 1 }" ]; then pass "$name/$abi: reaches the driver unconfined ($out)"
    else fail "$name/$abi: unconfined $out, wanted an errno other than EPERM"; continue; fi
    got=0; conf=$("$L" "$@" -- "$P/rawsys" "$abi" ioctl d:/dev/null "i:$req" b: 2>&1) || got=$?
    if [ "$want" = EPERM ]; then
      [ "$got" = 1 ] && [ "$conf" != "${conf#errno 1 }" ] && pass "$name/$abi: EPERM" || fail "$name/$abi: exit $got, wanted EPERM: $conf"
    else
      [ "$conf" = "$out" ] && pass "$name/$abi: allowed, the driver answers as unconfined ($conf)" ||
        fail "$name/$abi: confined $conf, wanted the unconfined answer $out"
    fi
  done
}
ro=(--read-only --project "$proj")
ioctl_check seccomp "--no-network: LOOP_CTL_GET_FREE (inside the loop range)" 0x4C82 EPERM --no-network
ioctl_check landlock6 "read-only: LOOP_CTL_GET_FREE (inside the loop range)" 0x4C82 EPERM "${ro[@]}"
ioctl_check landlock6 "read-only: FICLONE is outside the allowlist" 0x40049409 EPERM "${ro[@]}"
ioctl_check landlock6 "read-only: FS_IOC_SET_ENCRYPTION_POLICY is outside the allowlist" 0x800c6613 EPERM "${ro[@]}"
ioctl_check landlock6 "read-only: FS_IOC_ADD_ENCRYPTION_KEY is outside the allowlist" 0xc0506617 EPERM "${ro[@]}"
ioctl_check landlock6 "read-only: TIOCSCTTY is outside the allowlist" 0x540E EPERM "${ro[@]}"
ioctl_check landlock6 "read-only: SIOCGIFCONF is outside the allowlist" 0x8912 EPERM "${ro[@]}"
ioctl_check landlock6 "read-only: FIONREAD is in the allowlist" 0x541B allowed "${ro[@]}"
ioctl_check landlock6 "read-only: TCGETS is in the allowlist" 0x5401 allowed "${ro[@]}"
ioctl_check seccomp "--no-network: FICLONE is not refused outside read-only" 0x40049409 allowed --no-network

# Every recipe and every refused ioctl request must still have its rule: the
# expectations above are the contract, so a rule deleted from the table fails
# here instead of silently dropping out of the generated checks.
miss=
for k in seccomp landlock6 guard; do have "$k" || miss=$k; done
if [ -z "$miss" ]; then
  missing=0
  for k in "${!R[@]}"; do
    [ -n "${USED[$k]+x}" ] || { fail "no rule in any program uses the recipe '$k': was its rule removed?"; missing=1; }
  done
  for t in "${IOCTLS[@]}"; do
    [ -n "${USED[ioctl|$t]+x}" ] || { fail "no ioctl rule '$t' in any program: was it removed?"; missing=1; }
  done
  [ "$missing" = 0 ] && pass "every recipe and refused ioctl has its rule"
else
  skip "$miss: the completeness check needs every mode's programs (seccomp, landlock6 and guard)"
fi
[ "$n_rules" -ge 100 ] && pass "$n_rules rules driven from the tables" || fail "only $n_rules rules found"
finish
