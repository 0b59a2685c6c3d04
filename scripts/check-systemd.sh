#!/usr/bin/env bash
# Checks systemd/wiggum.service (or the unit file given as $1):
#   1. `systemd-analyze verify` must print nothing at all: warnings such as an unknown or misspelt
#      directive only print a line and still exit 0, so any output line is a failure;
#   2. `systemd-analyze security --offline=yes` must rate the unit's exposure at most THRESHOLD.
# Installs Debian's systemd package when systemd-analyze is missing. Needs no running systemd:
# works as root in a container (CI) and as a user with sudo.
set -euo pipefail

# Exposure is scored 0.0 (locked down) to 10.0; --threshold takes tenths. The unit measures 1.5
# with systemd 252 (Debian 12); 20 (2.0) leaves room for scoring changes between systemd
# versions while failing if, e.g., SystemCallFilter, CapabilityBoundingSet= or
# RestrictNamespaces is dropped.
THRESHOLD=20

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
unit=${1:-$repo/systemd/wiggum.service}
[[ -f $unit ]] || { echo "check-systemd: no unit file at $unit" >&2; exit 2; }

if ! systemd-analyze --version >/dev/null 2>&1; then
  echo "check-systemd: no working systemd-analyze; installing Debian's systemd package"
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "check-systemd: not root and no sudo to install systemd" >&2; exit 2; }
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends systemd
fi
echo "check-systemd: $(systemd-analyze --version | head -n 1)"
if ! systemd-analyze --help | grep -q -- '--offline'; then
  echo "check-systemd: this systemd-analyze has no --offline (systemd >= 250 needed)" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The unit name comes from the file name, so the copy keeps it.
copy=$work/$(basename "$unit")
cp "$unit" "$copy"

# verify reports an Exec*= binary that does not exist on this machine. The unit's wiggum and kill
# need not exist on CI (wiggum is not installed globally there; Debian's /bin/kill is in procps,
# which slim images lack), so in the copy, and only when missing, those two paths are replaced
# by the absolute path of `true`. Any other missing binary is still reported.
stand_in=$(type -P true)
for bin in /usr/local/bin/wiggum /bin/kill; do
  if [[ ! -x $bin ]]; then
    sed -i -E "s#^(Exec[A-Za-z]+=[-@:+!]*)$bin( |\$)#\\1$stand_in\\2#" "$copy"
    echo "check-systemd: $bin is not on this machine; verifying with $stand_in in its place"
  fi
done
# User=/Group= are not looked up by verify (checked: a missing `wiggum` user prints nothing), so
# no user is created or substituted.

echo "check-systemd: systemd-analyze verify $(basename "$unit")"
status=0
output=$(systemd-analyze verify --man=no "$copy" 2>&1) || status=$?
if [[ -n $output || $status -ne 0 ]]; then
  printf '%s\n' "$output" | sed "s#$work/#$(dirname "$unit")/#g" >&2
  echo "check-systemd: FAIL: verify printed the lines above (exit status $status)" >&2
  exit 1
fi
echo "check-systemd: verify: no warnings"

status=0
report=$(systemd-analyze security --offline=yes --threshold="$THRESHOLD" "$copy" 2>&1) || status=$?
score=$(printf '%s\n' "$report" | sed -n -E 's/.*Overall exposure level for [^:]*: ([0-9.]+).*/\1/p')
if [[ $status -ne 0 || -z $score ]]; then
  printf '%s\n' "$report" >&2
  echo "check-systemd: FAIL: exposure ${score:-unknown} is above the threshold $THRESHOLD (tenths), or security failed (exit status $status)" >&2
  exit 1
fi
echo "check-systemd: security: exposure $score (threshold $(printf '%d.%d' $((THRESHOLD / 10)) $((THRESHOLD % 10))))"
echo "check-systemd: ok"
