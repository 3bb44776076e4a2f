import { afterAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { call, isoDay, runCli, signedLicense, startNode, tempDir, type RunningNode } from './helpers/node-process.js';

async function configFile(text: string, files: Record<string, string> = {}): Promise<string> {
  const dir = await tempDir();
  const path = join(dir, 'argus-node.conf');
  await writeFile(path, text);
  for (const [n, c] of Object.entries(files)) await writeFile(join(dir, n), c);
  return path;
}

const started: RunningNode[] = [];
afterAll(async () => {
  await Promise.all(started.map((n) => n.stop()));
});

describe('argus-node --validate', () => {
  it('success prints exactly "FILE: OK (N streams)" and exits 0', async () => {
    const f = await configFile(
      'http 8081;\nstream a { input testsrc://a; }\nstream b { input testsrc://b; on_demand; }\n',
    );
    const r = await runCli(['--validate', f]);
    expect(r).toEqual({ code: 0, stdout: `${f}: OK (2 streams)\n`, stderr: '' });
  });

  it('a parse error prints the first one with its line number and exits non-zero', async () => {
    const f = await configFile('http 8081;\nauth {\n  admin_pasword x;\n}\nbogus;\n');
    const r = await runCli(['--validate', f]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${f}: line 3: unknown directive "admin_pasword" in auth\n`);
  });

  it('value errors are all printed at once, separated by "; ", and never echo a token', async () => {
    const f = await configFile(
      'auth {\n  api_read_token "";\n  api_write_token short-tok;\n}\nauth_backend { hs256 s; }\n',
    );
    const r = await runCli(['--validate', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `${f}: line 2: api_read_token must not be empty (omit it to leave the tier unconfigured); line 3: api_write_token must be at least 16 characters; line 5: auth_backend hs256 secret must be at least 16 characters\n`,
    );
    expect(r.stderr).not.toContain('short-tok');
  });

  it('read equal to write is a value error', async () => {
    const f = await configFile(
      'auth {\n  api_read_token same-token-0123456;\n  api_write_token same-token-0123456;\n}\n',
    );
    const r = await runCli(['--validate', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `${f}: line 1: api_read_token and api_write_token must differ (an equal pair would grant write to the read token)\n`,
    );
  });

  it('a missing file exits non-zero', async () => {
    const r = await runCli(['--validate', '/nonexistent/argus.conf']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('/nonexistent/argus.conf: cannot read: ENOENT\n');
  });

  it('usage errors exit 2', async () => {
    expect((await runCli([])).code).toBe(2);
    expect((await runCli(['--validate'])).code).toBe(2);
  });
});

describe('argus-node --license-status', () => {
  it.each([
    [
      'valid',
      { expires: isoDay(200), updates_until: 'unlimited' },
      0,
      ['State: ok', `Expires: ${isoDay(200)}`, 'Updates until: unlimited'],
    ],
    [
      'grace',
      { expires: isoDay(-3), updates_until: isoDay(365) },
      0,
      ['State: grace', `Expires: ${isoDay(-3)}`, `Updates until: ${isoDay(365)}`, `Grace until: ${isoDay(11)}`],
    ],
    [
      'unlicensed',
      { expires: isoDay(-30), updates_until: 'unlimited' },
      1,
      ['State: unlicensed', `Expires: ${isoDay(-30)}`, 'Updates until: unlimited'],
    ],
    [
      'build not covered',
      { expires: isoDay(200), updates_until: '2020-01-01' },
      1,
      [
        'State: unlicensed',
        'Updates until: 2020-01-01',
        'Media: refused (the licence does not cover builds after 2020-01-01)',
      ],
    ],
  ])('%s', async (_n, dates, code, lines) => {
    const f = await configFile('', {
      'license.json': signedLicense({ licensee: 'ACME Security', nodes: 5, ...dates }),
    });
    const r = await runCli(['--license-status', f]);
    expect(r.code).toBe(code);
    const out = r.stdout.split('\n');
    for (const l of lines) expect(out).toContain(l);
    expect(out).toContain('Licensee: ACME Security');
    expect(out.filter((l) => l.startsWith('Expires: '))).toHaveLength(1);
    expect(out.filter((l) => l.startsWith('Updates until: '))).toHaveLength(1);
  });

  it('no licence file', async () => {
    const f = await configFile('');
    const r = await runCli(['--license-status', f]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'State: none (no licence signal; the node serves)',
        'Expires: none',
        'Updates until: none',
      ]),
    );
  });
});

describe('argus-node run: start-up output and licence enforcement', () => {
  function msgs(n: RunningNode): string[] {
    return n.logs.map((l) => l.msg);
  }

  it('start line, stream count, listeners, licence line, and exactly one gate line and one metrics line', async () => {
    const n = await startNode('auth { admin_password pw-start-up; }\nstream a { input rtsp://127.0.0.1:9/none; }\n', {
      files: {
        'license.json': signedLicense({ licensee: 'ACME', expires: isoDay(100), updates_until: 'unlimited', nodes: 1 }),
      },
    });
    started.push(n);
    const m = msgs(n);
    expect(m.filter((x) => /^argus-node \S+ starting$/.test(x))).toHaveLength(1);
    expect(m).toContain('1 streams configured');
    expect(m).toContain(`listening on http://127.0.0.1:${n.port}`);
    expect(m).toContain('license OK (enforced)');
    expect(m.filter((x) => x.startsWith('management gate'))).toEqual([
      'management gate: closed by administrator password; sessions end at restart (no session_secret)',
    ]);
    expect(m.filter((x) => x.includes('/metrics'))).toHaveLength(1);
    const sys = await call(n.url, 'GET', '/api/v1/system', {
      token: (await call(n.url, 'POST', '/api/v1/auth/login', { body: { password: 'pw-start-up' } })).json.token,
    });
    expect(sys.json.license).toEqual({ state: 'ok' });
    expect((await call(n.url, 'GET', '/a/index.m3u8')).status).toBe(503);
  });

  it('a build newer than updates_until: media answers 403 with the message', async () => {
    const n = await startNode('stream a { input rtsp://127.0.0.1:9/none; }\n', {
      files: {
        'license.json': signedLicense({
          licensee: 'ACME',
          expires: isoDay(100),
          updates_until: '2020-01-01',
          nodes: 1,
        }),
      },
    });
    started.push(n);
    expect(msgs(n)).toContain(
      'license UNLICENSED: the licence does not cover builds after 2020-01-01; media requests answer 403',
    );
    const r = await call(n.url, 'GET', '/a/index.m3u8');
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      error: 'forbidden',
      reason: 'license_does_not_cover_build',
      message: 'the licence does not cover builds after 2020-01-01',
    });
    expect((await call(n.url, 'GET', '/api/v1/system')).json.license).toEqual({ state: 'unlicensed' });
    // Management and the test page stay reachable so the operator can fix it.
    expect((await call(n.url, 'GET', '/a/embed.html')).status).toBe(200);
  });

  it('grace serves media; past grace media answers 403', async () => {
    const [grace, over] = await Promise.all([
      startNode('stream a { input rtsp://127.0.0.1:9/none; }\n', {
        files: {
          'license.json': signedLicense({ licensee: 'A', expires: isoDay(-2), updates_until: 'unlimited', nodes: 1 }),
        },
      }),
      startNode('stream a { input rtsp://127.0.0.1:9/none; }\n', {
        files: {
          'license.json': signedLicense({ licensee: 'A', expires: isoDay(-20), updates_until: 'unlimited', nodes: 1 }),
        },
      }),
    ]);
    started.push(grace, over);
    expect((await call(grace.url, 'GET', '/api/v1/system')).json.license).toEqual({ state: 'grace' });
    expect((await call(grace.url, 'GET', '/a/index.m3u8')).status).toBe(503);
    const r = await call(over.url, 'GET', '/a/index.m3u8');
    expect(r.status).toBe(403);
    expect(r.json.reason).toBe('license_expired');
  });

  it('an invalid configuration does not start', async () => {
    const f = await configFile('http 8081;\nwhat;\n');
    const r = await runCli(['run', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${f}: line 2: unknown directive "what"\n`);
  });
});
