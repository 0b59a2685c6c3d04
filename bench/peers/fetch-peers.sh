#!/bin/sh
# Fetches the peers' loop scripts that `npm run bench` runs beside wiggum (the naive phase), at
# pinned commits, into bench/peers/cache/ (gitignored: their code is theirs, not part of wiggum).
# Each file is checked against the SHA-256 it had at that commit. Without network access, copy the
# files into any folder by hand and point the bench at it: WIGGUM_BENCH_PEERS_DIR=/that/folder.
#
#   sh bench/peers/fetch-peers.sh
set -eu

cache="$(dirname "$0")/cache"
mkdir -p "$cache"

# snarktank/ralph: ralph.sh, the loop of the original Ralph (MIT).
ralph_commit=6c53cb0b831ebe8739c6a003e22af14902d8b0b5
ralph_sha256=b42738266de696a2807ae6af6a7f588bd7c8c8a1c01b71b0f4eece207b9e8d76

fetch() {
  url=$1 sha=$2 out=$3
  curl --fail --silent --show-error --location --output "$out.part" "$url"
  actual=$(sha256sum "$out.part" | cut -d' ' -f1)
  if [ "$actual" != "$sha" ]; then
    rm -f "$out.part"
    echo "fetch-peers: $url has SHA-256 $actual, expected $sha" >&2
    exit 1
  fi
  mv "$out.part" "$out"
  echo "fetch-peers: $out ($url)"
}

fetch "https://raw.githubusercontent.com/snarktank/ralph/$ralph_commit/ralph.sh" "$ralph_sha256" "$cache/ralph.sh"
