// Restores package-lock.json entries for optional platform bindings that the registry reachable here
// does not serve (oxc-parser's darwin, win32, android, ... builds, pulled in by knip): without them
// `npm install` writes a lock that `npm ci` refuses ("Missing: @oxc-parser/binding-... from lock
// file"). The entries carry os/cpu/libc, so npm never fetches them on another platform than theirs.
// Run after any `npm install` that touches the lock: `node scripts/lock-platform-bindings.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const pk = lock.packages;
const PLATFORM =
  /binding-(android|darwin|freebsd|linux|openharmony|win32)-(arm64|arm|x64|ia32|ppc64|riscv64|s390x)(?:-(gnu|musl|gnueabihf|musleabihf|eabi|msvc))?$/;

let added = 0;
for (const entry of Object.values(pk)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const m = PLATFORM.exec(name);
    const target = `node_modules/${name}`;
    if (!m || pk[target]) continue;
    const [, os, cpu, abi] = m;
    const libc = abi?.startsWith('musl') ? 'musl' : os === 'linux' ? 'glibc' : undefined;
    pk[target] = {
      version,
      cpu: [cpu],
      dev: !!entry.dev,
      ...(libc ? { libc: [libc] } : {}),
      optional: true,
      os: [os],
      ...(entry.engines ? { engines: entry.engines } : {}),
    };
    added++;
  }
}
if (added) {
  lock.packages = Object.fromEntries(
    Object.entries(pk).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
  );
  writeFileSync(LOCK, JSON.stringify(lock, null, 2) + '\n');
}
console.log(`lock: ${added} platform binding entr${added === 1 ? 'y' : 'ies'} restored`);
