# Shared helpers for the bash tests. Source it, call the checks, end with
# `finish`, which prints "N passed, N failed, N skipped", lists every skip with
# its reason and sets the exit status: it fails on any failure and when
# nothing passed. Skips: see "the machine profile" below.
# Environment (set by ctest): SBX_LAUNCHER, SBX_PROBES, SBX_SOURCE_DIR.
set -u
L=${SBX_LAUNCHER:?SBX_LAUNCHER is not set}
P=${SBX_PROBES:-}
_pass=0
_fail=0
_skip=0

pass() { _pass=$((_pass + 1)); echo "ok   - $*"; }
fail() { _fail=$((_fail + 1)); echo "FAIL - $*"; }
# skip "KEY: reason": a check this machine cannot run (see the profile below).
skip() {
  local key
  if key=$(_skip_key "$*"); then
    _skip=$((_skip + 1)); _skips+=("$*"); echo "skip - $* [profile: no $key]"
  else
    fail "unjustified skip (the machine profile does not lack '${*%%:*}'): $*"
  fi
}

# skip_all "KEY: reason": end the whole test as skipped (ctest's 77), on the
# same terms as skip; an unjustified one ends the test as failed.
skip_all() {
  local key
  if key=$(_skip_key "$*"); then
    echo "skip: $* [profile: no $key]"
    rm -rf "$_scratch" "$_home"
    exit 77
  fi
  fail "unjustified skip of the whole test (the machine profile does not lack '${*%%:*}'): $*"
  finish
}

# expect_status WANT NAME CMD...: run CMD, compare its exit status.
expect_status() {
  local want=$1 name=$2 got=0
  shift 2
  "$@" >"$_out" 2>"$_err" || got=$?
  if [ "$got" = "$want" ]; then pass "$name (exit $got)"; else
    fail "$name: exit $got, wanted $want"; sed 's/^/    | /' "$_err" | head -5
  fi
}

# expect_signal SIG NAME CMD...: CMD must die from signal SIG (e.g. SYS).
# A shell reports death by signal N as 128+N.
expect_signal() {
  local sig=$1 name=$2 got=0 num
  shift 2
  num=$(kill -l "$sig")
  "$@" >"$_out" 2>"$_err" || got=$?
  if [ "$got" = $((128 + num)) ]; then pass "$name (killed by SIG$sig)"; else
    fail "$name: exit $got, wanted death by SIG$sig ($((128 + num)))"; sed 's/^/    | /' "$_out" "$_err" | head -8
  fi
}

# expect_output_has TEXT NAME: the last command's stdout+stderr contains TEXT.
expect_output_has() {
  if grep -qF -- "$1" "$_out" "$_err"; then pass "$2"; else
    fail "$2: output lacks '$1'"; sed 's/^/    | /' "$_out" "$_err" | head -8
  fi
}

finish() {
  local s
  echo "${_pass} passed, ${_fail} failed, ${_skip} skipped"
  for s in "${_skips[@]}"; do echo "  skipped: $s"; done
  rm -rf "$_scratch" "$_home"
  if [ "$_fail" = 0 ] && [ "$_pass" = 0 ]; then
    echo "FAIL - nothing passed: a test that checks nothing must skip_all with a reason"
    exit 1
  fi
  [ "$_fail" = 0 ]
  exit $?
}

# with_hosts HOSTS CMD...: run CMD in a private mount namespace whose /etc
# holds HOSTS as its hosts file, "hosts: files" in nsswitch.conf and Debian's
# "multi on" in host.conf, the rest of /etc linked in: name lookups that do
# not depend on this machine's /etc (have mountns).
with_hosts() {
  local hosts=$1
  shift
  local ns=(unshare -m --propagation private)
  [ "$(id -u)" = 0 ] || ns=(unshare -Urm --propagation private)
  mkdir -p "$_scratch/orig-etc"
  printf '%s\n' "$hosts" >"$_scratch/hosts"
  "${ns[@]}" sh -c '
    s=$1; shift
    mount --bind /etc "$s/orig-etc" && mount -t tmpfs -o mode=755 sbx-etc /etc || exit 125
    for f in "$s"/orig-etc/* "$s"/orig-etc/.[!.]*; do
      [ -e "$f" ] || [ -L "$f" ] || continue
      ln -s "$f" "/etc/${f##*/}"
    done
    rm -f /etc/hosts /etc/nsswitch.conf /etc/gai.conf /etc/host.conf
    cp "$s/hosts" /etc/hosts
    echo "hosts: files" >/etc/nsswitch.conf
    echo "multi on" >/etc/host.conf   # Debian'"'"'s: every address of a name, not the first
    exec "$@"' sh "$_scratch" "$@"
}

# ---- the machine profile: which skips are legitimate -------------------------
# A skip is legitimate only when the machine cannot give what the check needs,
# and the profile below, not the test, decides that. Call skip with a
# capability key first:   skip "userns: the mask needs a user namespace"
# The key must be one `have` knows and `have KEY` must be false here; any
# other skip (no key, an unknown key, a key this machine has) is a failure.
# skip_all "KEY: reason" ends the whole test as skipped (exit 77) on the same
# terms. The profile asks the kernel and the system directly (tests/probes/
# machine.c, unshare, /proc), never the library: a bug in the library's own
# availability checks must not turn its tests into skips.
declare -A _have=()
_skips=()

# _have_probe KEY: 0 if this machine (kernel, user, installed tools) has KEY.
# The directory of this process's cgroup v2, as src/linux/reslimits.c finds it.
_own_cgroup2() {
  local rel mnt
  rel=$(sed -n 's/^0:://p' /proc/self/cgroup) && [ -n "$rel" ] || return 1
  mnt=$(awk '$4 == "/" && $0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
  [ -n "$mnt" ] || return 1
  [ "$rel" = / ] && rel=
  echo "$mnt$rel"
}

_have_probe() {
  local k=$1 v
  case $k in
    root) [ "$(id -u)" = 0 ] ;;
    nonroot) [ "$(id -u)" != 0 ] ;;
    x86_64) [ "$(uname -m)" = x86_64 ] ;;
    probes) [ -n "$P" ] && [ -x "$P/sock" ] && [ -x "$P/machine" ] ;;
    # A user namespace with a private mount namespace: the protected-path mask
    # creates both, as root too. Refused in a chroot, with
    # user.max_user_namespaces=0, or by an AppArmor/sysctl restriction.
    userns) command -v unshare >/dev/null && unshare -Urm true 2>/dev/null ;;
    # A private mount namespace for this user (root: directly; others: in a userns).
    mountns) if [ "$(id -u)" = 0 ]; then unshare -m true 2>/dev/null; else have userns; fi ;;
    landlock) have probes && [ "$("$P/machine" landlock-abi)" -ge 1 ] ;;
    landlock4) have probes && [ "$("$P/machine" landlock-abi)" -ge 4 ] ;;
    landlock6) have probes && [ "$("$P/machine" landlock-abi)" -ge 6 ] ;;
    seccomp) grep -q '^Seccomp:' /proc/self/status && [ -r /proc/sys/kernel/seccomp/actions_avail ] &&
             grep -qw kill_process /proc/sys/kernel/seccomp/actions_avail ;;
    seccomp_notify) have probes && "$P/machine" notify >/dev/null ;;
    # Protected paths: Landlock, a user+mount namespace, seccomp user notification.
    guard) have landlock && have userns && have seccomp_notify ;;
    i386) have x86_64 && have probes && "$P/sock_compat" direct 1 >/dev/null 2>&1 ;;
    x32) have x86_64 && have probes && "$P/sock_compat" x32 1 >/dev/null 2>&1 ;;
    shm) [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ] ;;
    io_uring) have probes && [ -x "$P/uring" ] && "$P/uring" setup ;;
    io_uring_socket) have probes && [ -x "$P/uring" ] && "$P/uring" socket ;;
    # A socket family this kernel creates unconfined (af_bluetooth, af_can...).
    af_*) have probes && "$P/sock" "${k#af_}" dgram >/dev/null 2>&1 ||
          "$P/sock" "${k#af_}" stream >/dev/null 2>&1 || "$P/sock" "${k#af_}" seqpacket >/dev/null 2>&1 ||
          "$P/sock" "${k#af_}" raw >/dev/null 2>&1 ;;
    # sock_FAM_TYPE[_PROTO]: the sock probe creates that socket unconfined.
    sock_*) v=${k#sock_}; have probes && "$P/sock" ${v//_/ } ;;
    tun) [ -c /dev/net/tun ] && [ -r /dev/net/tun ] ;;
    # This user can make a tun device: /dev/net/tun, ip, and CAP_NET_ADMIN (12) in the effective set.
    tun_make) [ -c /dev/net/tun ] && have ip &&
              v=$(awk '/^CapEff/ {print $2}' /proc/self/status) && (( 0x$v >> 12 & 1 )) ;;
    # This user may write kernel.core_pattern unconfined (DAC and a writable
    # /proc/sys): opened for writing and closed, nothing is written.
    core_pattern_w) [ -w /proc/sys/kernel/core_pattern ] && { : >>/proc/sys/kernel/core_pattern; } 2>/dev/null ;;
    # This user may attach loop devices and so read raw block devices
    # unconfined: /dev/loop-control readable and writable (root, the disk group) and losetup.
    loop_attach) [ -c /dev/loop-control ] && [ -r /dev/loop-control ] && [ -w /dev/loop-control ] &&
                 command -v losetup >/dev/null ;;
    loop) [ -e /dev/loop-control ] && command -v losetup >/dev/null ;;
    pty) [ -e /dev/ptmx ] && [ -d /dev/pts ] && have python3 ;;
    # CAP_SYS_PTRACE in the effective set and Yama below 3: any process may be
    # traced, a process that is not dumpable too (test_guard_paths holds the guard).
    sys_ptrace) v=$(awk '/^CapEff/ {print $2}' /proc/self/status); (( 0x$v >> 19 & 1 )) &&
                v=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0) && [ "$v" -le 2 ] ;;
    # Unprivileged ptrace of a sibling (yama ptrace_scope 0 or 1 with a child).
    ptrace) v=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0); [ "$v" -le 1 ] ;;
    tiocsti) v=$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1); [ "$v" = 1 ] ;;
    # Setuid bits honoured on the file system of TMPDIR (not mounted nosuid).
    setuid) ! findmnt -n -o OPTIONS -T "${TMPDIR:-/tmp}" 2>/dev/null | grep -qw nosuid ;;
    # Core dumps land in the working directory (the unconfined proof of test_core).
    # The hard RLIMIT_CORE is above 0, so lowering it to 0 shows (test_rule_table's no-op control).
    core_hard) [ "$(ulimit -H -c)" != 0 ] ;;
    core_in_cwd) v=$(cat /proc/sys/kernel/core_pattern); case $v in \|*|/*) false ;; *) true ;; esac ;;
    # The launcher is the static musl build (no glibc symbol versions in it).
    musl) ! grep -aq 'GLIBC_' "$L" ;;
    # The probes were built without a sanitizer (asan preset: no setuid runs, no cores).
    unsanitized) have probes && ! grep -q __asan_init "$P/sock" 2>/dev/null ;;
    # The esc_kernel operations that work unconfined (unprivileged bpf,
    # perf_event_paranoid, vm.unprivileged_userfaultfd...): test_kernel's controls.
    kernel_bpf|kernel_perf|kernel_userfaultfd|kernel_personality)
      have probes && "$P/esc_kernel" "${k#kernel_}" ;;
    # The kernel has this call newer than libseccomp's table (not ENOSYS); all
    # arguments 0, which each of these answers with EFAULT or EINVAL.
    nr_463|nr_466|nr_467|nr_469) have probes && [ -x "$P/rawsys" ] && ! "$P/rawsys" 64 "nr:${k#nr_}" | grep -q '^errno 38 ' ;;
    # user.* extended attributes on the file system of TMPDIR.
    user_xattr) have python3 && python3 -c 'import os,sys,tempfile
with tempfile.NamedTemporaryFile() as f: os.setxattr(f.name, "user.sbx", b"1")' 2>/dev/null ;;
    # The account's home (the user database, not $HOME) is a directory this user owns.
    own_home) v=$(getent passwd "$(id -u)" | cut -d: -f6) && [ -n "$v" ] && [ -d "$v" ] && [ -O "$v" ] ;;
    # ... and it is not in a shared temp directory.
    home_not_tmp) v=$(getent passwd "$(id -u)" | cut -d: -f6); case $v in /tmp/*|/var/tmp/*) false ;; *) true ;; esac ;;
    # Root, yet mode-000 directories are unlistable: no DAC override (never for root).
    dac_enforced) [ "$(id -u)" != 0 ] ;;
    # The bounding set still has net_admin (12) and sys_admin (21).
    bounding_admin) v=$(awk '/^CapBnd/ {print $2}' /proc/self/status); (( (0x$v >> 12 & 1) && (0x$v >> 21 & 1) )) ;;
    # A macvtap link on a veth, in a network namespace of its own: root only
    # (/dev/tapN, issue 17: raw frames by read and write).
    macvtap_make) [ "$(id -u)" = 0 ] && have ip && unshare -n sh -c 'ip link add sbxprofv0 type veth peer name sbxprofv1 &&
                    ip link add link sbxprofv0 name sbxprofm0 type macvtap' ;;
    # ip link add type dummy works (the dummy module loads): root only.
    dummy_link) [ "$(id -u)" = 0 ] && have ip && unshare -n sh -c 'ip link add sbxprof0 type dummy' ;;
    # A btrfs ioctl on TMPDIR's file system answers something other than EPERM
    # unconfined, so the filter's EPERM is told apart (btrfs returns EPERM).
    btrfs_eperm_distinct) [ "$(stat -f -c %T /var/tmp 2>/dev/null)" != btrfs ] ;;
    ptmx) [ -c /dev/ptmx ] ;;
    # yama ptrace_scope 0: a process may ptrace a sibling, not only a child.
    ptrace0) v=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0); [ "$v" = 0 ] ;;
    # FS_IOC_GETFLAGS and user.* xattrs on /tmp (test_readonly_seccomp's file).
    fs_attrs) have python3 && python3 -c 'import fcntl,os,tempfile,array
with tempfile.NamedTemporaryFile(dir="/tmp") as f:
    os.setxattr(f.name, "user.sbx", b"1"); fcntl.ioctl(f.fileno(), 0x80086601, array.array("l",[0]))' ;;
    # Python's own toolchain works unconfined (test_toolchains).
    pip) have python3 && python3 -m pip --version ;;
    venv) have python3 && python3 -c 'import ensurepip, venv' ;;
    # A supervised run's records: seccomp user notification and Landlock's
    # signal scope (ABI 6), which keeps the command from killing its supervisor.
    supervisor) have seccomp_notify && have landlock6 ;;
    # Resource limits (issue 27): a cgroup v2 of the run's own under this
    # process's (root, or a delegated subtree) with cgroup.kill (5.14+) ...
    # (a hierarchy's root has no cgroup.kill of its own: the kernel's version then).
    cgroup2) v=$(_own_cgroup2) && [ -w "$v" ] && { [ -e "$v/cgroup.kill" ] ||
             [ "$(printf '5.14\n%s\n' "$(uname -r)" | sort -V | head -1)" = 5.14 ]; } ;;
    # ... and the memory and pids controllers for it. A hybrid machine whose
    # controllers are bound to cgroup v1 (this VM's runner) has neither.
    # CAP_SYS_RESOURCE in the effective set (raises hard rlimits).
    sys_resource) [ $(( 0x$(awk '/^CapEff/ { print $2 }' /proc/self/status) >> 24 & 1 )) = 1 ] ;;
    cgroup2_ctrl) have cgroup2 && v=$(_own_cgroup2) &&
                  grep -qw memory "$v/cgroup.controllers" && grep -qw pids "$v/cgroup.controllers" ;;
    # The tools some checks drive.
    # Debian's toolchains for bindings/ (scripts/test-bindings.sh): /usr/bin, not a rustup cargo.
    go) [ -x /usr/bin/go ] ;;
    cargo) [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] ;;
    # An open-file hard limit that lets a command hold thousands of
    # descriptors in flight over unix sockets (test_guard_block).
    nofile_hard) h=$(ulimit -Hn); [ "$h" = unlimited ] || [ "$h" -ge 5000 ] ;;
    # Per-session scheduling groups (CONFIG_SCHED_AUTOGROUP).
    autogroup) [ -r /proc/self/autogroup ] ;;
    python3|node|groff|script|setcap|setpriv|getent|ip|unshare|losetup|debootstrap|git|npm|prlimit|strace|taskset)
      command -v "$k" >/dev/null && { [ "$k" != python3 ] || python3 -c '' 2>/dev/null; } ;;
    *) return 99 ;;
  esac
}

# _have_cache KEY: fill _have[KEY]: 0 has it, 1 lacks it, 99 unknown key.
_have_cache() {
  local r=0
  [ -n "${_have[$1]+x}" ] && return 0
  _have_probe "$1" >/dev/null 2>&1 || r=$?
  [ "$r" = 0 ] || [ "$r" = 99 ] || r=1
  _have[$1]=$r
}

# have KEY: the machine profile has KEY (cached). Unknown keys are a test bug.
have() {
  local r
  _have_cache "$1"
  r=${_have[$1]}
  [ "$r" = 99 ] && { echo "FAIL - have: unknown capability key '$1' (tests/lib.sh)"; _fail=$((_fail + 1)); return 1; }
  [ "$r" = 0 ]
}

# _skip_key REASON: print the key if REASON is "KEY: ..." for a known key this
# machine lacks; otherwise return 1.
_skip_key() {
  local key=${1%%:*}
  [ "$key" != "$1" ] && [[ $key =~ ^[a-z0-9_]+$ ]] || return 1
  _have_cache "$key"
  [ "${_have[$key]}" = 1 ] && echo "$key"
}

# require KEY NAME CMD...: the rest of the test needs KEY, and CMD (a launcher
# run that uses it) shows whether it works. Where the profile has KEY, CMD
# must succeed (else the test fails: a broken feature is never a skip). Where
# it lacks KEY, CMD must fail closed (exit 126; without Landlock the file
# system modes may instead run with a warning, as the README says), which is
# checked, and the test ends there with the skip listed.
require() {
  local key=$1 name=$2 got=0
  shift 2
  "$@" >"$_out" 2>"$_err" || got=$?
  if have "$key"; then
    [ "$got" = 0 ] && return 0
    fail "$name: exit $got though this machine has $key"; sed 's/^/    | /' "$_err" | head -5
    finish
  fi
  if [ "$got" = 126 ] && [ -s "$_err" ]; then
    pass "$name fails closed without $key (126): $(head -1 "$_err")"
  elif [ "$got" = 0 ] && [ "$key" = landlock ] && grep -qi landlock "$_err"; then
    pass "$name runs with a warning without Landlock: $(head -1 "$_err")"
  else
    fail "$name without $key: exit $got, wanted a fail-closed 126 with a reason"
    sed 's/^/    | /' "$_err" | head -5
  fi
  skip "$key: $name needs it; the rest of this test cannot run here"
  finish
}

# lacks KEY NAME CMD...: for a block of checks that needs KEY. Returns 1 (run
# the block) when the machine has KEY. Otherwise the fail-closed refusal is
# what runs: CMD must exit 126 with a reason on stderr; NAME is skipped under
# KEY; 0 is returned (leave the block out). In a chroot, say, user
# namespaces are refused, and a non-root command's masks cannot be made.
lacks() {
  local key=$1 name=$2 got=0
  shift 2
  have "$key" && return 1
  "$@" >"$_out" 2>"$_err" || got=$?
  if [ "$got" = 126 ] && [ -s "$_err" ]; then
    pass "$name fails closed without $key (126): $(head -1 "$_err" | cut -c1-140)"
  else
    fail "$name without $key: exit $got, wanted 126 with a reason"
    sed 's/^/    | /' "$_err" | head -3
  fi
  skip "$key: $name needs it"
  return 0
}

# profile: the whole profile, one "key yes|no" line each (the summary, docs).
SBX_PROFILE_KEYS="root nonroot x86_64 probes userns mountns landlock landlock4 landlock6 seccomp
  seccomp_notify guard supervisor cgroup2 cgroup2_ctrl sys_resource i386 x32 shm io_uring io_uring_socket tun tun_make loop loop_attach core_pattern_w pty ptmx ptrace ptrace0 sys_ptrace tiocsti
  setuid core_in_cwd core_hard unsanitized user_xattr fs_attrs dac_enforced bounding_admin dummy_link macvtap_make
  btrfs_eperm_distinct own_home home_not_tmp kernel_bpf kernel_perf kernel_userfaultfd kernel_personality nr_463 nr_466 nr_467 nr_469
  python3 node go cargo npm git script setcap ip getent strace taskset musl af_bluetooth af_can af_tipc af_rds af_alg af_xdp af_vsock af_packet autogroup nofile_hard"
profile() {
  local k
  for k in $SBX_PROFILE_KEYS; do
    if have "$k"; then echo "$k yes"; else echo "$k no"; fi
  done
}

_scratch=$(mktemp -d /tmp/sbx-test.XXXXXX)
# A home for tests to use, outside /tmp: a home beneath the granted /tmp is
# refused (issue 16), and the home is never a writable root.
_home=$(mktemp -d /var/tmp/sbx-home.XXXXXX)
chmod 755 "$_home"
_out=$_scratch/.out
_err=$_scratch/.err
