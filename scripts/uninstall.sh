#!/bin/sh
# Removes argus-node as the removal table of the node documentation says:
#
#   object                                   uninstall.sh   uninstall.sh --purge
#   service, unit, executable                removed        removed
#   kernel-settings file                     removed        removed
#   {config_dir} (configuration, licence)    kept           removed (a new activation is needed)
#   {data_dir} (default archive, TLS state)  kept           removed with all recordings; irreversible
#   storages on other volumes                kept           kept
#
#   scripts/uninstall.sh [--root DIR] [--purge]
set -eu

ROOT=/
PURGE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT=$2; shift 2 ;;
    --purge) PURGE=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "uninstall.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
ROOT=${ROOT%/}
HOST=0
[ -z "$ROOT" ] && HOST=1

BIN_DIR=$ROOT/usr/bin
LIB_DIR=$ROOT/usr/lib/argus-node
CONFIG_DIR=$ROOT/etc/argus-node
CONFIG=$CONFIG_DIR/argus-node.conf
UNIT=$ROOT/etc/systemd/system/argus-node.service
SYSCTL=$ROOT/etc/sysctl.d/60-argus-node.conf

# The data directory and the storages are where the configuration says (paths inside ROOT).
DATA=/var/lib/argus-node
if [ -f "$CONFIG" ]; then
  d=$(sed -n 's/^[[:space:]]*data_dir[[:space:]]\{1,\}"\{0,1\}\([^";]*\)"\{0,1\};.*/\1/p' "$CONFIG" | tail -n 1)
  [ -n "$d" ] && DATA=$d
fi
DATA_DIR=$ROOT$DATA

if [ "$HOST" = 1 ] && command -v systemctl >/dev/null 2>&1; then
  systemctl disable --now argus-node.service 2>/dev/null || true
fi
rm -f "$UNIT" "$BIN_DIR/argus-node" "$BIN_DIR/argus-node.prev" "$BIN_DIR/argus-node.new"
rm -rf "$LIB_DIR"
rm -f "$SYSCTL"
if [ "$HOST" = 1 ] && command -v systemctl >/dev/null 2>&1; then
  systemctl daemon-reload || true
fi
echo "removed: service unit, executables (with .prev), program files, kernel-settings file"
echo "note: kernel settings applied from the settings file stay in effect until reboot"

# Storages outside the data directory are never removed: list them so the operator can decide.
if [ -f "$CONFIG" ]; then
  sed -n 's/^[[:space:]]*storage[[:space:]]\{1,\}\([^[:space:];]*\)[[:space:]]\{1,\}"\{0,1\}\([^";[:space:]]*\)"\{0,1\}.*/\1 \2/p' "$CONFIG" |
  while read -r name path; do
    case "$path" in
      "$DATA"|"$DATA"/*) [ "$PURGE" = 1 ] && echo "storage $name ($path) is inside the data directory: removed with it" ;;
      *) echo "kept: storage $name at $path is outside the data directory; remove it by hand if wanted" ;;
    esac
  done
fi

if [ "$PURGE" = 1 ]; then
  rm -rf "$CONFIG_DIR"
  rm -rf "$DATA_DIR"
  echo "purged: $CONFIG_DIR (configuration and licence: a new activation is needed) and $DATA_DIR (all recordings in it)"
else
  echo "kept: $CONFIG_DIR and $DATA_DIR (use --purge to remove them)"
fi
