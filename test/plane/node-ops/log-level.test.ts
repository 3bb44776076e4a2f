import { describe, expect, it } from 'vitest';
import { logLevelOf } from '../../../src/plane/node-ops/log-level.js';

describe('logLevelOf: the top-level log_level of a node configuration', () => {
  it.each([
    ['no directive: the node default', 'http 127.0.0.1:1;\nstream a { input "testsrc://x"; }\n', 'info'],
    ['a plain directive', 'http 1;\nlog_level debug;\n', 'debug'],
    ['quoted', 'log_level "warn";', 'warn'],
    ['commented out', '# log_level trace;\nlog_level error; # log_level fatal;\n', 'error'],
    ['inside a block it is not the top level', 'stream a { log_level trace; input x; }\n', 'info'],
    ['a quoted value holding the words', 'stream a { input "x; log_level trace;"; }\nlog_level warn;', 'warn'],
    ['after nested blocks', 'auth { api_write_token "a}b"; }\nauth_backend { hs256 s; }\nlog_level silent;', 'silent'],
    ['the last one wins', 'log_level debug;\nlog_level error;', 'error'],
    ['wrong arity is ignored', 'log_level;\nlog_level a b;', 'info'],
  ])('%s', (_name, text, level) => {
    expect(logLevelOf(text)).toBe(level);
  });
});
