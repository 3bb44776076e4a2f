#!/bin/sh
# Installs argus-node: program files, executable, service unit, kernel-settings file and the
# configuration and data directories. Safe to run again for an upgrade-in-place; the procedure
# with a check first and a kept .prev copy is in docs/upgrade.md.
#
#   scripts/install.sh [--root DIR] [--source DIR] [--stage]
#
#   --root DIR    install under DIR instead of / (image builds, tests). Under a root other than /
#                 the service manager, sysctl and user accounts of the host are not touched.
#   --source DIR  built tree with dist/, package.json and node_modules/ (default: this script's
#                 repository; run `npm ci && npm run build` there first).
#   --stage       place the new executable beside the working one as argus-node.new and touch
#                 nothing else that is running (step 1 of the upgrade procedure).
set -eu

ROOT=/
SOURCE=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
STAGE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT=$2; shift 2 ;;
    --source) SOURCE=$2; shift 2 ;;
    --stage) STAGE=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
SOURCE=$(CDPATH= cd -- "$SOURCE" && pwd -P)
ROOT=${ROOT%/}
HOST=0
[ -z "$ROOT" ] && HOST=1

BIN_DIR=$ROOT/usr/bin
LIB_DIR=$ROOT/usr/lib/argus-node
CONFIG_DIR=$ROOT/etc/argus-node
DATA_DIR=$ROOT/var/lib/argus-node
UNIT=$ROOT/etc/systemd/system/argus-node.service
SYSCTL=$ROOT/etc/sysctl.d/60-argus-node.conf
MAIN=dist/src/node/main.js

[ -f "$SOURCE/$MAIN" ] || { echo "install.sh: $SOURCE/$MAIN is missing: build first (npm ci && npm run build)" >&2; exit 1; }
[ -d "$SOURCE/node_modules" ] || { echo "install.sh: $SOURCE/node_modules is missing: run npm ci first" >&2; exit 1; }

RELEASE=$(node -e '
  const i = JSON.parse(require("fs").readFileSync(process.argv[1] + "/src/build-info.json", "utf8"));
  process.stdout.write(i.version + "-" + String(i.git_sha).slice(0, 12));
' "$SOURCE/dist" 2>/dev/null || true)
[ -n "$RELEASE" ] || RELEASE=unknown-$(date +%Y%m%d%H%M%S)

# Each build gets its own program directory, so the executable of the previous build (.prev)
# keeps working for a rollback after the new one is in place.
DEST=$LIB_DIR/$RELEASE
echo "installing argus-node $RELEASE into ${ROOT:-/}"
mkdir -p "$DEST.tmp"
rm -rf "$DEST.tmp"/*
mkdir -p "$DEST.tmp/dist"
cp -a "$SOURCE/dist/src" "$DEST.tmp/dist/"
cp -a "$SOURCE/package.json" "$DEST.tmp/"
mkdir -p "$DEST.tmp/node_modules"
# Production dependencies only when npm can list them; otherwise everything.
if LIST=$(cd "$SOURCE" && npm ls --omit=dev --all --parseable 2>/dev/null) && [ -n "$LIST" ]; then
  echo "$LIST" | sed "s|^$SOURCE/||" | grep '^node_modules/' | sort | while read -r rel; do
    [ -e "$DEST.tmp/$rel" ] && continue
    mkdir -p "$DEST.tmp/$(dirname "$rel")"
    cp -a "$SOURCE/$rel" "$DEST.tmp/$rel"
  done
else
  cp -a "$SOURCE/node_modules/." "$DEST.tmp/node_modules/"
fi
rm -rf "$DEST"
mv "$DEST.tmp" "$DEST"

mkdir -p "$BIN_DIR"
LAUNCHER=$BIN_DIR/argus-node.new.tmp
cat > "$LAUNCHER" <<LAUNCH
#!/bin/sh
# argus-node $RELEASE
here=\$(dirname "\$(readlink -f "\$0")")
exec "\${ARGUS_NODE_RUNTIME:-node}" "\$here/../lib/argus-node/$RELEASE/$MAIN" "\$@"
LAUNCH
chmod 0755 "$LAUNCHER"
[ "$HOST" = 1 ] && chown root:root "$LAUNCHER" 2>/dev/null || true

if [ "$STAGE" = 1 ]; then
  mv "$LAUNCHER" "$BIN_DIR/argus-node.new"
  echo "staged $BIN_DIR/argus-node.new; next: argus-node.new --validate /etc/argus-node/argus-node.conf (docs/upgrade.md)"
  exit 0
fi
if [ -f "$BIN_DIR/argus-node" ] && ! cmp -s "$BIN_DIR/argus-node" "$LAUNCHER"; then
  cp -p "$BIN_DIR/argus-node" "$BIN_DIR/argus-node.prev"
  echo "kept the previous executable as $BIN_DIR/argus-node.prev"
fi
mv "$LAUNCHER" "$BIN_DIR/argus-node"

mkdir -p "$(dirname "$UNIT")"
cat > "$UNIT" <<'UNIT_EOF'
[Unit]
Description=Argus streaming node
Documentation=file:///usr/share/doc/argus-node/upgrade.md
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=argus-node
Group=argus-node
# A configuration the build does not accept must not replace a running service.
ExecStartPre=/usr/bin/argus-node --validate /etc/argus-node/argus-node.conf
ExecStart=/usr/bin/argus-node run /etc/argus-node/argus-node.conf
ExecReload=/bin/kill -HUP $MAINPID
KillSignal=SIGTERM
# The node gives open recordings up to 5 s to close; leave room for that.
TimeoutStopSec=15
Restart=on-failure
RestartSec=2
LimitNOFILE=65536
NoNewPrivileges=yes
ProtectSystem=full
ProtectHome=read-only
PrivateTmp=yes
ReadWritePaths=/etc/argus-node /var/lib/argus-node

[Install]
WantedBy=multi-user.target
UNIT_EOF
chmod 0644 "$UNIT"

mkdir -p "$(dirname "$SYSCTL")"
cat > "$SYSCTL" <<'SYSCTL_EOF'
# argus-node: socket buffers for RTSP/UDP ingest and many viewer connections.
# Removed by uninstall.sh; values applied stay in effect until reboot.
net.core.rmem_max = 8388608
net.core.wmem_max = 8388608
net.core.somaxconn = 4096
net.ipv4.tcp_fin_timeout = 15
SYSCTL_EOF
chmod 0644 "$SYSCTL"

mkdir -p "$CONFIG_DIR" "$DATA_DIR"
chmod 0750 "$CONFIG_DIR" "$DATA_DIR"
if [ ! -f "$CONFIG_DIR/argus-node.conf" ]; then
  cat > "$CONFIG_DIR/argus-node.conf" <<'CONF_EOF'
# argus-node configuration (grammar: docs/node.md). Check with: argus-node --validate <this file>
http 8081;
data_dir /var/lib/argus-node;
log_level info;

# No credential yet: the panel and API are open until the first-run wizard at /admin
# (or this block) sets an administrator password. /metrics is closed regardless.
auth {
}
CONF_EOF
  chmod 0600 "$CONFIG_DIR/argus-node.conf"
fi

if [ "$HOST" = 1 ]; then
  if ! id argus-node >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/argus-node --shell /usr/sbin/nologin argus-node
  fi
  chown -R argus-node:argus-node "$CONFIG_DIR" "$DATA_DIR"
  command -v sysctl >/dev/null 2>&1 && sysctl -q -p "$SYSCTL" || true
  if command -v systemctl >/dev/null 2>&1; then
    systemctl daemon-reload
    systemctl enable argus-node.service
    echo "enabled argus-node.service; start it with: systemctl start argus-node"
  fi
else
  echo "root prefix ${ROOT}: service manager, sysctl and the argus-node user were not touched"
fi
echo "installed: $BIN_DIR/argus-node"
