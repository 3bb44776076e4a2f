import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/common/api-error.js';
import { Authorizer, type Access, type AccessRequest, type AuthorizerDeps } from '../../../src/node/auth/authorize.js';
import type { RuntimeConfig } from '../../../src/node/config/config.service.js';
import { errors } from '../../../src/node/errors.js';
import type { Principal } from '../../../src/node/gate/levels.js';
import type { MediaUse } from '../../../src/node/media/viewer/viewer.service.js';

const READ = 'read-token-0123456789';

/** An authorizer over fakes: one read token, one configured stream `cam1`, media protected unless `open`. */
function world(o: { refusal?: ApiError; open?: boolean } = {}) {
  const decisions: string[] = [];
  const admitted: MediaUse[] = [];
  const identified: Array<{ bearer: string | undefined; allowStatic: boolean }> = [];
  const deps: AuthorizerDeps = {
    gate: {
      identify: async (bearer, _address, allowStatic = true): Promise<Principal | null> => {
        identified.push({ bearer, allowStatic });
        if (bearer === READ && allowStatic) return { kind: 'read_token' };
        return bearer === 'session' ? { kind: 'session', expiresAt: 1 } : null;
      },
    },
    license: { mediaRefusal: () => o.refusal ?? null },
    config: {
      hasStream: (name) => name === 'cam1',
      config: { auth_backend: o.open ? undefined : { kind: 'hs256', secret: 's' } } as RuntimeConfig,
    },
    viewers: {
      admit: async (backend, use) => {
        admitted.push(use);
        if (!backend) return null;
        if (use.token === 'viewer' || use.ticket === 'ticket') return { stream: use.stream, sub: 'u', exp: 1 };
        throw errors.mediaForbidden('viewer_token_invalid', 'a valid viewer token for this stream is required');
      },
    },
    metrics: {
      gateDecision: (r) => {
        decisions.push(r);
      },
    },
  };
  return { access: new Authorizer(deps), decisions, admitted, identified };
}

const manage = (over: Partial<Extract<AccessRequest, { surface: 'management' }>>): AccessRequest => ({
  surface: 'management',
  method: 'GET',
  route: undefined,
  url: '/api/v1/streams',
  address: '192.0.2.1',
  authorization: undefined,
  queryToken: undefined,
  ...over,
});
const media = (over: Partial<Extract<AccessRequest, { surface: 'media' }>>): AccessRequest => ({
  surface: 'media',
  action: 'live',
  stream: 'cam1',
  address: '192.0.2.1',
  token: undefined,
  ticket: undefined,
  ...over,
});

function outcome(r: Access | ApiError): string {
  if (r instanceof ApiError) {
    const reason = (r.body() as { reason?: string }).reason;
    return `${r.status} ${reason ?? r.code}`;
  }
  return r.kind === 'management' ? `management ${r.principal.kind}` : r.kind;
}

describe('one authorizer: the management surface', () => {
  it('paths outside the gate are public and ask for no credential', async () => {
    const w = world();
    for (const url of ['/admin', '/api/v1/auth/login', '/cam1/embed.html'])
      expect(outcome(await w.access.authorize(manage({ url })))).toBe('public');
    expect(w.identified).toEqual([]);
    expect(w.decisions).toEqual([]);
  });

  it('takes the rule on the matched route, whatever the spelling of the URL', async () => {
    const w = world();
    const r = await w.access.authorize(
      manage({ url: '/api/v1/%63onfig', route: '/api/v1/config', authorization: `Bearer ${READ}` }),
    );
    expect(outcome(r)).toBe('403 read_token_cannot_read_config');
    expect(w.decisions).toEqual(['403']);
  });

  it('a bearer header is identified; no credential is 401', async () => {
    const w = world();
    expect(outcome(await w.access.authorize(manage({ authorization: `Bearer ${READ}` })))).toBe(
      'management read_token',
    );
    expect(outcome(await w.access.authorize(manage({})))).toBe('401 unauthorized');
    expect(w.decisions).toEqual(['allowed', '401']);
  });

  it('`?token=` counts on GET of the events feed only, and never as a static token', async () => {
    const w = world();
    expect(
      outcome(
        await w.access.authorize(
          manage({ url: '/api/v1/events?token=session', route: '/api/v1/events', queryToken: 'session' }),
        ),
      ),
    ).toBe('management session');
    expect(
      outcome(await w.access.authorize(manage({ url: '/api/v1/events', route: '/api/v1/events', queryToken: READ }))),
    ).toBe('401 unauthorized');
    expect(
      outcome(
        await w.access.authorize(manage({ url: '/api/v1/streams', route: '/api/v1/streams', queryToken: 'session' })),
      ),
    ).toBe('401 unauthorized');
    expect(w.identified).toEqual([
      { bearer: 'session', allowStatic: false },
      { bearer: READ, allowStatic: false },
      { bearer: undefined, allowStatic: true },
    ]);
  });
});

describe('one authorizer: the media surface', () => {
  it('refuses in order: not a stream path, licence, unknown stream, viewer', async () => {
    const licence = errors.mediaForbidden('license_expired', 'expired');
    expect(outcome(await world({ refusal: licence }).access.authorize(media({ stream: '-x', token: 'viewer' })))).toBe(
      '404 not_found',
    );
    expect(
      outcome(await world({ refusal: licence }).access.authorize(media({ stream: 'nope', token: 'viewer' }))),
    ).toBe('403 license_expired');
    expect(outcome(await world().access.authorize(media({ stream: 'nope', token: 'viewer' })))).toBe(
      '404 stream_not_found',
    );
    expect(outcome(await world().access.authorize(media({ stream: 'vod/a/b', token: 'viewer' })))).toBe('viewer');
    expect(outcome(await world().access.authorize(media({ token: 'guess' })))).toBe('403 viewer_token_invalid');
  });

  it('a token in the URL wins over a ticket riding along; a ticket alone is kept for the playlist', async () => {
    const w = world();
    const withToken = await w.access.authorize(media({ token: 'viewer', ticket: 'ticket' }));
    expect(withToken).toMatchObject({ kind: 'viewer', ticket: undefined, claims: { stream: 'cam1' } });
    const withTicket = await w.access.authorize(media({ ticket: 'ticket', action: 'playback' }));
    expect(withTicket).toMatchObject({ kind: 'viewer', ticket: 'ticket' });
    expect(w.admitted.map((u) => [u.kind, u.token, u.ticket])).toEqual([
      ['live', 'viewer', undefined],
      ['playback', undefined, 'ticket'],
    ]);
  });

  it('without an auth_backend media is open: admitted with no claims', async () => {
    expect(await world({ open: true }).access.authorize(media({}))).toEqual({
      kind: 'viewer',
      claims: null,
      ticket: undefined,
    });
  });
});
