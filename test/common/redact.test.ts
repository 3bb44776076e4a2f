import { describe, expect, it } from 'vitest';
import { maskUrlCredentials, maskUrlPassword, PASSWORD_MASK } from '../../src/common/redact.js';
import { SCRUBBED, scrubSecrets } from '../../src/common/log-scrub.js';

// Issue 25, item 5: camera credentials in query strings are masked wherever `user:pass@` is, by
// one rule for the API/audit (***) and the logs ([redacted]) of plane and node.
const CANARY = 'QueryCanary7c1';
const NAMES = ['password', 'pwd', 'pass', 'passwd', 'auth', 'token', 'PASSWORD', 'cam_pass', 'api_token'];

describe('query-string credentials', () => {
  it.each(NAMES)('maskUrlPassword masks ?%s= and keeps the rest of the URL as written', (name) => {
    const url = `rtsp://10.0.0.5:554/live?user=admin&${name}=${CANARY}&channel=1`;
    expect(maskUrlPassword(url)).toBe(`rtsp://10.0.0.5:554/live?user=admin&${name}=${PASSWORD_MASK}&channel=1`);
    expect(maskUrlPassword(`http://cam/snap.cgi?${name}=${CANARY}`)).toBe(
      `http://cam/snap.cgi?${name}=${PASSWORD_MASK}`,
    );
  });

  it('masks both forms together, and is idempotent', () => {
    const masked = maskUrlPassword(`rtsp://admin:${CANARY}@10.0.0.5/x?pwd=${CANARY}`);
    expect(masked).toBe(`rtsp://admin:${PASSWORD_MASK}@10.0.0.5/x?pwd=${PASSWORD_MASK}`);
    expect(maskUrlPassword(masked)).toBe(masked);
  });

  it('leaves parameters that only look like secret names', () => {
    for (const url of [
      'rtsp://h/x?passes=2&token_count=3',
      'http://h/a?author=me&pass_through=1',
      'rtsp://h/x?channel=1&subtype=0',
    ]) {
      expect(maskUrlPassword(url)).toBe(url);
    }
  });

  it('ffmpeg messages (free text) are masked the same way', () => {
    const line = `[http @ 0x55] HTTP error 401 Unauthorized for http://10.0.0.5/video.cgi?user=a&pass=${CANARY}: Server returned 401`;
    expect(maskUrlCredentials(line)).toBe(
      '[http @ 0x55] HTTP error 401 Unauthorized for http://10.0.0.5/video.cgi?user=a&pass=***: Server returned 401',
    );
  });

  it.each(NAMES)('the log scrub removes %s= (log rings and stdout of plane and node)', (name) => {
    const out = scrubSecrets(`ingest failed for rtsp://10.0.0.5/live?user=admin&${name}=${CANARY}: timed out`);
    expect(out).not.toContain(CANARY);
    expect(out).toContain(`${name}=${SCRUBBED}`);
    expect(scrubSecrets(out)).toBe(out);
  });
});
