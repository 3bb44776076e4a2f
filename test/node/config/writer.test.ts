import { describe, expect, it } from 'vitest';
import { ConfigText } from '../../../src/node/config/writer.js';

// ConfigText.setInBlock: how a rollback carries the write token in use (issue 25, item 6).
describe('ConfigText.setInBlock', () => {
  it("replaces the directive in place, keeping the block's other lines and comments", () => {
    const t = new ConfigText(
      'http 8081;\nauth {\n    # ours\n    api_write_token old-token-0123456789;\n    admin_password pw;\n}\n',
    );
    t.setInBlock('auth', 'api_write_token', ['new-token-0123456789']);
    expect(t.text).toBe(
      'http 8081;\nauth {\n    # ours\n    api_write_token new-token-0123456789;\n    admin_password pw;\n}\n',
    );
  });

  it('adds it above a closing brace on its own line, or before one on the same line', () => {
    const multi = new ConfigText('auth {\n    admin_password pw;\n}\nlog_level info;\n');
    multi.setInBlock('auth', 'api_write_token', ['new-token-0123456789']);
    expect(multi.text).toBe(
      'auth {\n    admin_password pw;\n    api_write_token new-token-0123456789;\n}\nlog_level info;\n',
    );
    const one = new ConfigText('auth { admin_password pw; }\n');
    one.setInBlock('auth', 'api_write_token', ['new-token-0123456789']);
    expect(one.text).toBe('auth { admin_password pw; api_write_token new-token-0123456789; }\n');
  });

  it('adds the block when there is none', () => {
    const t = new ConfigText('log_level info;\n');
    t.setInBlock('auth', 'api_write_token', ['new-token-0123456789']);
    expect(t.text).toBe('log_level info;\nauth {\n    api_write_token new-token-0123456789;\n}\n');
  });
});
