import { describe, expect, it } from 'vitest';
import { ConfigParseError } from '../../../src/node/config/grammar.js';
import { ConfigValueError, parseConfig } from '../../../src/node/config/validate.js';
import { ConfigText, directive } from '../../../src/node/config/writer.js';

const DIR = '/etc/argus-node';

function parseError(text: string): string {
  try {
    parseConfig(text, DIR);
  } catch (err) {
    if (err instanceof ConfigParseError) return err.message;
    throw err;
  }
  throw new Error('no parse error');
}

function valueErrors(text: string): string {
  try {
    parseConfig(text, DIR);
  } catch (err) {
    if (err instanceof ConfigValueError) return err.message;
    throw err;
  }
  throw new Error('no value error');
}

describe('configuration grammar: parse errors (the first one, with its line)', () => {
  it.each([
    ['unknown top-level directive', 'http 8081;\n\nlisten 80;\n', 'line 3: unknown directive "listen"'],
    [
      'unknown directive inside auth',
      'auth {\n  admin_password x;\n  api_token abcdefabcdefabcdef;\n}\n',
      'line 3: unknown directive "api_token" in auth',
    ],
    [
      'unknown directive inside a stream',
      'stream a {\n  source rtsp://x;\n}\n',
      'line 2: unknown directive "source" in stream',
    ],
    [
      'missing semicolon before a closing brace',
      'auth {\n  admin_password x\n}\n',
      'line 2: directive "admin_password" is not terminated by ";"',
    ],
    ['missing semicolon at end of file', 'log_level info', 'line 1: directive "log_level" is not terminated by ";"'],
    ['unclosed block', 'http 1;\nauth {\n  admin_password x;\n', 'line 2: block "auth" is not closed by "}"'],
    ['stray closing brace', 'http 1;\n}\n', 'line 2: unexpected "}"'],
    ['stray semicolon', ';\n', 'line 1: unexpected ";"'],
    [
      'unterminated quoted string',
      'http 1;\nauth {\n  admin_password "abc;\n}\n',
      'line 3: unterminated quoted string',
    ],
    ['block where a directive belongs', 'http 8081 {\n}\n', 'line 1: "http" does not take a block'],
    ['directive where a block belongs', 'auth;\n', 'line 1: "auth" must be a block: auth { ... }'],
    ['too many arguments', 'log_level info debug;\n', 'line 1: "log_level" takes 1 argument'],
    ['too few arguments', 'storage a;\n', 'line 1: "storage" takes 2 to 4 arguments'],
    ['trusted_proxies without argument', 'trusted_proxies;\n', 'line 1: "trusted_proxies" takes at least 1 argument'],
    [
      'on_demand with an argument',
      'stream a {\n input testsrc://x;\n on_demand yes;\n}\n',
      'line 3: "on_demand" takes 0 arguments',
    ],
  ])('%s', (_name, text, expected) => {
    expect(parseError(text)).toBe(expected);
  });

  it('reports the first error only, even when a later one is of another kind', () => {
    expect(parseError('foo 1;\nbar "unterminated\n')).toBe('line 1: unknown directive "foo"');
  });

  it('a parse error wins over value errors elsewhere in the file', () => {
    expect(parseError('auth { api_read_token short; }\nnope;\n')).toBe('line 2: unknown directive "nope"');
  });
});

describe('configuration grammar: value errors (all at once, "; "-separated)', () => {
  it.each([
    [
      'empty read token',
      'auth {\n api_read_token "";\n}\n',
      'line 2: api_read_token must not be empty (omit it to leave the tier unconfigured)',
    ],
    [
      'bare write token',
      'auth {\n api_write_token;\n}\n',
      'line 2: api_write_token must not be empty (omit it to leave the tier unconfigured)',
    ],
    [
      'short read token',
      'auth {\n api_read_token abcdefghijklmno;\n}\n',
      'line 2: api_read_token must be at least 16 characters',
    ],
    [
      'equal tokens',
      'auth {\n api_read_token abcdefghijklmnop;\n api_write_token abcdefghijklmnop;\n}\n',
      'line 1: api_read_token and api_write_token must differ (an equal pair would grant write to the read token)',
    ],
    [
      'token with a space',
      'auth {\n api_read_token "abcdefgh ijklmnopq";\n}\n',
      'line 2: api_read_token must consist of visible ASCII characters (it travels in an Authorization header)',
    ],
    [
      'empty password',
      'auth {\n admin_password "";\n}\n',
      'line 2: admin_password must not be empty (omit it to leave it unset)',
    ],
    [
      'empty session secret',
      'auth {\n session_secret;\n}\n',
      'line 2: session_secret must not be empty (omit it to leave it unset)',
    ],
    ['bad admin_ip_bind', 'auth {\n admin_ip_bind yes;\n}\n', 'line 2: admin_ip_bind takes "on" or "off"'],
    [
      'duplicate auth directive',
      'auth {\n admin_password a;\n admin_password b;\n}\n',
      'line 3: duplicate "admin_password" in auth (first on line 2)',
    ],
    ['duplicate auth block', 'auth { }\nauth { }\n', 'line 2: duplicate "auth" (first on line 1)'],
    ['bad port', 'http 70000;\n', 'line 1: http expects a port or ip:port, got "70000"'],
    ['bad listen host', 'http localhost:80;\n', 'line 1: http expects a port or ip:port, got "localhost:80"'],
    ['duplicate listener', 'http 127.0.0.1:80;\nhttp 127.0.0.1:80;\n', 'line 2: duplicate http listener 127.0.0.1:80'],
    [
      'bad cidr',
      'trusted_proxies 10.0.0.0/8 10.0.0.0/33 proxy;\n',
      'line 1: trusted_proxies: "10.0.0.0/33" is not an address or CIDR; line 1: trusted_proxies: "proxy" is not an address or CIDR',
    ],
    [
      'bad log level',
      'log_level loud;\n',
      'line 1: log_level must be one of trace, debug, info, warn, error, fatal, silent',
    ],
    ['bad cluster id', 'cluster_id "a b";\n', 'line 1: cluster_id must be 1 to 64 of A-Z a-z 0-9 . _ -'],
    [
      'two backends',
      'auth_backend {\n hs256 abcdefghijklmnopq;\n jwks https://x/jwks;\n}\n',
      'line 1: auth_backend takes exactly one of "hs256 <secret>;" or "jwks <url>;"',
    ],
    [
      'short hs256 secret',
      'auth_backend {\n hs256 short;\n}\n',
      'line 2: auth_backend hs256 secret must be at least 16 characters',
    ],
    [
      'jwks not a URL',
      'auth_backend {\n jwks /etc/keys;\n}\n',
      'line 2: auth_backend jwks expects an http:// or https:// URL',
    ],
    ['session_keys without secret', 'session_keys { }\n', 'line 1: session_keys needs "secret <value>;"'],
    [
      'storage bad option',
      'storage a /srv/a size 10;\n',
      'line 1: storage: unknown option "size" (expected max_bytes)',
    ],
    ['storage bad size', 'storage a /srv/a max_bytes -1;\n', 'line 1: storage max_bytes must be a positive integer'],
    ['duplicate storage', 'storage a /srv/a;\nstorage a /srv/b;\n', 'line 2: duplicate storage "a"'],
    ['stream without input', 'stream a {\n on_demand;\n}\n', 'line 1: stream a needs "input <url>;"'],
    [
      'stream bad input scheme',
      'stream a {\n input ftp://x;\n}\n',
      'line 2: stream a: input must be an rtsp://, rtmp://, http(s)://, file:// or testsrc:// URL',
    ],
    [
      'stream unknown storage and bad retention',
      'stream a {\n input testsrc://x;\n dvr main forever;\n}\n',
      'line 3: stream a: dvr names unknown storage "main"; line 3: stream a: dvr retention must look like 90s, 30m, 12h or 7d',
    ],
    [
      'duplicate stream',
      'stream a { input testsrc://x; }\nstream a { input testsrc://y; }\n',
      'line 2: duplicate stream "a"',
    ],
    [
      'bad stream name',
      'stream "a b" { input testsrc://x; }\n',
      'line 1: stream name must start with a letter or digit and use only A-Z a-z 0-9 _ . - (up to 128)',
    ],
  ])('%s', (_name, text, expected) => {
    expect(valueErrors(text)).toBe(expected);
  });

  it('prints every value error of the file at once', () => {
    const msg = valueErrors('auth {\n api_read_token short;\n api_write_token "";\n}\nlog_level loud;\n');
    expect(msg.split('; ')).toEqual([
      'line 2: api_read_token must be at least 16 characters',
      'line 3: api_write_token must not be empty (omit it to leave the tier unconfigured)',
      'line 5: log_level must be one of trace, debug, info, warn, error, fatal, silent',
    ]);
  });

  it('never echoes a token value', () => {
    const secret = 'SECRET-short';
    const msg = valueErrors(`auth {\n api_read_token ${secret};\n api_write_token "${secret} x";\n}\n`);
    expect(msg).not.toContain('SECRET');
  });
});

describe('configuration grammar: accepted values', () => {
  it('reads every directive with its defaults', () => {
    const { config } = parseConfig(
      `# comment
http 8081;
http [::1]:9000;
auth {
    admin_password "two words";   # trailing comment
    admin_ip_bind;
    api_read_token r234567890123456;
}
auth_backend { hs256 "0123456789abcdef0"; }
session_keys { secret s234567890123456; }
trusted_proxies 10.0.0.0/8 ::1;
storage main /srv/argus max_bytes 1000;
storage rel archive;
cluster_id eu-1;
log_level warn;
stream cam1 {
    input "rtsp://u:p w@10.0.0.1/s";
    dvr main 7d;
    on_demand;
}
`,
      DIR,
    );
    expect(config).toEqual({
      listen: [
        { host: '0.0.0.0', port: 8081 },
        { host: '::1', port: 9000 },
      ],
      auth: { admin_password: 'two words', admin_ip_bind: true, api_read_token: 'r234567890123456' },
      auth_backend: { kind: 'hs256', secret: '0123456789abcdef0' },
      session_keys: { secret: 's234567890123456' },
      trusted_proxies: ['10.0.0.0/8', '::1'],
      storages: [
        { name: 'main', path: '/srv/argus', max_bytes: 1000 },
        { name: 'rel', path: '/etc/argus-node/archive' },
      ],
      cluster_id: 'eu-1',
      data_dir: '/var/lib/argus-node',
      log_level: 'warn',
      streams: [
        { name: 'cam1', input: 'rtsp://u:p w@10.0.0.1/s', dvr: { storage: 'main', retention: '7d' }, on_demand: true },
      ],
    });
  });

  it('defaults: port 8081 on all interfaces, data dir, info, gate off', () => {
    const { config } = parseConfig('', DIR);
    expect(config.listen).toEqual([{ host: '0.0.0.0', port: 8081 }]);
    expect(config.data_dir).toBe('/var/lib/argus-node');
    expect(config.log_level).toBe('info');
    expect(config.auth).toEqual({ admin_ip_bind: false });
  });

  it('admin_ip_bind off and on', () => {
    expect(parseConfig('auth { admin_ip_bind off; }', DIR).config.auth.admin_ip_bind).toBe(false);
    expect(parseConfig('auth { admin_ip_bind on; }', DIR).config.auth.admin_ip_bind).toBe(true);
  });

  it('quoted values keep escaped quotes and backslashes', () => {
    const { config } = parseConfig('auth { admin_password "a\\"b\\\\c d"; }', DIR);
    expect(config.auth.admin_password).toBe('a"b\\c d');
  });
});

describe('configuration writer: keeps comments and line order', () => {
  const original = `# Argus node
http 8081;   # public port

# the gate
auth {
    admin_password old;   # set by hand
    api_read_token r234567890123456;
}

stream cam1 {
    input testsrc://a;   # demo
}
# end
`;

  it('replaces a block in place and leaves every other byte alone', () => {
    const t = new ConfigText(original);
    t.setBlock('auth', [], [directive('admin_password', ['new pass'])]);
    expect(t.text).toBe(
      original.replace(
        'auth {\n    admin_password old;   # set by hand\n    api_read_token r234567890123456;\n}',
        'auth {\n    admin_password "new pass";\n}',
      ),
    );
  });

  it('sets, replaces and removes a single directive', () => {
    const t = new ConfigText(original);
    t.setDirective('log_level', ['debug']);
    expect(t.text).toBe(`${original}log_level debug;\n`);
    t.setDirective('log_level', ['warn']);
    expect(t.text).toBe(`${original}log_level warn;\n`);
    t.setDirective('log_level', null);
    expect(t.text).toBe(original);
  });

  it('appends a stream after the last stream and removes it without a blank gap', () => {
    const t = new ConfigText(original);
    t.setBlock('stream', ['cam2'], [directive('input', ['rtsp://u:p@h/x'])]);
    expect(t.text).toContain(
      '    input testsrc://a;   # demo\n}\nstream cam2 {\n    input rtsp://u:p@h/x;\n}\n# end\n',
    );
    t.setBlock('stream', ['cam2'], null);
    expect(t.text).toBe(original);
  });

  it('what it writes parses back to the same values', () => {
    const t = new ConfigText(original);
    const tricky = 'p "q" \\ r;{}#';
    t.setBlock('auth', [], [directive('admin_password', [tricky])]);
    expect(parseConfig(t.text, DIR).config.auth.admin_password).toBe(tricky);
  });

  it('refuses a value with a line break', () => {
    expect(() => directive('admin_password', ['a\nlog_level debug'])).toThrow('line breaks');
  });
});
