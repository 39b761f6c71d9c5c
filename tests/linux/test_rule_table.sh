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
export HOME=$_scratch

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
)
# ioctl rules: the request is the rule's value, on /dev/null (ENOTTY unconfined).
# The requests the tables must refuse (docs/seccomp.md), stated here rather
# than read from the table, so that a deleted rule is noticed.
IOCTLS=("request is TIOCSTI" "request is TIOCLINUX" "request is FS_IOC_SETFLAGS"
        "request is FS_IOC32_SETFLAGS" "request is FS_IOC_FSSETXATTR"
        "request is BTRFS_IOC_SNAP_CREATE" "request is BTRFS_IOC_SNAP_CREATE_V2"
        "request is BTRFS_IOC_SUBVOL_CREATE" "request is BTRFS_IOC_SUBVOL_CREATE_V2"
        "request is BTRFS_IOC_SNAP_DESTROY" "request is BTRFS_IOC_SNAP_DESTROY_V2")
declare -A USED=()
# The i386-only rule ("the ABI is i386, whatever the domain") runs on i386 only.
declare -A ONLY_ABI=(["socket|the ABI is i386, whatever the domain"]=32)
# Unconfined, landlock_restrict_self wants no_new_privs before it looks at the descriptor.
declare -A PRE=([landlock_restrict_self]="setpriv --no-new-privs")

# The rules of one mode's programs: syscall, action, condition, ioctl request
# and program, separated by \x1f (a condition may hold | and spaces).
rules_of() {
  "$L" --explain --json "$@" -- true | python3 -c '
import json, sys
d = json.load(sys.stdin)
progs = [d[k] for k in ("seccomp", "creation_guard") if isinstance(d.get(k), dict) and d[k].get("groups")]
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
  local key="$sc|$text" args abi got want_errno conf out
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
    kill-process) want_errno=kill ;; notify-guard) want_errno=13 ;;
    *) fail "$prog: $sc: unknown action $action"; return ;;
  esac
  for abi in 64 32; do
    [ -n "${ONLY_ABI[$key]+x}" ] && [ "${ONLY_ABI[$key]}" != "$abi" ] && continue
    if [ "$abi" = 32 ] && ! have i386; then
      skip "i386: $prog: $sc on the i386 ABI"; continue
    fi
    [ "$action" = notify-guard ] && fresh
    got=0; out=$(${PRE[$sc]:-} "$P/rawsys" "$abi" "$sc" $args 2>&1) || got=$?
    [ "$got" = 2 ] && continue   # no such call on this ABI: the rule has nothing to catch there
    local name="$prog/$abi: $sc ($text)"
    if [ "$got" = "$SIGSYS_STATUS" ]; then fail "$name: SIGSYS unconfined"; continue; fi
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
        *) fail "$name: unconfined already answers the rule's errno: $out" ;;
      esac
    elif [ "$got" = 1 ] && [ "$out" != "${out#errno 38 }" ]; then
      fail "$name: ENOSYS unconfined: this kernel lacks the call ($out)"; continue
    else
      pass "$name: reaches the kernel unconfined ($out)"
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

# mode_rules KEY MODE...: check every rule of MODE's programs.
mode_rules() {
  local key=$1 sc action text value prog
  shift
  mode=("$@")
  if ! have "$key"; then skip "$key: the rules of ${mode[*]}"; return; fi
  while IFS=$'\x1f' read -r sc action text value prog; do
    check_rule "${mode[*]}" "$sc" "$action" "$text" "$value" "$prog"
  done < <(rules_of "${mode[@]}")
}
mode_rules seccomp --no-network
mode_rules landlock --confine-fs
mode_rules landlock6 --read-only --project "$proj"
# The creation guard alone (no main program), so its own copies of the rules are what is tested.
mode_rules guard --protect-secrets --project "$proj"
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
