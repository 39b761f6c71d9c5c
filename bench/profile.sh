#!/usr/bin/env bash
# Where the launcher's time goes, as Markdown on stdout (bench/run.sh puts it
# in docs/bench.md).
#
#   bench/profile.sh STATIC_LAUNCHER DYNAMIC_LAUNCHER
#
# 1. The floor: interleaved timing (bench/launchtime.c) of bare /bin/true, of a do-nothing "hop" that only
#    execs /bin/true (built static and dynamic), and of the launchers. The hop
#    costs what any launcher must pay (one more exec); hop-dynamic minus
#    hop-static is the dynamic loader's share; launcher minus hop is the
#    launcher's own work (parse, resolve, Landlock, seccomp).
# 2. Page faults; the launcher's own steps one by one (bench/applycost.c).
# 3. Instruction counts (callgrind; repeatable, unlike times), by object
#    (ld.so, libc, the launcher) and by function.
# 4. The system calls the launcher makes before it execs the command.
# Needs valgrind (callgrind_annotate) and strace; a part whose tool
# is missing is skipped and says so.
set -euo pipefail
STA=$(realpath "$1")
DYN=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbx-prof.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rounds=${SBX_PROFILE_ROUNDS:-30}

cat >"$tmp/hop.c" <<'EOF'
#include <unistd.h>
int main(int argc, char **argv) { (void)argc; execv(argv[1], argv + 1); return 127; }
EOF
cc -O2 -static -o "$tmp/hop-static" "$tmp/hop.c"
cc -O2 -o "$tmp/hop-dynamic" "$tmp/hop.c"
# The same hop against musl: static glibc's start-up runs CPUID many times
# (feature and cache detection), which traps on a virtual machine.
musl_hop=()
if command -v musl-gcc >/dev/null; then
  musl-gcc -O2 -static -o "$tmp/hop-musl" "$tmp/hop.c"
  musl_hop=("exec hop, static musl=$tmp/hop-musl /bin/true")
fi

echo "### The floor, and what is above it"
echo
cc -O2 -o "$tmp/launchtime" "$here/launchtime.c"
for i in 1 2 3; do
  "$tmp/launchtime" -n "$rounds" -b 20 -o "$tmp/floor.$i.tsv" "bare=/bin/true" \
    "exec hop, static=$tmp/hop-static /bin/true" "exec hop, dynamic=$tmp/hop-dynamic /bin/true" \
    "${musl_hop[@]}" \
    "launcher static --sandbox=$STA --sandbox -- /bin/true" \
    "launcher dynamic --sandbox=$DYN --sandbox -- /bin/true"
done
echo "bench/launchtime.c, interleaved batches of 20, $rounds batches, 3 runs (median run, min–max):"
echo
echo "| command | wall ratio to bare | spread | CPU ratio to bare | spread |"
echo "|---|---|---|---|---|"
python3 "$here/benchlib.py" launch-ratios "$tmp"/floor.*.tsv |
  while IFS=$'\t' read -r name wm wlo whi cm clo chi base; do
    echo "| $name | **${wm}×** | ${wlo}–${whi} | ${cm}× | ${clo}–${chi} |"
  done
echo
echo "The static hop (a program that only execs its argument) is the floor for any launcher that"
echo "execs the command; the static musl hop shows how much of that floor is glibc's own start-up"
echo "(CPUID-based feature and cache detection, each CPUID a trap on a virtual machine), and is the"
echo "floor of the launcher as built with musl-tools; the dynamic hop minus the static hop is the price of dynamic loading; a"
echo "launcher minus the hop of its kind is the launcher's own work (parse, resolve, Landlock, seccomp)."
echo

echo "### Page faults (GNU time \`%R\`, fewest of 5)"
echo
echo "| command | minor faults |"
echo "|---|---:|"
for row in "bare|/bin/true" "exec hop, static|$tmp/hop-static /bin/true" \
           "exec hop, dynamic|$tmp/hop-dynamic /bin/true" \
           "launcher static --sandbox|$STA --sandbox -- /bin/true" \
           "launcher dynamic --sandbox|$DYN --sandbox -- /bin/true"; do
  IFS='|' read -r name cmd <<<"$row"
  # shellcheck disable=SC2086
  n=$(for i in 1 2 3 4 5; do /usr/bin/time -f %R $cmd 2>&1 >/dev/null | tail -1; done | sort -n | head -1)
  echo "| $name | $n |"
done
echo

echo "### The launcher's own work, step by step (bench/applycost.c)"
echo
lib=$(dirname "$STA")/libsandbox.a
if [ -f "$lib" ]; then
  cc -O2 -I"$here/../include" -I"$here/../src" -o "$tmp/applycost" "$here/applycost.c" "$lib"
  echo "Each step in units of one bare launch (fork+execve+wait of \`/bin/true\`) of the same round;"
  echo "\"fork+apply+exec\" minus \"bare launch\" is what enforcing costs the kernel per launch, without"
  echo "the launcher's own exec."
  echo
  "$tmp/applycost" -n "$rounds" -b 20
else
  echo "No $lib: skipped."
fi
echo

echo "### Instructions executed (callgrind)"
echo
if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
  echo "Valgrind 3.19 does not know landlock_* or seccomp(2) and answers ENOSYS, so under it the launcher"
  echo "runs without a Landlock ruleset and stops at the seccomp load (exit 126): the counts cover the"
  echo "start-up, argument parsing and policy resolution, an upper bound on its user-space work. The"
  echo "hops are counted up to their execve."
  echo
  for v in static dynamic hop-static hop-dynamic; do
    case $v in
      static) bin=$STA args=(--sandbox -- /bin/true) ;;
      dynamic) bin=$DYN args=(--sandbox -- /bin/true) ;;
      hop-static) bin=$tmp/hop-static args=(/bin/true) ;;
      hop-dynamic) bin=$tmp/hop-dynamic args=(/bin/true) ;;
    esac
    (cd "$tmp" && valgrind --tool=callgrind --dump-before=execve --callgrind-out-file="$tmp/cg.$v" \
       "$bin" "${args[@]}" >/dev/null 2>&1) || true
    # The dump before execve when there is one, else the dump at exit.
    f=$(ls -S "$tmp/cg.$v"* | head -1)
    callgrind_annotate --threshold=100 "$f" >"$tmp/ann.$v" 2>/dev/null || true
  done
  echo "| binary | total instructions | in ld.so | in libc.so | in the program |"
  echo "|---|---:|---:|---:|---:|"
  for v in static dynamic hop-static hop-dynamic; do
    awk -v name="$v" '
      /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1; next }
      /^ *[0-9,]+ .*:.*\[/ {
        n = $1; gsub(",", "", n)
        obj = $0; sub(/.*\[/, "", obj); sub(/\].*/, "", obj)
        if (obj ~ /ld-linux/) ld += n
        else if (obj ~ /libc\.so/) libc += n
        else prog += n
      }
      END { printf "| %s | %d | %d | %d | %d |\n", name, total, ld, libc, total - ld - libc }' "$tmp/ann.$v"
  done
  echo
  for v in static dynamic; do
    echo "Top functions, $v launcher (self instructions):"
    echo
    echo '```'
    awk '/PROGRAM TOTALS/ {on = 1} on && /^ *[0-9,]+ / {print; if (++n == 12) exit}' "$tmp/ann.$v" |
      sed -E 's/ \[[^]]*\]$//'
    echo '```'
    echo
  done
else
  echo "valgrind is not installed: skipped (apt-get install valgrind)."
fi
echo

echo "### System calls before the command's exec (strace)"
echo
if command -v strace >/dev/null; then
  for v in static dynamic; do
    bin=$STA; [ "$v" = dynamic ] && bin=$DYN
    (cd "$tmp" && strace -o "$tmp/st.$v" "$bin" --sandbox -- /bin/true) || true
    # Everything up to (not including) the second execve, the command's.
    awk '/^execve\(/ {e++; if (e == 2) exit} {print}' "$tmp/st.$v" >"$tmp/pre.$v"
    echo "- $v launcher: $(wc -l <"$tmp/pre.$v") system calls before the command's exec"
  done
  echo
  echo "The static launcher's, in order (\`strace\`):"
  echo
  echo '```'
  sed -E 's/^(.{0,150}).*/\1/' "$tmp/pre.static"
  echo '```'
  echo
  echo "Counted by name for the dynamic launcher:"
  echo
  echo '```'
  sed -E 's/\(.*//' "$tmp/pre.dynamic" | sort | uniq -c | sort -rn
  echo '```'
else
  echo "strace is not installed: skipped (apt-get install strace)."
fi
