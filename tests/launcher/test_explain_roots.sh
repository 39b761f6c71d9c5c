#!/usr/bin/env bash
# The macOS and Windows plans refuse the same roots as Linux (issue 16):
# "/" and the home by any spelling, through --explain --target on this host,
# where paths are judged by their normal form (case-insensitive there, with
# Windows' \\?\ prefixes, trailing dots and 8.3 short names). A legitimate
# project beside them still explains.
. "$SBX_TESTLIB"

win() { # NAME PROJECT: explain for Windows with the profile C:\Users\me
  env USERPROFILE='C:\Users\me' "$L" --explain --target windows --sandbox --project "$2" \
    --workdir "$2" -- cmd.exe
}
expect_status 0 "windows: a project inside the profile explains" win legit 'C:\Users\me\proj'
for spelling in 'C:\Users\me' 'c:/users/me' '\\?\C:\Users\me' 'C:\Users\me\.' 'C:\Users\ME~1' \
                'C:\Users\me\proj\..' 'C:\Users\me.' 'C:\Users' 'C:\' 'C:/' '\\?\UNC\srv\share'; do
  expect_status 126 "windows: --project $spelling is refused" win x "$spelling"
  expect_output_has "refusing to make" "  ...with the reason"
done
expect_status 126 "windows: TEMP=C:\\ is refused" \
  env USERPROFILE='C:\Users\me' TEMP='C:\' "$L" --explain --target windows --sandbox \
  --project 'C:\Users\me\proj' --workdir 'C:\Users\me\proj' -- cmd.exe
expect_output_has "TEMP=" "  ...naming the variable"
expect_status 126 "windows: --add-dir of the profile is refused" \
  env USERPROFILE='C:\Users\me' "$L" --explain --target windows --sandbox \
  --project 'C:\Users\me\proj' --workdir 'C:\Users\me\proj' --add-dir 'C:\USERS\ME\' -- cmd.exe

mac() { # NAME ARGS...: explain for macOS with HOME=/Users/me
  local name=$1
  shift
  expect_status 126 "macos: $name" env HOME=/Users/me "$L" --explain --target macos "$@" -- true
  expect_output_has "refusing" "  ...with the reason"
}
expect_status 0 "macos: a project inside the home explains" env HOME=/Users/me TMPDIR=/var/folders/x/T \
  "$L" --explain --target macos --sandbox --project /Users/me/proj --workdir /Users/me/proj -- true
export TMPDIR=/
expect_status 126 "macos: TMPDIR=/ is refused, not rendered as (subpath \"/\")" env HOME=/Users/me "$L" \
  --explain --target macos --sandbox --project /Users/me/p --workdir /Users/me/p -- true
expect_output_has "TMPDIR=/" "  ...naming the variable"
unset TMPDIR
mac "--workdir /users/ME/. is refused (case-insensitive)" --sandbox --workdir /users/ME/.
mac "--add-dir /Users is refused" --sandbox --project /Users/me/p --workdir /Users/me/p --add-dir /Users
mac "--scratch /private/../ is refused" --sandbox --project /Users/me/p --workdir /Users/me/p --scratch /private/../
mac "--class media --output ~ is refused" --class media --output /Users/me/ --project /Users/me/p --workdir /Users/me/p
finish
