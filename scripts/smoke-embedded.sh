#!/usr/bin/env bash
# Starts the built plane on the embedded database (PGlite) in a temporary data dir, logs in with
# the bootstrap credentials, reads /health and /api/v1/version, and stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$(mktemp -d)"
# A port the kernel says is free: a random one in 20000-40000 can be the local end of a live
# loopback connection (the ephemeral range starts at 32768), and the plane then cannot listen.
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
cat > "$dir/plane.toml" <<TOML
[network]
public_url = "http://127.0.0.1:${port}"
listen = "127.0.0.1:${port}"
TOML
env -u DATABASE_URL ARGUS_BOOTSTRAP_LOGIN=smoke ARGUS_BOOTSTRAP_PASSWORD=smoke-password-1 \
  node dist/src/plane/main.js serve --config "$dir/plane.toml" >"$dir/out.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 1 120); do
  grep -q "database ready" "$dir/out.log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
grep -q "database ready" "$dir/out.log" || { echo "smoke: the plane did not get ready:"; cat "$dir/out.log"; exit 1; }
base="http://127.0.0.1:${port}"
curl -fsS "$base/health" | grep -q '"database":"up"'
token=$(curl -fsS -H 'content-type: application/json' -d '{"login":"smoke","password":"smoke-password-1"}' "$base/api/v1/auth/login" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).token))')
curl -fsS -H "authorization: Bearer $token" "$base/api/v1/version" | grep -q '"git_sha"'
test -d "$dir/db"
echo "smoke: embedded database OK"
