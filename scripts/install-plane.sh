#!/bin/sh
# Installs argus-plane: program files, executable, service unit, the environment file and the
# data directory (plane.toml, secret.key). Safe to run again for an upgrade-in-place; the
# procedure with a check first and a kept .prev copy is in docs/deployment.md ("Installing the plane").
#
#   scripts/install-plane.sh [--root DIR] [--source DIR] [--stage]
#
#   --root DIR    install under DIR instead of / (image builds, tests). Under a root other than /
#                 the service manager and the user accounts of the host are not touched.
#   --source DIR  built tree with dist/, package.json and node_modules/ (default: this script's
#                 repository; run `npm ci && npm run build` there first).
#   --stage       place the new executable beside the working one as argus-plane.new and touch
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
    *) echo "install-plane.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
SOURCE=$(CDPATH= cd -- "$SOURCE" && pwd -P)
ROOT=${ROOT%/}
HOST=0
[ -z "$ROOT" ] && HOST=1

BIN_DIR=$ROOT/usr/bin
LIB_DIR=$ROOT/usr/lib/argus-plane
CONFIG_DIR=$ROOT/etc/argus-plane
DATA_DIR=$ROOT/var/lib/argus-plane
UNIT=$ROOT/etc/systemd/system/argus-plane.service
MAIN=dist/src/plane/main.js
MIGRATIONS=src/plane/db/migrations

[ -f "$SOURCE/$MAIN" ] || { echo "install-plane.sh: $SOURCE/$MAIN is missing: build first (npm ci && npm run build)" >&2; exit 1; }
[ -d "$SOURCE/node_modules" ] || { echo "install-plane.sh: $SOURCE/node_modules is missing: run npm ci first" >&2; exit 1; }
[ -d "$SOURCE/dist/console" ] || echo "install-plane.sh: $SOURCE/dist/console is missing: the plane will serve no web console (npm run build builds it)" >&2

RELEASE=$(node -e '
  const i = JSON.parse(require("fs").readFileSync(process.argv[1] + "/src/build-info.json", "utf8"));
  process.stdout.write(i.version + "-" + String(i.git_sha).slice(0, 12));
' "$SOURCE/dist" 2>/dev/null || true)
[ -n "$RELEASE" ] || RELEASE=unknown-$(date +%Y%m%d%H%M%S)

# Each build gets its own program directory, so the executable of the previous build (.prev)
# keeps working for a rollback after the new one is in place.
DEST=$LIB_DIR/$RELEASE
echo "installing argus-plane $RELEASE into ${ROOT:-/}"
mkdir -p "$DEST.tmp"
rm -rf "$DEST.tmp"/*
mkdir -p "$DEST.tmp/dist" "$DEST.tmp/$(dirname "$MIGRATIONS")"
cp -a "$SOURCE/dist/src" "$DEST.tmp/dist/"
[ -d "$SOURCE/dist/console" ] && cp -a "$SOURCE/dist/console" "$DEST.tmp/dist/"
# The migrations are read from the source tree beside package.json (src/plane/db/migrate.ts).
cp -a "$SOURCE/$MIGRATIONS" "$DEST.tmp/$MIGRATIONS"
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
LAUNCHER=$BIN_DIR/argus-plane.new.tmp
cat > "$LAUNCHER" <<LAUNCH
#!/bin/sh
# argus-plane $RELEASE
here=\$(dirname "\$(readlink -f "\$0")")
exec "\${ARGUS_PLANE_RUNTIME:-node}" "\$here/../lib/argus-plane/$RELEASE/$MAIN" "\$@"
LAUNCH
chmod 0755 "$LAUNCHER"
[ "$HOST" = 1 ] && chown root:root "$LAUNCHER" 2>/dev/null || true

if [ "$STAGE" = 1 ]; then
  mv "$LAUNCHER" "$BIN_DIR/argus-plane.new"
  echo "staged $BIN_DIR/argus-plane.new; next: argus-plane.new validate --config /var/lib/argus-plane/plane.toml (docs/deployment.md)"
  exit 0
fi
if [ -f "$BIN_DIR/argus-plane" ] && ! cmp -s "$BIN_DIR/argus-plane" "$LAUNCHER"; then
  cp -p "$BIN_DIR/argus-plane" "$BIN_DIR/argus-plane.prev"
  echo "kept the previous executable as $BIN_DIR/argus-plane.prev"
fi
mv "$LAUNCHER" "$BIN_DIR/argus-plane"

mkdir -p "$(dirname "$UNIT")"
cat > "$UNIT" <<'UNIT_EOF'
[Unit]
Description=Argus control plane
After=network-online.target postgresql.service
Wants=network-online.target

[Service]
Type=simple
User=argus-plane
Group=argus-plane
# DATABASE_URL and ARGUS_BOOTSTRAP_* (optional; systemd reads it as root, so it stays root's, 0600).
EnvironmentFile=-/etc/argus-plane/argus-plane.env
# The data directory is the folder of plane.toml: secret.key, the embedded database, evidence, tls.
WorkingDirectory=/var/lib/argus-plane
# Settings the build does not accept must not replace a running service.
ExecStartPre=/usr/bin/argus-plane validate --config /var/lib/argus-plane/plane.toml
ExecStart=/usr/bin/argus-plane serve --config /var/lib/argus-plane/plane.toml
# SIGTERM: the process gives up the sweeper lease and ends its streams; clients resume elsewhere.
KillSignal=SIGTERM
TimeoutStopSec=30
Restart=on-failure
RestartSec=2
LimitNOFILE=65536
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
ReadWritePaths=/var/lib/argus-plane

[Install]
WantedBy=multi-user.target
UNIT_EOF
chmod 0644 "$UNIT"

mkdir -p "$CONFIG_DIR" "$DATA_DIR"
chmod 0750 "$CONFIG_DIR" "$DATA_DIR"
if [ ! -f "$CONFIG_DIR/argus-plane.env" ]; then
  cat > "$CONFIG_DIR/argus-plane.env" <<'ENV_EOF'
# argus-plane environment (README.md, "Environment"), read by the service unit.
# The PostgreSQL server; wins over [database] url in plane.toml. Unset: the embedded database
# under /var/lib/argus-plane/db (one process only).
#DATABASE_URL=postgres://argus:secret@127.0.0.1:5432/argus
# The first superadmin; unset: a password is generated once and kept in
# /var/lib/argus-plane/bootstrap-login.json (and printed in the journal).
#ARGUS_BOOTSTRAP_LOGIN=admin
#ARGUS_BOOTSTRAP_PASSWORD=
ENV_EOF
  chmod 0600 "$CONFIG_DIR/argus-plane.env"
fi
# The settings file is the plane's own default, written by the build being installed.
if [ ! -f "$DATA_DIR/plane.toml" ]; then
  node --input-type=module -e '
    const { pathToFileURL } = await import("node:url");
    const { DEFAULT_PLANE_TOML } = await import(pathToFileURL(process.argv[1]).href);
    process.stdout.write(DEFAULT_PLANE_TOML);
  ' "$DEST/dist/src/plane/config/config.js" > "$DATA_DIR/plane.toml.tmp"
  chmod 0600 "$DATA_DIR/plane.toml.tmp"
  mv "$DATA_DIR/plane.toml.tmp" "$DATA_DIR/plane.toml"
fi

if [ "$HOST" = 1 ]; then
  if ! id argus-plane >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/argus-plane --shell /usr/sbin/nologin argus-plane
  fi
  chown -R argus-plane:argus-plane "$DATA_DIR"
  if command -v systemctl >/dev/null 2>&1; then
    systemctl daemon-reload
    systemctl enable argus-plane.service
    echo "enabled argus-plane.service; start it with: systemctl start argus-plane"
  fi
else
  echo "root prefix ${ROOT}: service manager and the argus-plane user were not touched"
fi
echo "installed: $BIN_DIR/argus-plane"
