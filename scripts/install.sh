#!/bin/sh
# Installs linkpatrol: the binary, the systemd unit and the example config. Safe to run again: identical files
# are left alone, an operator's config is never overwritten. See docs/operations.md.
set -eu

usage() {
  cat <<'EOF'
usage: scripts/install.sh [--root DIR] [--binary PATH] [--no-user]

  --root DIR     install under DIR instead of / (also: DESTDIR=DIR); implies --no-user
  --binary PATH  the executable to install (default: dist/linkpatrol of this repository)
  --no-user      do not create the linkpatrol user or run systemctl (also skipped when not run as root)

Installs /usr/local/bin/linkpatrol (0755), /etc/systemd/system/linkpatrol.service (0644) and, unless it exists,
/etc/linkpatrol/linkpatrol.yaml (0640, group linkpatrol) with storage.path set to /var/lib/linkpatrol.
EOF
}

die() {
  echo "install.sh: $*" >&2
  exit 2
}

repo=$(cd "$(dirname "$0")/.." && pwd)
root=${DESTDIR:-/}
binary=$repo/dist/linkpatrol
system=yes

while [ $# -gt 0 ]; do
  case $1 in
    --root) [ $# -ge 2 ] || die "--root needs a directory"; root=$2; shift 2 ;;
    --root=*) root=${1#*=}; shift ;;
    --binary) [ $# -ge 2 ] || die "--binary needs a path"; binary=$2; shift 2 ;;
    --binary=*) binary=${1#*=}; shift ;;
    --no-user) system=no; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

[ -f "$binary" ] || die "no binary at $binary (run make build, or pass --binary PATH)"
[ -d "$root" ] || die "root $root is not a directory"
prefix=${root%/}
if [ "$system" = yes ] && [ -n "$prefix" ]; then
  system=no
  echo "skipped: user and systemctl (installing under $root)"
elif [ "$system" = yes ] && [ "$(id -u)" != 0 ]; then
  system=no
  echo "skipped: user and systemctl (not running as root)"
fi

pending=""
rendered=""
trap 'rm -f "$pending" "$rendered"' EXIT

# install_file SRC DEST MODE [GROUP]: copy when the contents differ, through a temporary file in DEST's
# directory renamed over DEST, so a running binary or a reader never sees a half-written file.
install_file() {
  if [ -f "$2" ] && cmp -s "$1" "$2"; then
    echo "unchanged: $2"
    return 0
  fi
  if [ -e "$2" ]; then verb=updated; else verb=installed; fi
  mkdir -p "$(dirname "$2")"
  pending=$(dirname "$2")/.$(basename "$2").new.$$
  cp "$1" "$pending"
  chmod "$3" "$pending"
  if [ -n "${4:-}" ]; then chgrp "$4" "$pending"; fi
  mv -f "$pending" "$2"
  pending=""
  echo "$verb: $2"
  changed="$changed $2"
}

changed=""

if [ "$system" = yes ]; then
  if id -u linkpatrol >/dev/null 2>&1; then
    echo "unchanged: user linkpatrol"
  else
    nologin=/usr/sbin/nologin
    [ -x "$nologin" ] || nologin=/sbin/nologin
    useradd --system --user-group --no-create-home --home-dir /var/lib/linkpatrol --shell "$nologin" linkpatrol
    echo "created: system user linkpatrol"
  fi
fi
# The service reads its config as group linkpatrol: whenever that group exists on the system being installed
# (created above, or by an earlier run; also with --no-user), the config and its directory belong to it.
# Under --root the files are for another system, whose group ids this one does not know.
group=""
if [ -z "$prefix" ] && [ "$(id -u)" = 0 ] && getent group linkpatrol >/dev/null 2>&1; then
  group=linkpatrol
fi

install_file "$binary" "$prefix/usr/local/bin/linkpatrol" 0755
install_file "$repo/deploy/linkpatrol.service" "$prefix/etc/systemd/system/linkpatrol.service" 0644

# The example keeps the store under ./data for a checkout; the service keeps it in its StateDirectory.
rendered=$(mktemp)
sed '/^storage:/,/^[a-z]/ s|^  path: .*|  path: /var/lib/linkpatrol/linkpatrol.db|' \
  "$repo/deploy/linkpatrol.example.yaml" >"$rendered"
grep -q '^  path: /var/lib/linkpatrol/linkpatrol.db$' "$rendered" ||
  die "could not set storage.path in deploy/linkpatrol.example.yaml"

confdir=$prefix/etc/linkpatrol
config=$confdir/linkpatrol.yaml
if [ ! -d "$confdir" ]; then
  mkdir -p "$confdir"
  echo "created: $confdir"
fi
chmod 0750 "$confdir"
if [ -n "$group" ]; then chgrp "$group" "$confdir"; fi

if [ ! -e "$config" ]; then
  install_file "$rendered" "$config" 0640 "$group"
elif cmp -s "$rendered" "$config"; then
  echo "unchanged: $config"
else
  echo "kept: $config (yours; the new example differs, see $config.example)"
  install_file "$rendered" "$config.example" 0640 "$group"
fi

if [ "$system" = yes ]; then
  case $changed in
    *linkpatrol.service*)
      if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
        systemctl daemon-reload
        echo "ran: systemctl daemon-reload"
      fi
      ;;
  esac
  case $changed in
    */usr/local/bin/linkpatrol*) echo "next: systemctl enable --now linkpatrol (or restart it, if it runs)" ;;
  esac
fi
