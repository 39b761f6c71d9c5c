#!/usr/bin/env bash
# The whole benchmark: builds Release launchers (dynamic and fully static),
# measures launch overhead, in-sandbox cost, scale, peak RSS, the spawn API
# and the hard-link scan against the bare command in the same run (and against
# bubblewrap and firejail when installed), profiles the launch path, and
# regenerates docs/bench.md.
#
#   bench/run.sh [--quick] [SECTION...]
#     SECTIONs: launch spawn insandbox scale rss hardlink preflight areas profile
#     (default: all; a subset replaces only its own results on the page;
#     "page" alone only rewrites the page). --quick: fewer runs, for trying.
#   SBX_BENCH_ROUNDS   rounds per measurement (default 3; the spread over rounds is reported)
#   SBX_BENCH_DIR      scratch trees and raw results (default build/bench-data)
#   SBX_BENCH_OUT      the results page (default docs/bench.md)
#
# For numbers worth publishing, run it on an idle machine:
#   bash bench/run.sh            (about 10 minutes on 2 cores)
# Public tools only: hyperfine and GNU time (installed from Debian when
# missing and run as root), python3, gcc, git; bubblewrap and firejail are
# compared when installed and skipped (and said so) when not.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
rounds=${SBX_BENCH_ROUNDS:-3}
# Not under /var/tmp: firejail mounts a private one, and its runs could not see the trees.
WORK=${SBX_BENCH_DIR:-$src/build/bench-data}
OUT=${SBX_BENCH_OUT:-$src/docs/bench.md}
quick=0
sections=()
for a in "$@"; do
  case $a in
    --quick) quick=1 ;;
    launch|spawn|insandbox|scale|rss|hardlink|preflight|areas|profile) sections+=("$a") ;;
    page) sections+=(page) ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done
[ ${#sections[@]} -gt 0 ] || sections=(launch spawn insandbox scale rss hardlink preflight areas profile)
want() { local s; for s in "${sections[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

if [ "$quick" = 1 ]; then
  lt_rounds=10 lt_batch=10 work_runs=5 scale_n=300 rss_runs=5 rounds=${SBX_BENCH_ROUNDS:-2}
else
  lt_rounds=30 lt_batch=20 work_runs=11 scale_n=1000 rss_runs=15
fi

# ---- tools ----
if [ -x "$src/scripts/deps.sh" ] || [ -f "$src/scripts/deps.sh" ]; then
  bash "$src/scripts/deps.sh" hyperfine time python3 git gcc
fi
for t in hyperfine /usr/bin/time python3 gcc git; do
  command -v "$t" >/dev/null || { echo "run.sh: $t is needed (apt-get install hyperfine time)" >&2; exit 1; }
done
BL="python3 $src/bench/benchlib.py"
have_bwrap=0 have_firejail=0
command -v bwrap >/dev/null && have_bwrap=1
command -v firejail >/dev/null && have_firejail=1

# ---- builds: Release, tests off, our own build dirs, at most -j2 ----
build_one() { # DIR EXTRA-CMAKE-ARGS...
  local dir=$1
  shift
  cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DSANDBOX_TESTS=OFF "$@" >/dev/null
  local targets=(sandbox-exec-launcher sandbox_static)
  grep -q 'sandbox-exec-launcher-glibc' "$dir/Makefile" 2>/dev/null && targets+=(sandbox-exec-launcher-glibc)
  grep -q 'bench_spawn' "$src/CMakeLists.txt" && targets+=(bench_spawn)
  cmake --build "$dir" -j2 --target "${targets[@]}" >/dev/null
}
DYN_DIR=$src/build/bench
STA_DIR=$src/build/bench-static
echo "== building Release launchers (dynamic: $DYN_DIR, static: $STA_DIR)"
build_one "$DYN_DIR" -DSANDBOX_STATIC_LAUNCHER=OFF
build_one "$STA_DIR" -DSANDBOX_STATIC_LAUNCHER=ON
DYN=$DYN_DIR/sandbox-exec-launcher
STA=$STA_DIR/sandbox-exec-launcher
# With musl-tools installed the static launcher is built against musl, and the
# glibc one next to it: both are measured, so the page shows what musl buys.
GLS=$STA_DIR/sandbox-exec-launcher-glibc
[ -x "$GLS" ] || GLS=
if [ -n "$GLS" ]; then STA_LIBC=musl; else STA_LIBC=glibc; fi

mkdir -p "$WORK/proj" "$WORK/results" "$WORK/bin"
P=$WORK/proj
R=$WORK/results
# A subset of sections replaces only its own results: the page keeps the rest.
declare -A frag=([launch]=10-launch [spawn]=20-spawn [insandbox]=30-insandbox [scale]=40-scale
                 [rss]=50-rss [hardlink]=60-hardlink [preflight]=65-preflight [areas]=70-areas
                 [profile]=80-profile)
for s in "${sections[@]}"; do [ -n "${frag[$s]:-}" ] && rm -f "$R/${frag[$s]}.md"; done
touch "$R/metrics.tsv"
cd "$P"
if ! "$STA" --sandbox -- /bin/true; then
  echo "run.sh: the launcher cannot confine here (exit 126 above): nothing to measure" >&2
  exit 1
fi
metric() { printf '%s\t%s\n' "$1" "$2" >>"$R/metrics.tsv"; }
BWRAP="bwrap --ro-bind / / --dev /dev --bind $P $P --bind /tmp /tmp --unshare-net"
FIREJAIL="firejail --quiet --noprofile --net=none --read-only=/ --read-write=$P --read-write=/tmp"
MODES=(--sandbox --no-network --confine-fs --read-only)
# A supervised run (issue 19): the launcher, its supervisor and the command.
# --timeout alone makes the run supervised without a pipe or an outcome to
# write, so the row is the supervisor's own cost.
SUP="--sandbox --timeout 3600"
peers_note() {
  [ "$have_bwrap" = 1 ] || echo "- bubblewrap is not installed: skipped (apt-get install bubblewrap)."
  [ "$have_firejail" = 1 ] || echo "- firejail is not installed: skipped (apt-get install firejail)."
  true
}

# A Markdown table from `benchlib.py hyperfine-ratios` output.
ratio_table() { # TITLE-OF-FIRST-COLUMN < TSV
  echo "| $1 | ratio to bare (median of $rounds rounds) | spread over rounds |"
  echo "|---|---|---|"
  while IFS=$'\t' read -r name med lo hi base; do
    echo "| \`$name\` | **${med}×** | ${lo}–${hi}× |"
  done
}

# ---- launch ----
# Interleaved batches (bench/launchtime.c), not sequential hyperfine runs: on
# a shared machine the load drifts between one command's runs and the next's.
lt_table() { # < TSV from benchlib launch-ratios
  echo "| command | wall: ratio to bare | spread over $rounds runs | CPU: ratio to bare | spread |"
  echo "|---|---|---|---|---|"
  while IFS=$'\t' read -r name wm wlo whi cm clo chi base; do
    echo "| \`$name\` | **${wm}×** | ${wlo}–${whi} | ${cm}× | ${clo}–${chi} |"
  done
}
if want launch; then
  echo "== launch: interleaved batches (bench/launchtime.c), $rounds runs"
  cc -O2 -o "$WORK/bin/launchtime" "$src/bench/launchtime.c"
  LT=$WORK/bin/launchtime
  cmds=("bare=/bin/true")
  for m in "${MODES[@]}"; do cmds+=("launcher (static) $m=$STA $m -- /bin/true"); done
  cmds+=("launcher (static) --sandbox, supervised=$STA $SUP -- /bin/true")
  if [ -n "$GLS" ]; then
    for m in "${MODES[@]}"; do cmds+=("launcher (glibc static) $m=$GLS $m -- /bin/true"); done
  fi
  for m in "${MODES[@]}"; do cmds+=("launcher (dynamic) $m=$DYN $m -- /bin/true"); done
  peer=("bare=/bin/true" "launcher (static) --sandbox=$STA --sandbox -- /bin/true")
  [ "$have_bwrap" = 1 ] && peer+=("bubblewrap=$(command -v bwrap) ${BWRAP#bwrap } /bin/true")
  [ "$have_firejail" = 1 ] && peer+=("firejail=$(command -v firejail) ${FIREJAIL#firejail } /bin/true")
  rm -f "$R"/launch.*.tsv "$R"/peers.*.tsv
  for i in $(seq "$rounds"); do
    "$LT" -n "$lt_rounds" -b "$lt_batch" -o "$R/launch.$i.tsv" "${cmds[@]}"
    "$LT" -n "$lt_rounds" -b 10 -o "$R/peers.$i.tsv" "${peer[@]}"
  done
  $BL launch-ratios "$R"/launch.*.tsv >"$R/launch.tsv"
  $BL launch-ratios "$R"/peers.*.tsv >"$R/peers.tsv"
  # Agents usually run unprivileged, and root pays for work an ordinary user
  # does not (the capset; in --read-only also one bounding-set drop per
  # capability). Measure both. The binaries
  # are copied where nobody can reach them, and the working directory is a
  # fresh project (the launcher refuses home or / as one).
  rm -f "$R"/nobody.*.tsv "$R/nobody.tsv"
  if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    NB=$(mktemp -d /tmp/sbx-bench-nobody.XXXXXX)
    mkdir "$NB/proj"
    cp "$LT" "$STA" "$NB/"
    chmod 755 "$NB"
    chown 65534:65534 "$NB" "$NB/proj"
    ncmds=("bare=/bin/true")
    for m in "${MODES[@]}"; do ncmds+=("launcher (static) $m=$NB/sandbox-exec-launcher $m -- /bin/true"); done
    ncmds+=("launcher (static) --sandbox, supervised=$NB/sandbox-exec-launcher $SUP -- /bin/true")
    for i in $(seq "$rounds"); do
      (cd "$NB/proj" && setpriv --reuid=65534 --regid=65534 --clear-groups \
         env HOME=/nonexistent "$NB/launchtime" -n "$lt_rounds" -b "$lt_batch" \
         -o "$NB/nobody.$i.tsv" "${ncmds[@]}")
      cp "$NB/nobody.$i.tsv" "$R/nobody.$i.tsv"
    done
    rm -rf "$NB"
    $BL launch-ratios "$R"/nobody.*.tsv >"$R/nobody.tsv"
  fi
  {
    echo "## Launch: \`sandbox-exec-launcher MODE -- /bin/true\` against bare \`/bin/true\`"
    echo
    echo "[bench/launchtime.c](../bench/launchtime.c): fork+execve+wait of each command in batches of"
    echo "$lt_batch, the commands interleaved in a shuffled order, $lt_rounds batches each; a run's figure is the"
    echo "median over batches of (batch mean ÷ bare's batch mean of the same round). The whole is run"
    echo "$rounds times: the table gives the median run and the spread (min–max) over runs. CPU is user+sys"
    echo "of the child (wait4), the steadier figure while other work shares the machine. Bare \`/bin/true\`:"
    echo "$(cut -f8 "$R/launch.tsv" | head -1) ms median here (for scale only). The supervised row runs"
    echo "\`$SUP\`: the launcher starts a supervisor, which applies the sandbox, loads the listener's"
    echo "program and forks the command (docs/api.md, \"Supervised runs\"); the other rows are the exec"
    echo "path, one exec and nothing left behind."
    echo
    lt_table <"$R/launch.tsv"
    echo
    echo "### Against peers, with equivalent policies (no network, writes only in the project and /tmp)"
    echo
    echo "Same method, batches of 10."
    echo
    echo "- bubblewrap: \`$BWRAP /bin/true\`"
    echo "- firejail: \`$FIREJAIL /bin/true\`"
    peers_note
    echo
    lt_table <"$R/peers.tsv"
    if [ -s "$R/nobody.tsv" ]; then
      echo
      echo "### As an unprivileged user (nobody), the usual case for an agent"
      echo
      echo "Same method, static launcher. Root pays for the capability drop (a capset, and in --read-only"
      echo "emptying the bounding set one capability at a time, about 60 µs); an ordinary user holds none,"
      echo "and the step costs a few µs."
      echo
      lt_table <"$R/nobody.tsv"
    fi
  } >"$R/10-launch.md"
  for v in static "glibc static" dynamic; do
    for m in "${MODES[@]}"; do
      metric "launch_${v// /}$m" "$(awk -F'\t' -v n="launcher ($v) $m" '$1==n{print $2}' "$R/launch.tsv")"
      metric "launchcpu_${v// /}$m" "$(awk -F'\t' -v n="launcher ($v) $m" '$1==n{print $5}' "$R/launch.tsv")"
    done
  done
  for m in "${MODES[@]}"; do
    [ -s "$R/nobody.tsv" ] || break
    metric "launchnobody$m" "$(awk -F'\t' -v n="launcher (static) $m" '$1==n{print $2}' "$R/nobody.tsv")"
    metric "launchcpunobody$m" "$(awk -F'\t' -v n="launcher (static) $m" '$1==n{print $5}' "$R/nobody.tsv")"
  done
  n="launcher (static) --sandbox, supervised"
  metric launch_supervised "$(awk -F'\t' -v n="$n" '$1==n{print $2}' "$R/launch.tsv")"
  metric launchcpu_supervised "$(awk -F'\t' -v n="$n" '$1==n{print $5}' "$R/launch.tsv")"
  [ -s "$R/nobody.tsv" ] && metric launchnobody_supervised "$(awk -F'\t' -v n="$n" '$1==n{print $2}' "$R/nobody.tsv")"
  cat "$R/launch.tsv" "$R/peers.tsv"
fi

# ---- sandbox_spawn (bench/spawn.sh, the host engineer's) ----
if want spawn; then
  if [ -f "$src/bench/spawn.sh" ]; then
    echo "== spawn: bench/spawn.sh"
    bash "$src/bench/spawn.sh" "$STA_DIR" >"$R/spawn.txt" 2>&1 || echo "spawn.sh failed (see $R/spawn.txt)"
    {
      echo "## \`sandbox_spawn\` against fork+execve (bench/spawn.sh)"
      echo
      echo "Measured by [bench/spawn.sh](../bench/spawn.sh) (its full page: [bench-spawn.md](bench-spawn.md))."
      echo
      sed -n '/^## A small host/,$p' "$R/spawn.txt"
    } >"$R/20-spawn.md"
    cat "$R/spawn.txt"
  else
    echo "== spawn: bench/spawn.sh is not on this branch yet: skipped"
    printf '## `sandbox_spawn`\n\nNot measured: bench/spawn.sh is not on this branch yet.\n' >"$R/20-spawn.md"
  fi
fi

# ---- in-sandbox cost ----
make_tree() { # 280 dirs x 275 files = 77,000 empty files, the layout bench/statloop.c expects
  [ -f "$WORK/tree/.complete" ] && return
  rm -rf "$WORK/tree"
  python3 - "$WORK/tree" 280 275 <<'PY'
import os, sys
root, dirs, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(dirs):
    p = os.path.join(root, "d%03d" % d)
    os.makedirs(p)
    for f in range(per):
        open(os.path.join(p, "f%03d" % f), "w").close()
open(os.path.join(root, ".complete"), "w").close()
PY
}
make_repo() { # a git repository of 30,000 files in 600 directories, 3 commits
  [ -f "$WORK/repo/.complete" ] && return
  rm -rf "$WORK/repo"
  mkdir -p "$WORK/repo"
  python3 - "$WORK/repo" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(600):
    p = os.path.join(root, "src", "m%03d" % (d // 30), "d%03d" % d)
    os.makedirs(p)
    for f in range(50):
        with open(os.path.join(p, "f%02d.c" % f), "w") as fh:
            fh.write("int f%d_%d(void) { return %d; }\n" % (d, f, f))
PY
  git -C "$WORK/repo" init -q
  git -C "$WORK/repo" add -A
  git -C "$WORK/repo" -c user.name=bench -c user.email=bench@invalid commit -qm one
  for i in 2 3; do
    for f in "$WORK"/repo/src/m00*/d00*/f0"$i".c; do echo "/* $i */" >>"$f"; done
    git -C "$WORK/repo" -c user.name=bench -c user.email=bench@invalid commit -qam "change $i"
  done
  touch "$WORK/repo/.complete"  # untracked: git status has something to report
}
make_csrc() { # one C file of 600 small functions for gcc -O0 (about 0.4 s)
  [ -f "$WORK/gen600.c" ] && return
  python3 - "$WORK/gen600.c" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("#include <stdio.h>\n#include <string.h>\n")
    for i in range(600):
        f.write("int fn%d(const char *s, int n) { int r = %d; for (int i = 0; i < n; i++)"
                " r += (int)strlen(s) * i ^ %d; if (r %% 7 == 0) printf(\"%%d\\n\", r); return r; }\n" % (i, i, i))
    f.write("int main(void) { return fn0(\"x\", 1) & 0; }\n")
PY
}

if want insandbox; then
  echo "== in-sandbox cost: interleaved, $work_runs runs x $rounds rounds per workload"
  make_tree
  make_repo
  make_csrc
  statloop_src=$src/bench/statloop.c
  if [ -f "$statloop_src" ]; then
    cc -O2 -o "$WORK/bin/statloop" "$statloop_src"
  else
    statloop_src=""
  fi
  cc -O2 -o "$WORK/bin/floor" "$src/bench/floor.c"
  # Without Landlock the launcher's modes only warn; the floor drops it too.
  floor_kind=ls
  "$WORK/bin/floor" ls /bin/true 2>/dev/null || floor_kind=s
  export GIT_OPTIONAL_LOCKS=0  # git status never writes, so every mode does the same work
  variants() { # CWD WORKLOAD-COMMAND: NAME=CMD arguments for benchlib interleave
    local cwd=$1 cmd=$2 m
    echo "bare=cd=$cwd $cmd"
    for m in "${MODES[@]}"; do echo "launcher $m=cd=$cwd $STA $m --project $cwd -- $cmd"; done
    echo "floor (empty filter + empty domain)=cd=$cwd $WORK/bin/floor $floor_kind $cmd"
    if [ "$have_bwrap" = 1 ]; then
      echo "bubblewrap=cd=$cwd bwrap --ro-bind / / --dev /dev --bind $cwd $cwd --bind /tmp /tmp --unshare-net --chdir $cwd $cmd"
    fi
    if [ "$have_firejail" = 1 ]; then
      echo "firejail=cd=$cwd firejail --quiet --noprofile --net=none --read-only=/ --read-write=$cwd --read-write=/tmp $cmd"
    fi
  }
  workloads=("find|$P|find $WORK/tree $WORK/tree $WORK/tree $WORK/tree -type f"
             "compile|$P|gcc -O0 -S -pipe -o - $WORK/gen600.c"
             "git-status|$WORK/repo|git status --porcelain")
  [ -n "$statloop_src" ] && workloads+=("statloop|$P|$WORK/bin/statloop $WORK/tree 50000 275")
  : >"$R/insandbox.tsv"
  rm -f "$R"/in-*.json
  for w in "${workloads[@]}"; do
    IFS='|' read -r wname wcwd wcmd <<<"$w"
    mapfile -t vs < <(variants "$wcwd" "$wcmd")
    for i in $(seq "$rounds"); do
      $BL interleave "$R/in-$wname.$i.json" "$work_runs" "${vs[@]}"
    done
    $BL interleave-ratios "$R"/in-"$wname".*.json | sed "s/^/$wname\t/" | tee -a "$R/insandbox.tsv"
  done
  {
    echo "## In-sandbox cost: the same work, bare and confined"
    echo
    echo "Each iteration runs every variant once in a shuffled order ($work_runs iterations after a warm-up,"
    echo "$rounds rounds), so load from other work hits all of them alike. Wall = median wall time ÷ bare's;"
    echo "CPU = median user+sys of the process tree ÷ bare's (the steadier figure on a shared machine)."
    echo "The launcher is the static build, with \`--project\` the workload's directory. Each run includes"
    echo "one launch (about 1 ms extra on an idle machine, more under load), as bubblewrap's and firejail's do."
    echo
    echo "- find: \`find TREE TREE TREE TREE -type f\`: four walks of 77,000 files in 280 directories, outside"
    echo "  every writable root (four, so that the launch itself stays near 1% of the run)"
    echo "- statloop: 50,000 rounds of stat+open+close over the same tree (bench/statloop.c)"
    [ -z "$statloop_src" ] && echo "  — not measured: bench/statloop.c is not on this branch yet"
    echo "- compile: \`gcc -O0 -S -pipe -o -\` of a generated 600-function C file (no file written, so it"
    echo "  runs in --read-only too)"
    echo "- git-status: \`git status --porcelain\` with \`GIT_OPTIONAL_LOCKS=0\` in a generated repository of"
    echo "  30,000 files in 3 commits (the project root)"
    echo
    echo "The floor row ([bench/floor.c](../bench/floor.c)) runs the workload under a one-instruction"
    echo "allow-everything seccomp filter and a Landlock domain that handles one right (WRITE_FILE) with"
    echo "one rule (/dev/null): a lower bound on what the kernel charges any seccomp + Landlock sandbox"
    echo "before its own rules (handling only a write right, reads skip Landlock's path walk). Where a mode's"
    echo "figure matches the floor, no rule of ours costs anything measurable; the open-heavy statloop"
    echo "sits at that floor, above 1.03×, which is why that goal cannot be met with these mechanisms."
    peers_note
    echo
    echo "| workload | variant | wall (median, spread) | CPU (median, spread) | bare wall |"
    echo "|---|---|---|---|---|"
    while IFS=$'\t' read -r wl name wm wlo whi cm clo chi base; do
      [ "$name" = bare ] && continue
      echo "| $wl | $name | **${wm}×** (${wlo}–${whi}) | ${cm}× (${clo}–${chi}) | ${base} ms |"
    done <"$R/insandbox.tsv"
  } >"$R/30-insandbox.md"
  # The open-heavy loop is where the modes sit above 1.03x: the floor beside them.
  for n in floor "launcher --sandbox" "launcher --confine-fs" "launcher --read-only"; do
    v=$(awk -F'\t' -v n="$n" '$1=="statloop" && ($2==n || (n=="floor" && index($2, "floor ")==1)) {print $3; exit}' "$R/insandbox.tsv")
    [ -n "$v" ] && metric "statloop ${n}" "$v"
  done
  for m in "${MODES[@]}" bubblewrap firejail; do
    n="launcher $m"; [ "${m#--}" = "$m" ] && n=$m
    v=$(awk -F'\t' -v n="$n" '$2==n{if($3>w)w=$3} END{if(w)print w}' "$R/insandbox.tsv")
    [ -n "$v" ] && metric "insandbox_worst ${n}" "$v"
    v=$(awk -F'\t' -v n="$n" '$2==n{if($6>w)w=$6} END{if(w)print w}' "$R/insandbox.tsv")
    [ -n "$v" ] && metric "insandbox_worstcpu ${n}" "$v"
  done
fi

# ---- scale: 100 concurrent launches ----
if want scale; then
  echo "== scale: $scale_n launches, 100 at a time (xargs -P100), $rounds rounds"
  sc=(-n bare "seq $scale_n | xargs -P100 -n1 /bin/true"
      -n "launcher (static) --sandbox" "seq $scale_n | xargs -P100 -n1 $STA --sandbox -- /bin/true"
      -n "launcher (dynamic) --sandbox" "seq $scale_n | xargs -P100 -n1 $DYN --sandbox -- /bin/true")
  [ "$have_bwrap" = 1 ] && sc+=(-n bubblewrap "seq $scale_n | xargs -P100 -n1 $BWRAP /bin/true")
  rm -f "$R"/scale.*.json
  for i in $(seq "$rounds"); do
    hyperfine --style none --warmup 1 --runs 5 --export-json "$R/scale.$i.json" "${sc[@]}" >/dev/null
  done
  $BL hyperfine-ratios "$R"/scale.*.json >"$R/scale.tsv"
  {
    echo "## Scale: $scale_n launches of \`/bin/true\`, 100 concurrently"
    echo
    echo "\`seq $scale_n | xargs -P100 -n1 CMD\` under hyperfine (5 runs, $rounds rounds). Throughput relative to"
    echo "bare = bare time ÷ time (1.00 = as many launches per second as bare \`/bin/true\`)."
    [ "$have_firejail" = 1 ] && echo "firejail is left out here: 100 concurrent firejail sandboxes take minutes."
    [ "$have_bwrap" = 1 ] || echo "bubblewrap is not installed: skipped."
    echo
    echo "| command | launches/s relative to bare | spread | bare launches/s |"
    echo "|---|---|---|---|"
    while IFS=$'\t' read -r name med lo hi base; do
      rate=$(awk -v n="$scale_n" -v b="$base" 'BEGIN{printf "%.0f", n/(b/1000)}')
      echo "| $name | **$(awk -v m="$med" 'BEGIN{printf "%.2f", 1/m}')** | $(awk -v a="$hi" -v b="$lo" 'BEGIN{printf "%.2f–%.2f", 1/a, 1/b}') | $rate |"
    done <"$R/scale.tsv"
  } >"$R/40-scale.md"
  metric scale_static "$(awk -F'\t' '$1=="launcher (static) --sandbox"{printf "%.2f", 1/$2}' "$R/scale.tsv")"
  cat "$R/scale.tsv"
fi

# ---- peak RSS: GNU time %M ----
if want rss; then
  echo "== rss: GNU time -f %M, median of $rss_runs"
  rss() { # CMD... -> median KiB
    local i
    for i in $(seq "$rss_runs"); do /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; done |
      sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
  }
  {
    echo "## Peak RSS (GNU time \`-f %M\`, median of $rss_runs)"
    echo
    echo "ru_maxrss survives exec, so a launcher's figure is the larger of the launcher's own peak and"
    echo "\`/bin/true\`'s: it cannot go below bare."
    echo
    echo "| command | peak RSS | ratio to bare |"
    echo "|---|---|---|"
    bare=$(rss /bin/true)
    echo "| \`/bin/true\` | $bare KiB | 1.00× |"
    rows=()
    for m in "${MODES[@]}"; do rows+=("launcher (static) $m|$STA $m -- /bin/true"); done
    rows+=("launcher (dynamic) --sandbox|$DYN --sandbox -- /bin/true")
    [ "$have_bwrap" = 1 ] && rows+=("bubblewrap|$BWRAP /bin/true")
    [ "$have_firejail" = 1 ] && rows+=("firejail|$FIREJAIL /bin/true")
    for row in "${rows[@]}"; do
      IFS='|' read -r name cmd <<<"$row"
      # shellcheck disable=SC2086
      k=$(rss $cmd)
      echo "| $name | $k KiB | $(awk -v a="$k" -v b="$bare" 'BEGIN{printf "%.2f", a/b}')× |"
      case $name in
        "launcher (static) --sandbox") metric rss_static_kib "$k" ;;
        "launcher (dynamic) --sandbox") metric rss_dynamic_kib "$k" ;;
      esac
    done
    peers_note
  } >"$R/50-rss.md"
  metric rss_bare_kib "$bare"
  cat "$R/50-rss.md"
fi

# ---- hard-link scan throughput (bench/hardlink.sh, the presets engineer's) ----
if want hardlink; then
  if [ -f "$src/bench/hardlink.sh" ]; then
    echo "== hardlink: bench/hardlink.sh"
    bash "$src/bench/hardlink.sh" "$STA_DIR" >"$R/hardlink.txt" 2>&1 || echo "hardlink.sh failed (see $R/hardlink.txt)"
    v=$(sed -n 's/^hard-link scan:.*-> *\([0-9]*\) files\/s.*/\1/p' "$R/hardlink.txt")
    [ -n "$v" ] && metric hardlink_files_per_s "$v"
    {
      echo "## Hard-link scan throughput (bench/hardlink.sh)"
      echo
      echo "Measured by [bench/hardlink.sh](../bench/hardlink.sh) on its synthetic node_modules-like tree;"
      echo "method and discussion in [bench-hardlink.md](bench-hardlink.md)."
      echo
      echo '```'
      cat "$R/hardlink.txt"
      echo '```'
    } >"$R/60-hardlink.md"
    cat "$R/hardlink.txt"
  else
    echo "== hardlink: bench/hardlink.sh is not on this branch yet: skipped"
    printf '## Hard-link scan throughput\n\nNot measured: bench/hardlink.sh is not on this branch yet.\n' >"$R/60-hardlink.md"
  fi
fi

# ---- the per-area scripts, run as their authors wrote them ----
if want areas; then
  {
    echo "## Per-area benchmarks"
    echo
    echo "Each area's own script, run unchanged; their method is theirs (see each script's header)."
  } >"$R/70-areas.md"
  for s in seccomp landlock protect guard rootfs limits; do
    f=$src/bench/$s.sh
    if [ ! -f "$f" ]; then
      printf '\n### bench/%s.sh\n\nNot on this branch yet.\n' "$s" >>"$R/70-areas.md"
      continue
    fi
    echo "== areas: bench/$s.sh"
    out=$R/area-$s.txt
    case $s in
      landlock)
        # Reuse our tree (same layout) instead of building a second one.
        mkdir -p "$WORK/landlock"
        [ -e "$WORK/landlock/tree" ] || { make_tree; ln -s "$WORK/tree" "$WORK/landlock/tree"; }
        SBX_BENCH_DIR=$WORK/landlock bash "$f" "$STA_DIR" "$rounds" >"$out" 2>&1 || echo "(failed)" >>"$out" ;;
      guard)
        # On tmpfs, where creating a file is cheap and the guard's round trip shows.
        SBX_BENCH_DIR=/dev/shm bash "$f" "$STA_DIR" >"$out" 2>&1 || echo "(failed)" >>"$out" ;;
      limits)
        # Its own page (docs/bench-limits.md); here its tables, without the header.
        bash "$f" "$STA_DIR" "$rounds" "$src/docs/bench-limits.md" >/dev/null 2>&1 &&
          grep '^|' "$src/docs/bench-limits.md" >"$out" || echo "(failed)" >"$out" ;;
      *) bash "$f" "$STA_DIR" >"$out" 2>&1 || echo "(failed)" >>"$out" ;;
    esac
    { printf '\n### bench/%s.sh\n\n```\n' "$s"; cat "$out"; printf '```\n'; } >>"$R/70-areas.md"
    cat "$out"
  done
fi

# ---- pre-flight at scale: the scan index (issue 26) ----
if want preflight; then
  echo "== preflight: bench/preflight.sh (100k and 1M files, cold and warm)"
  if [ "$quick" = 1 ]; then pf=(3 100k); else pf=(7 100k 1m); fi
  SBX_BENCH_DIR=$WORK bash "$src/bench/preflight.sh" "$STA_DIR" "${pf[@]}" >"$R/preflight.txt" 2>&1 ||
    echo "(preflight.sh failed)" >>"$R/preflight.txt"
  # Per size: the warm launch's added wall and CPU ms over --sandbox, and
  # cold against full (every launch walking, as before the index).
  for size in 100k 1m; do
    row() { awk -v s="## $size:" -v v="$1" '$0 ~ "^" s {on=1; next} /^## / {on=0} on && $1 == v' "$R/preflight.txt"; }
    w=$(row warm); c=$(row cold); f=$(row full)
    [ -n "$w" ] || continue
    metric "preflight_${size}_warm_ms" "$(awk '{print $6}' <<<"$w")"
    metric "preflight_${size}_warm_cpu_ms" "$(awk '{print $7}' <<<"$w")"
    metric "preflight_${size}_warm_x" "$(awk '{print $4}' <<<"$w")"
    [ -n "$c" ] && [ -n "$f" ] &&
      metric "preflight_${size}_cold_vs_full" "$(awk -v c="$(awk '{print $2}' <<<"$c")" -v f="$(awk '{print $2}' <<<"$f")" 'BEGIN{printf "%.3f", c / f}')"
  done
  {
    echo "## Pre-flight at scale: the scan index (bench/preflight.sh)"
    echo
    echo "A node_modules-like project generated on the fly ([bench/gentree.c](../bench/gentree.c)),"
    echo "\`sandbox-exec-launcher ... -- /bin/true\` from its root, every variant once per round in a"
    echo "shuffled order ([bench/preflight.py](../bench/preflight.py)). *full*: every launch walks the"
    echo "tree (\`--no-scan-index\`, as before the index); *cold*: a full walk that also writes the"
    echo "index; *warm*: the index checked (one stat per directory) and reused. Ratios and added ms are"
    echo "the median over rounds of (variant ÷ or − \`--sandbox\` of the same round). How the index works"
    echo "and what it relies on: [protected-paths.md](protected-paths.md#the-scan-index)."
    echo
    echo '```'
    cat "$R/preflight.txt"
    echo '```'
  } >"$R/65-preflight.md"
  cat "$R/preflight.txt"
fi

# ---- where the launcher's time goes ----
if want profile; then
  echo "== profile: strace -c, callgrind"
  bash "$src/bench/profile.sh" "$STA" "$DYN" >"$R/profile.txt" 2>&1 || echo "(profile failed)" >>"$R/profile.txt"
  { echo "## Where the launch time goes"; echo; cat "$R/profile.txt"; } >"$R/80-profile.md"
fi

# ---- the page ----
# sandbox_spawn --sandbox on a small host, and the same from a plan made once
# (sandbox_spawn_plan): the median over spawn.sh's runs of its "ratio
# (median)" column (the third figure of the row).
if [ -f "$R/spawn.txt" ]; then
  for row in "sandbox_spawn:spawn_sandbox" "sandbox_spawn_plan:spawn_plan_sandbox"; do
    v=$(awk -F'|' -v name="${row%%:*}, --sandbox" '/^## A small host/{on=1} /^## A host with/{on=0}
          on { n = $2; gsub(/^ +| +$/, "", n) } on && n == name {gsub(/[^0-9.]/, "", $4); print $4}' "$R/spawn.txt" |
        sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}')
    [ -n "$v" ] && metric "${row#*:}" "$v"
  done
fi
abi=$("$STA" --self-test | sed -n 's/.*Landlock ABI \([0-9]*\).*/\1/p' | head -1)
get() { awk -F'\t' -v k="$1" '$1==k{print $2}' "$R/metrics.tsv" 2>/dev/null | tail -1; }
verdict() { # VALUE OP GOAL
  [ -z "$1" ] && { echo "not measured"; return; }
  awk -v v="$1" -v g="$3" -v op="$2" 'BEGIN{ok = (op=="<=") ? v<=g : v>=g; print ok ? "**pass**" : "**FAIL**"}'
}
{
  echo "# Benchmarks"
  echo
  echo "Regenerated by \`bash bench/run.sh\`$([ "$quick" = 1 ] && echo ' --quick') — do not edit by hand. Every figure is a ratio to the bare"
  echo "command measured in the same run; absolute times are given for scale only."
  echo
  echo "## Machine"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); libsandbox $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "- $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), kernel $(uname -r), Landlock ABI ${abi:-none}"
  echo "- load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)$([ "$(awk '{print ($1 > 1.0)}' /proc/loadavg)" = 1 ] && echo ' — **not idle**: treat these as provisional and rerun on an idle machine')"
  echo "- $(gcc --version | head -1); $(hyperfine --version); running as $(id -un)"
  echo "- launcher (static): linked against ${STA_LIBC}; launcher (dynamic): glibc"
  echo
  echo "## Goals"
  echo
  echo "| goal | measured (median) | verdict |"
  echo "|---|---|---|"
  for v in static "glibc static" dynamic; do
    for m in "${MODES[@]}"; do
      w=$(get "launch_${v// /}$m"); c=$(get "launchcpu_${v// /}$m")
      [ -n "$w" ] || continue
      echo "| launcher ($v) \`$m\` ≤ 1.85× bare \`/bin/true\` (wall; CPU in brackets) | ${w}× (${c:-–}×) | $(verdict "$w" '<=' 1.85) |"
    done
  done
  for m in "${MODES[@]}"; do
    w=$(get "launchnobody$m"); c=$(get "launchcpunobody$m")
    [ -n "$w" ] || continue
    echo "| launcher (static, as nobody) \`$m\` ≤ 1.85× bare \`/bin/true\` (wall; CPU in brackets) | ${w}× (${c:-–}×) | $(verdict "$w" '<=' 1.85) |"
  done
  w=$(get launch_supervised); c=$(get launchcpu_supervised)
  if [ -n "$w" ]; then
    echo "| launcher (static) \`--sandbox\`, supervised (\`--timeout\`: a supervisor process) ≤ 1.5× bare \`/bin/true\` (wall; CPU in brackets) | ${w}× (${c:-–}×) | $(verdict "$w" '<=' 1.5) |"
    u=$(get "launch_static--sandbox")
    [ -n "$u" ] && echo "| the same against the unsupervised \`--sandbox\` launch of the same run (reference) | $(awk -v a="$w" -v b="$u" 'BEGIN{printf "%.3f", a/b}')× | (no goal: the supervisor's share) |"
    w=$(get launchnobody_supervised)
    [ -n "$w" ] && echo "| launcher (static, as nobody) \`--sandbox\`, supervised ≤ 1.5× bare \`/bin/true\` | ${w}× | $(verdict "$w" '<=' 1.5) |"
  fi
  v=$(get spawn_sandbox); echo "| \`sandbox_spawn\` ≤ 1.15× fork+execve | ${v:-–}× | $(verdict "$v" '<=' 1.15) |"
  v=$(get spawn_plan_sandbox); echo "| \`sandbox_spawn_plan\` (plan made once) ≤ 1.15× fork+execve | ${v:-–}× | $(verdict "$v" '<=' 1.15) |"
  for m in "${MODES[@]}"; do
    v=$(get "insandbox_worst launcher $m"); c=$(get "insandbox_worstcpu launcher $m")
    echo "| in-sandbox, launcher \`$m\` ≤ 1.03× (worst workload, wall; CPU in brackets) | ${v:-–}× (${c:-–}×) | $(verdict "$v" '<=' 1.03) |"
  done
  v=$(get "statloop floor")
  if [ -n "$v" ]; then
    echo "| statloop (stat+open+close): the floor, an empty seccomp filter + an empty Landlock domain, against \`--sandbox\` / \`--confine-fs\` / \`--read-only\` | ${v}× against $(get "statloop launcher --sandbox")× / $(get "statloop launcher --confine-fs")× / $(get "statloop launcher --read-only")× | (reference: no sandbox built on these two mechanisms goes below the floor) |"
  fi
  v=$(get rss_static_kib)
  [ -n "$v" ] && mb=$(awk -v k="$v" 'BEGIN{printf "%.2f", k/1024}') || mb=""
  echo "| peak RSS of the launcher ≤ 1.5 MB (static, \`--sandbox\`) | ${mb:-–} MiB | $(verdict "$mb" '<=' 1.5) |"
  v=$(get hardlink_files_per_s); echo "| hard-link scan on ≥ 100k files | ${v:-–} files/s | (no goal: reported) |"
  for g in "100k 2" "1m 5"; do
    set -- $g
    v=$(get "preflight_$1_warm_ms"); c=$(get "preflight_$1_warm_cpu_ms"); x=$(get "preflight_$1_warm_x")
    echo "| warm launch, \`--protect-secrets --scan-hardlinks\` on $1 files ≤ $2 ms more than \`--sandbox\` (wall; CPU in brackets; ratio) | +${v:-–} ms (+${c:-–} ms; ${x:-–}×) | $(verdict "$v" '<=' "$2") |"
    v=$(get "preflight_$1_cold_vs_full")
    echo "| cold launch on $1 files no slower than a full scan without the index (wall) | ${v:-–}× | $(verdict "$v" '<=' 1.05) |"
  done
  echo
  echo "Peers (reference, not goals): bubblewrap and firejail figures are in the tables below. A verdict"
  echo "is on the median wall ratio; where the spread straddles a goal, only an idle-machine run decides."
  echo
  for f in "$R"/[0-9][0-9]-*.md; do cat "$f"; echo; done
} >"$OUT"
echo "== wrote $OUT"
