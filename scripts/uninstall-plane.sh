#!/bin/sh
# Removes argus-plane as the removal table of docs/deployment.md ("Installing the plane") says:
#
#   object                                        uninstall-plane.sh   uninstall-plane.sh --purge
#   service, unit, executable (.prev, .new)       removed              removed
#   /etc/argus-plane (environment file)           kept                 removed
#   data directory (plane.toml, secret.key,       kept                 removed; irreversible
#     embedded database, evidence folder, tls)
#   evidence folder outside the data directory    kept                 kept
#   PostgreSQL database, S3 bucket                kept                 kept
#
#   scripts/uninstall-plane.sh [--root DIR] [--purge]
set -eu

ROOT=/
PURGE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT=$2; shift 2 ;;
    --purge) PURGE=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "uninstall-plane.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
ROOT=${ROOT%/}
HOST=0
[ -z "$ROOT" ] && HOST=1

BIN_DIR=$ROOT/usr/bin
LIB_DIR=$ROOT/usr/lib/argus-plane
CONFIG_DIR=$ROOT/etc/argus-plane
DATA=/var/lib/argus-plane
DATA_DIR=$ROOT$DATA
SETTINGS=$DATA_DIR/plane.toml
UNIT=$ROOT/etc/systemd/system/argus-plane.service

if [ "$HOST" = 1 ] && command -v systemctl >/dev/null 2>&1; then
  systemctl disable --now argus-plane.service 2>/dev/null || true
fi
rm -f "$UNIT" "$BIN_DIR/argus-plane" "$BIN_DIR/argus-plane.prev" "$BIN_DIR/argus-plane.new"
rm -rf "$LIB_DIR"
if [ "$HOST" = 1 ] && command -v systemctl >/dev/null 2>&1; then
  systemctl daemon-reload || true
fi
echo "removed: service unit, executables (with .prev), program files"

# What lives outside the data directory is never removed: say where it is so the operator can decide.
# `key = "value"` of one [section] of plane.toml (the last one wins, as in TOML there is one).
setting() {
  [ -f "$SETTINGS" ] || return 0
  awk -v want="$1" -v key="$2" '
    /^[[:space:]]*\[/ { section = $0; gsub(/[[:space:]\[\]]/, "", section); next }
    section == want && $0 ~ "^[[:space:]]*" key "[[:space:]]*=" {
      v = $0; sub(/^[^=]*=[[:space:]]*/, "", v); sub(/[[:space:]]*#.*$/, "", v); gsub(/^"|"$/, "", v); found = v
    }
    END { if (found != "") print found }' "$SETTINGS"
}
if [ "$(setting evidence_storage backend)" = s3 ]; then
  echo "kept: evidence in bucket $(setting evidence_storage bucket) at $(setting evidence_storage endpoint); empty it by hand if wanted"
else
  dir=$(setting evidence_storage dir)
  case "$dir" in
    ""|"$DATA"/*) [ "$PURGE" = 1 ] && echo "evidence folder ${dir:-$DATA/evidence} is inside the data directory: removed with it" ;;
    /*) echo "kept: evidence folder $dir is outside the data directory; remove it by hand if wanted" ;;
    *) [ "$PURGE" = 1 ] && echo "evidence folder $DATA/$dir is inside the data directory: removed with it" ;;
  esac
fi
url=$(setting database url)
if [ -z "$url" ] && [ -f "$CONFIG_DIR/argus-plane.env" ]; then
  url=$(sed -n 's/^[[:space:]]*DATABASE_URL=//p' "$CONFIG_DIR/argus-plane.env" | tail -n 1)
fi
if [ -n "$url" ]; then
  # Only the host part: the address may carry a password.
  echo "kept: the PostgreSQL database at $(echo "$url" | sed 's|^[a-z]*://\([^@/]*@\)\{0,1\}\([^/?]*\).*|\2|'); drop it by hand if no other plane process uses it"
fi

if [ "$PURGE" = 1 ]; then
  rm -rf "$CONFIG_DIR"
  rm -rf "$DATA_DIR"
  echo "purged: $CONFIG_DIR (environment file) and $DATA_DIR (settings, secret.key, embedded database, local evidence, tls)"
  echo "note: node secrets in a kept database can be read again only with a copy of this secret.key (another process's)"
else
  echo "kept: $CONFIG_DIR and $DATA_DIR (use --purge to remove them)"
fi
