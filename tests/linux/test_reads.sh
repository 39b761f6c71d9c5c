#!/usr/bin/env bash
# Issue 28: an explicit class confines reads to the OS, the toolchains in the
# home, the project and its scratch (media: the project and its output
# folder), on a fake home, as root and as nobody. Every refusal is shown to
# be a real one: the same read works unconfined, checked from outside.
. "$SBX_TESTLIB"

require landlock "a class runs" "$L" --project "$_scratch" --workdir "$_scratch" --class project -- true

H=$_home
export HOME=$H
P=$H/proj
mkdir -p "$H/Documents" "$H/other-proj" "$H/.mozilla/firefox/p" "$H/.ssh" "$P/out" \
  "$H/.cargo/bin" "$H/.rustup" "$H/.config/git" "$H/data"
echo doc-secret >"$H/Documents/x"
echo other-secret >"$H/other-proj/f"
echo moz-secret >"$H/.mozilla/firefox/p/key4.db"
echo ssh-secret >"$H/.ssh/id_rsa"
echo cred-secret >"$H/.cargo/credentials.toml"
echo git-cred-secret >"$H/.config/git/credentials"
echo data >"$H/data/d.csv"
printf '[user]\n\tname = T\n\temail = t@example.com\n' >"$H/.gitconfig"
echo 'default_toolchain = "stable"' >"$H/.rustup/settings.toml"
chmod 755 "$H" # so that nobody's own home check sees nothing odd as root

# A stand-in for a rustup proxy in ~/.cargo/bin: it runs from there and reads
# ~/.rustup, as the real one does. Debian's cargo when installed.
if [ -x /usr/bin/cargo ]; then
  cp /usr/bin/cargo "$H/.cargo/bin/cargo"
  cargo_args=(--version)
else
  printf '#include <stdio.h>\nint main(int c, char **v) { char p[4096]; FILE *f;\n'\
'snprintf(p, sizeof p, "%%s/.rustup/settings.toml", v[1]); f = fopen(p, "r");\n'\
'if (!f) { perror(p); return 1; } puts("cargo 1.0 (stand-in)"); return 0; }\n' >"$_scratch/cargo.c"
  cc -o "$H/.cargo/bin/cargo" "$_scratch/cargo.c" || fail "cannot build the cargo stand-in"
  cargo_args=("$H")
fi

cd "$P" || exit 1
git init -q . && git add -A >/dev/null 2>&1
printf 'all: hello\nhello: hello.c\n\tcc -o hello hello.c\n' >Makefile
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' >hello.c
printf 'print("py-ok")\n' >a.py
printf '{"name":"t","version":"1.0.0","scripts":{"test":"node t.js"}}\n' >package.json
printf 'console.log("node-ok")\n' >t.js
mkdir gosrc
printf 'module example.com/t\n\ngo 1.19\n' >gosrc/go.mod
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("go-ok") }\n' >gosrc/main.go
echo mine >a.txt
S=$_scratch/scratch
mkdir -p "$S"

run=("$L" --project "$P" --workdir "$P")

# refused NAME FILE: unreadable under the class, readable unconfined.
refused() {
  local name=$1 file=$2
  shift 2
  if ! cat "$file" >/dev/null 2>&1; then
    fail "$name: $file is not readable unconfined either (the check could not fail)"
    return
  fi
  expect_status 1 "$name: cat refused under the class" "${run[@]}" "$@" -- cat "$file"
}

for cls in project research build offline; do
  refused "$cls: ~/Documents/x" "$H/Documents/x" --class "$cls"
done
refused "another project" "$H/other-proj/f" --class project
refused "~/.mozilla" "$H/.mozilla/firefox/p/key4.db" --class project
refused "~/.ssh" "$H/.ssh/id_rsa" --class project
refused "cargo's credentials.toml in a granted toolchain home" "$H/.cargo/credentials.toml" --class project
refused "git's credentials file" "$H/.config/git/credentials" --class project
expect_status 2 "the home cannot be listed (ls)" "${run[@]}" --class project -- ls "$H"
expect_status 0 "unconfined, it can" ls "$H"

# Spelled otherwise: links and /proc lead to the same object, judged as it.
ln -s "$H/.ssh" "$P/keys"
refused "a symlink from the project to ~/.ssh" "$P/keys/id_rsa" --class project
rm "$P/keys"
refused "/proc/self/root/..." "/proc/self/root$H/Documents/x" --class project
expect_status 1 "/proc/self/cwd/../Documents/x" "${run[@]}" --class project -- \
  sh -c 'cat /proc/self/cwd/../Documents/x'
expect_status 0 "unconfined, /proc/self/cwd/../Documents/x reads" \
  sh -c 'cat /proc/self/cwd/../Documents/x'

# A hard link in the project to a home file: the scan refuses the launch.
if ln "$H/Documents/x" "$P/hl" 2>/dev/null; then
  expect_status 126 "a hard link from the project to ~/Documents/x refuses the launch" \
    "${run[@]}" --class project -- cat "$P/hl"
  rm -f "$P/hl"
fi

# What stays readable: the project, a walk through the unreadable home.
expect_status 0 "the project reads" "${run[@]}" --class project -- cat "$P/a.txt"
expect_status 0 "cd ~/proj through an unreadable home" "${run[@]}" --class project -- \
  sh -c "cd '$H' && cd proj && cat a.txt"
expect_status 0 "git status" "${run[@]}" --class project -- git status --short
expect_status 0 "git log after a commit" "${run[@]}" --class project -- \
  sh -c 'git add a.txt && git -c commit.gpgsign=false commit -qm x && git log --oneline'
expect_status 0 "make and cc" "${run[@]}" --class project -- sh -c 'make -s && ./hello'
expect_output_has hi "the program cc built runs"
if have python3; then
  expect_status 0 "python3" "${run[@]}" --class project -- python3 a.py
  expect_output_has py-ok "python3 ran the project's script"
else
  skip "python3: python3 is not installed"
fi
if have node; then
  expect_status 0 "node" "${run[@]}" --class project -- node t.js
else
  skip "node: node is not installed"
fi
# Debian's nodejs comes without npm (a package of its own, not in
# scripts/deps.sh): a fresh root has node and no npm.
if have npm; then
  # No update check: the class has no network, and a socket would kill npm.
  expect_status 0 "npm test" env npm_config_update_notifier=false "${run[@]}" --class project -- \
    npm test
  expect_output_has node-ok "npm test ran the project's test"
else
  skip "npm: npm is not installed (Debian's npm package)"
fi
expect_status 0 "a binary in ~/.cargo/bin runs (and reads ~/.rustup)" "${run[@]}" --class project -- \
  "$H/.cargo/bin/cargo" "${cargo_args[@]}"
if command -v go >/dev/null; then
  # The build cache is the scratch: the project class writes no cache.
  expect_status 0 "go build" env GOCACHE="$S/go-build" GOPATH="$S/go" "${run[@]}" --class project \
    --scratch "$S" -- sh -c 'cd gosrc && go build -o gohello . && ./gohello'
  expect_output_has go-ok "the program go built runs"
  # A dependency already in the module cache (the home's ~/go/pkg/mod, filled
  # unconfined from a file proxy, as an earlier `go mod download` would):
  # the project class reads the package caches, never writes them.
  gp=$_scratch/goproxy/example.com/dep/@v
  mkdir -p "$gp" "$P/godep"
  printf 'module example.com/dep\n' >"$gp/v1.0.0.mod"
  printf '{"Version":"v1.0.0"}\n' >"$gp/v1.0.0.info"
  printf 'v1.0.0\n' >"$gp/list"
  python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1], "w")
z.writestr("example.com/dep@v1.0.0/go.mod", "module example.com/dep\n")
z.writestr("example.com/dep@v1.0.0/dep.go", "package dep\n\nconst Word = \"dep-ok\"\n")
z.close()' "$gp/v1.0.0.zip"
  printf 'module example.com/t2\n\ngo 1.19\n\nrequire example.com/dep v1.0.0\n' >"$P/godep/go.mod"
  printf 'package main\n\nimport (\n\t"fmt"\n\t"example.com/dep"\n)\n\nfunc main() { fmt.Println(dep.Word) }\n' \
    >"$P/godep/main.go"
  goenv=(env GOMODCACHE="$H/go/pkg/mod" GOSUMDB=off GOFLAGS=-mod=mod GOCACHE="$S/go-build")
  expect_status 0 "unconfined, go fills the module cache from a file proxy" \
    "${goenv[@]}" GOPROXY="file://$_scratch/goproxy" sh -c "cd '$P/godep' && go mod download example.com/dep"
  expect_status 0 "go build with a dependency from the module cache (read, not written)" \
    "${goenv[@]}" GOPROXY=off "${run[@]}" --class project --scratch "$S" -- \
    sh -c 'cd godep && go build -o godep . && ./godep'
  expect_output_has dep-ok "the program built from the cached module runs"
  expect_status 2 "the module cache is not writable under the project class" \
    "${run[@]}" --class project -- sh -c "echo x > '$H/go/pkg/mod/planted'"
  refused "~/Documents still unreadable with the caches granted" "$H/Documents/x" --class project
else
  skip "go: go is not installed (apt-get install golang-go)"
fi

# The OS: configuration yes; the parts of /var that are other people's, no.
expect_status 0 "/etc/hostname reads" "${run[@]}" --class project -- cat /etc/hostname
if [ -r /var/log/dpkg.log ]; then
  refused "/var/log" /var/log/dpkg.log --class project
fi
if have root; then
  refused "/etc/shadow (root reads every file by capability)" /etc/shadow --class project
  expect_status 0 "root still reads /etc/passwd" "${run[@]}" --class project -- cat /etc/passwd
  # A wholly world-readable /etc directory is not granted whole: a 0600
  # file written into it while the command runs (apt's auth.conf.d) stays
  # unreadable for root (review of issue 17, F4); world-readable files there
  # still read. Checked against the file written, from outside.
  ed=$(mktemp -d /etc/sbx-reads.XXXXXX)
  chmod 755 "$ed"
  echo public >"$ed/pub"
  chmod 644 "$ed/pub"
  rm -f "$P/started"
  "${run[@]}" --class project -- sh -c "cat '$ed/pub' && touch '$P/started' &&
    i=0; while [ ! -e '$ed/late' ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done;
    sleep 0.2; cat '$ed/late'" >"$_scratch/late.out" 2>&1 &
  lpid=$!
  i=0; while [ ! -e "$P/started" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
  (umask 077; echo after-launch-secret >"$ed/late.tmp" && mv "$ed/late.tmp" "$ed/late")
  wait "$lpid"; lrc=$?
  if grep -q public "$_scratch/late.out" && ! grep -q after-launch-secret "$_scratch/late.out" &&
    [ "$lrc" = 1 ]; then
    pass "root: a 0600 file written into a world-readable /etc directory during the run stays unreadable"
  else
    fail "root: the late /etc file: exit $lrc: $(head -c 300 "$_scratch/late.out")"
  fi
  expect_status 0 "  ...and it reads unconfined" cat "$ed/late"
  rm -rf "$ed" "$P/started"
  # Not uid 0 but holding cap_dac_override (kept by the confining modes):
  # it reads /etc/shadow unconfined, so the class must walk /etc for it as
  # for root (review of issue 28: the walk was decided by uid alone).
  capped=(setpriv --reuid=nobody --regid=nogroup --clear-groups
    --inh-caps=+dac_override --ambient-caps=+dac_override)
  if "${capped[@]}" cat /etc/shadow >/dev/null 2>&1; then
    expect_status 1 "nobody with ambient cap_dac_override: /etc/shadow refused under the class" \
      "${capped[@]}" "${run[@]}" --class project -- cat /etc/shadow
    expect_status 0 "nobody with ambient cap_dac_override still reads /etc/passwd" \
      "${capped[@]}" "${run[@]}" --class project -- cat /etc/passwd
  else
    fail "nobody with ambient cap_dac_override cannot read /etc/shadow unconfined (check cannot fail)"
  fi
else
  skip "root: /etc/shadow is unreadable for nobody anyway"
fi

# /tmp: the research class reads its own scratch, not the shared /tmp.
other=$(mktemp /tmp/sbx-reads-other.XXXXXX)
echo other >"$other"
chmod 644 "$other"
refused "research: another user's file in /tmp" "$other" --class research --scratch "$S"
rm -f "$other"

# Toolchain variables never grant the home or a secret.
expect_status 1 "CARGO_HOME=\$HOME does not make the home readable" \
  env CARGO_HOME="$H" "${run[@]}" --class project -- cat "$H/Documents/x"
PNPM_HOME="$H/.ssh" "$L" --explain --class project --project "$P" --workdir "$P" -- true >"$_out" 2>&1
if grep -q "$H/.ssh" "$_out" && ! grep -q "left out" "$_out"; then
  fail "PNPM_HOME=~/.ssh is listed as a read root"; grep "$H/.ssh" "$_out" | head -3
else
  pass "PNPM_HOME=~/.ssh grants nothing"
fi
PNPM_HOME="$H" "$L" --explain --class project --project "$P" --workdir "$P" -- true >"$_out" 2>&1
expect_output_has "left out" "PNPM_HOME=\$HOME is left out, and --explain says so"

# --add-read: a directory more; never / or the home.
refused "~/data without --add-read" "$H/data/d.csv" --class project
expect_status 0 "--add-read ~/data makes it readable" "${run[@]}" --class project --add-read "$H/data" \
  -- cat "$H/data/d.csv"
expect_status 126 "--add-read ~ is refused" "${run[@]}" --class project --add-read "$H" -- true
expect_status 126 "--add-read / is refused" "${run[@]}" --class project --add-read / -- true
expect_status 126 "--add-read of the home's parent is refused" "${run[@]}" --class project \
  --add-read "$(dirname "$H")" -- true

# A link an earlier launch planted in the project (it was writable then) must
# not redirect a later research launch's read grants (review of issue 28):
# --add-read through it is refused, and a toolchain override through it
# grants nothing. The same reads work unconfined. Outside the shared temps
# (where every link counts as planted anyway), so only as root: nobody can
# make a directory anywhere else.
if have root; then
  pb=$(mktemp -d /var/lib/sbx-reads.XXXXXX)
  chmod 755 "$pb"
  mkdir -p "$pb/h/proj" "$pb/h/Documents/wrapper"
  echo planted-doc-secret >"$pb/h/Documents/wrapper/w"
  ln -s "$pb/h/Documents" "$pb/h/proj/docs"
  prun=(env HOME="$pb/h" "$L" --project "$pb/h/proj" --workdir "$pb/h/proj" --class research
    --scratch "$S")
  expect_status 126 "--add-read through a link planted in the project is refused" \
    "${prun[@]}" --add-read "$pb/h/proj/docs" -- cat "$pb/h/proj/docs/wrapper/w"
  expect_status 1 "GRADLE_USER_HOME through a link planted in the project grants nothing" \
    env GRADLE_USER_HOME="$pb/h/proj/docs" "${prun[@]}" -- cat "$pb/h/proj/docs/wrapper/w"
  expect_status 0 "unconfined, the link reads" cat "$pb/h/proj/docs/wrapper/w"
  rm -rf "$pb"
else
  skip "root: only root can make a directory outside the shared temps to plant a link in"
fi

# media: the project and its output folder, nothing of the home's toolchains.
mrun=("$L" --class media --output "$P/out" --project "$P" --workdir "$P" --scratch "$S")
expect_status 0 "media reads the project" "${mrun[@]}" -- cat "$P/a.txt"
expect_status 0 "media writes and reads its output" "${mrun[@]}" -- \
  sh -c "echo o > '$P/out/o.txt' && cat '$P/out/o.txt'"
expect_status 1 "media does not read ~/.gitconfig" "${mrun[@]}" -- cat "$H/.gitconfig"
expect_status 0 "~/.gitconfig reads unconfined" cat "$H/.gitconfig"
expect_status 1 "media does not read another project" "${mrun[@]}" -- cat "$H/other-proj/f"
expect_status 126 "media does not run ~/.cargo/bin" "${mrun[@]}" -- "$H/.cargo/bin/cargo" "${cargo_args[@]}"

# Windows: the AppContainer is read-narrow already; the plan says so.
"$L" --explain --target windows --class project --project 'C:\p' --workdir 'C:\p' -- x >"$_out" 2>&1
expect_output_has "AppContainer reads only what is granted" "--explain --target windows says how reads map"

# Without a class, reads stay open (seed 000).
for mode in --sandbox --confine-fs --no-network; do
  expect_status 0 "$mode reads ~/Documents/x as before" "${run[@]}" "$mode" -- cat "$H/Documents/x"
done
expect_status 0 "--tool-server reads as before (spec 003)" "${run[@]}" --tool-server -- \
  cat "$H/Documents/x"

finish
