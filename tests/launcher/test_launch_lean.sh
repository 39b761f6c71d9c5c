#!/usr/bin/env bash
# The launch path stays lean where it was made lean (issue 19's launch cost):
# the musl launcher's allocator (launcher/alloc.c) keeps freed memory, so
# neither the launcher nor its supervisor unmaps a small block before the
# command runs (each unmap was a TLB flush and each new map page faults again:
# about 39 us a cycle on a virtual machine, docs/bench.md), and the socket
# list does not walk a name that is not there component by component.
# Counted with strace from outside; the command's own calls are not counted.
. "$SBX_TESTLIB"

have strace || skip_all "strace: strace is not installed"
have musl || skip_all "musl: the launcher here is built with glibc (a sanitizer build), whose allocator is its own"
have ptrace || skip_all "ptrace: Yama refuses tracing a child here"

p=$_scratch/proj
mkdir -p "$p/src"
for i in $(seq 1 300); do echo "x$i" >"$p/src/f$i.txt"; done
echo "SECRET=1" >"$p/.env"
log=$_scratch/trace

# count CALL: calls of CALL (a small munmap: at most 256 KB, the allocator's
# largest class) by the launcher's processes before each one's execve of the
# command (/bin/true), from strace -f output in $log.
count_small_unmaps() {
  awk '
    /execve\("\/bin\/true"/ { done[$1] = 1 }
    / munmap\(/ && !done[$1] {
      s = $0; sub(/.*munmap\([^,]*, /, "", s); sub(/\).*/, "", s)
      if (s + 0 <= 262144) n++
    }
    END { print n + 0 }' "$log"
}

# traced NAME FLAGS...: run the launcher under strace in the project; the
# command must succeed, and no small unmap may happen on the launch path.
traced() {
  local name=$1 got=0 n
  shift
  (cd "$p" && HOME=$_home strace -f -o "$log" -e trace=munmap,execve "$L" "$@" -- /bin/true) \
    >"$_out" 2>"$_err" || got=$?
  if [ "$got" != 0 ]; then
    fail "$name: the launch failed (exit $got)"; sed 's/^/    | /' "$_err" | head -5
    return
  fi
  n=$(count_small_unmaps)
  if [ "$n" = 0 ]; then pass "$name: no small unmap before the command runs"; else
    fail "$name: $n small unmaps before the command ran (musl's own allocator again?)"
    grep ' munmap(' "$log" | head -5 | sed 's/^/    | /'
  fi
}

traced "exec path (--sandbox)" --sandbox
traced "supervised run (--sandbox --timeout 3600)" --sandbox --timeout 3600
# Protected paths need the masks' user namespace (the guard); a chroot refuses it.
if have guard; then
  traced "--protect-secrets over 300 files" --sandbox --protect-secrets
else
  skip "guard: protected paths cannot run here (no user namespace for their masks)"
fi
traced "--class build (caches, the hard-link scan)" --class build

# The control: the counter sees unmaps where they happen. A program that
# maps and unmaps (the dynamic loader of a dynamically linked command) is
# counted when it is the one traced.
if strace -f -o "$log" -e trace=munmap,execve /bin/sh -c 'exit 0' 2>/dev/null &&
   grep -q ' munmap(' "$log"; then
  n=$(awk '/ munmap\(/ { n++ } END { print n + 0 }' "$log")
  if [ "$n" -gt 0 ]; then pass "control: the trace shows a dynamic program's unmaps ($n)"; else
    fail "control: no unmap counted"; fi
else
  skip "strace: /bin/sh makes no munmap here (statically linked?), no control"
fi

# The socket list: a name of the default list that is not there costs one
# lookup, not a walk of its folders (roughly 80 lstat calls per launch
# before). The first folder of the list that this machine lacks (none has
# a /var/run spelling, whose symlink is walked on purpose).
absent=
for d in /run/containerd /run/k3s /run/crio /run/buildkit /run/podman; do
  [ -e "$d" ] || [ -L "$d" ] || { absent=$d; break; }
done
(cd "$p" && HOME=$_home strace -f -o "$log" -e trace=lstat,newfstatat,stat,statx "$L" --sandbox -- /bin/true) \
  >"$_out" 2>"$_err" || true
n=$(grep -c "\"$absent" "$log" || true)
if [ -z "$absent" ]; then
  fail "every daemon folder of the list exists here: no absent name to check (extend the list)"
elif [ "$n" = 0 ]; then pass "absent daemon sockets ($absent/...) are not walked"; else
  fail "absent daemon sockets were walked ($n calls naming $absent)"
fi
finish
