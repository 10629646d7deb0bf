#!/usr/bin/env bash
# Installs the newer servers the Redis tests also run on, from Debian's own packages, into a private folder:
#   valkey-8.0  valkey-server 8.0 from bookworm-backports
#   redis-8.0   redis-server 8.0 from trixie (built against trixie's C library)
# and prints one line per server, "<name> <command>", the command being a wrapper that execs the server (so the PID
# the tests start is the server's) through the dynamic loader and libraries extracted next to it, never the system's.
#
# Nothing is installed into the system and its apt configuration is left as it was: the .debs (each server with the
# libraries it needs, from the same suite) are fetched with apt-get download through a private apt state (its own
# sources list, package lists and an empty dpkg status) and unpacked with dpkg-deb -x. No root needed. A server
# already installed and answering --version is kept: a second run takes well under a second.
#
# SLUICE_REDIS_HOME: where (default ~/.cache/sluice-redis). SLUICE_DEBIAN_MIRROR: the Debian mirror (default the one
# the system's apt sources name, else http://deb.debian.org/debian).
set -euo pipefail

home=${SLUICE_REDIS_HOME:-${HOME:?}/.cache/sluice-redis}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

mirror() {
  if [ -n "${SLUICE_DEBIAN_MIRROR:-}" ]; then echo "$SLUICE_DEBIAN_MIRROR"; return; fi
  local uri
  uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
    | grep -v '^[[:space:]]*#' | grep -o 'https\?://[^ ]*/debian/\?\( \|$\)' | head -n 1 | tr -d ' ' || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

# apt-get/apt-cache over the private state in $1 (made by apt_state)
papt() {
  local state=$1 tool=$2
  shift 2
  "$tool" -q -o Dir::Etc::SourceList="$state/sources.list" -o Dir::Etc::SourceParts="$state/none" \
    -o Dir::Etc::Preferences="$state/none/preferences" -o Dir::Etc::PreferencesParts="$state/none" \
    -o Dir::State="$state" -o Dir::State::Lists="$state/lists" -o Dir::State::status="$state/status" \
    -o Dir::Cache="$state/cache" -o Dir::Cache::archives="$state/archives" -o Debug::NoLocking=1 \
    -o APT::Sandbox::User="$(id -un)" "$@"
}

# A private apt state in $1 listing the suites $2... of the mirror, their package lists fetched.
apt_state() {
  local state=$1 url
  shift
  url=$(mirror)
  rm -rf "$state"
  mkdir -p "$state/lists/partial" "$state/archives/partial" "$state/cache" "$state/none"
  : > "$state/status"
  for suite in "$@"; do
    echo "deb [signed-by=$keyring] $url $suite main" >> "$state/sources.list"
  done
  papt "$state" apt-get update >&2
}

# The packages $2... and every library they depend on, from the state in $1: one name a line. One apt-cache call a
# level of dependencies: each loads the package lists (seconds on a busy machine).
closure() {
  local state=$1 dep
  shift
  local -a level=("$@") next
  local -A seen=()
  while [ ${#level[@]} -gt 0 ]; do
    next=()
    for dep in "${level[@]}"; do
      if [ -z "${seen[$dep]:-}" ]; then seen[$dep]=1; next+=("$dep"); echo "$dep"; fi
    done
    [ ${#next[@]} -gt 0 ] || break
    level=()
    # the libraries (and the server's own packages), not what installing them as a service would need (adduser...)
    for dep in $(papt "$state" apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
        --no-replaces --no-enhances "${next[@]}" | sed -n 's/^ *|\?\(Pre\)\?Depends: \([^<>]*\)$/\2/p'); do
      case $dep in
        lib* | zlib1g | gcc-*-base | openssl-provider-*) level+=("$dep") ;;
      esac
    done
  done
}

# install <name> <executable inside the package> <suites> <packages...>: extracts them into $home/<name>/root and
# writes the wrapper $home/<name>/server
install() {
  local name=$1 exe=$2 suites=$3
  shift 3
  local dir=$home/$name wrapper=$home/$name/server
  if [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; then
    echo "$name $wrapper"
    return
  fi
  echo "installing $name ($*) from Debian $suites into $dir" >&2
  rm -rf "$dir"
  mkdir -p "$dir/debs" "$dir/root"
  # shellcheck disable=SC2086
  apt_state "$dir/apt" $suites
  mapfile -t packages < <(closure "$dir/apt" "$@")
  (cd "$dir/debs" && papt "$dir/apt" apt-get download "${packages[@]}" >&2)
  for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
  local loader libs
  loader=$(find "$dir/root" -name 'ld-linux-x86-64.so.2' | head -n 1)
  [ -n "$loader" ] || { echo "no ld-linux-x86-64.so.2 in the packages of $name" >&2; exit 1; }
  libs="$dir/root/usr/lib/x86_64-linux-gnu:$dir/root/lib/x86_64-linux-gnu"
  cat > "$wrapper" <<EOF
#!/bin/sh
# $name: $exe from Debian $suites ($*), with the C library and libraries extracted next to it (.ci/redis-versions.sh)
exec "$loader" --library-path "$libs" "$dir/root/usr/bin/$exe" "\$@"
EOF
  chmod +x "$wrapper"
  "$wrapper" --version >&2
  rm -rf "$dir/apt" "$dir/debs" "$dir/root/usr/share"   # package lists, .debs, docs and locales: not needed again
  echo "$name $wrapper"
}

case $(dpkg --print-architecture) in
  amd64) ;;
  *) echo "$(basename "$0"): the wrappers start x86-64 servers; this is $(dpkg --print-architecture)" >&2; exit 1 ;;
esac
install valkey-8.0 valkey-server "bookworm bookworm-backports" valkey-server valkey-tools
install redis-8.0 redis-server trixie redis-server redis-tools
