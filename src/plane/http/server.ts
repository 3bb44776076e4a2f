import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import swagger from '@fastify/swagger';
import type { Logger } from 'pino';
import type { DbHealth } from '../db/health.js';
import { describeError, describeErrors } from '../errors.js';
import { documentErrors, everyOperation, trackErrorLists } from './route-errors.js';
import { installErrorHandler } from './errors.handler.js';
import { installMethodRouting } from './routing.js';
import { installValidators } from './validation.js';
import type { PlaneApp } from './typed.js';
import { installTextGuard } from './safe-text.js';
import { HTTP_LIMITS, serverTimeouts, type HttpLimits } from './limits.js';
import { trustProxyOption } from './trusted-proxies.js';
import { frameworkErrors } from './framework-errors.js';

/**
 * The plane's Fastify instance before any route: the TypeBox type provider, the error envelope
 * and handler, validators, method routing (405/501), security headers and the OpenAPI document.
 */
export async function createServer(
  log: Logger,
  health: DbHealth,
  net: { trustedProxies: string[]; http: HttpLimits; https?: { cert: string; key: string } | null } = {
    trustedProxies: [],
    http: HTTP_LIMITS,
  },
): Promise<PlaneApp> {
  // With a certificate the same server speaks HTTPS (src/plane/tls/); its context can be replaced live.
  const https = net.https ? ({ https: { cert: net.https.cert, key: net.https.key } } as Record<string, unknown>) : {};
  const app: PlaneApp = Fastify({
    ...https,
    loggerInstance: log as FastifyBaseLogger,
    trustProxy: trustProxyOption(net.trustedProxies),
    bodyLimit: 1 << 20,
    return503OnClosing: true,
    // One line per request at debug instead of Fastify's two at info (below): a fleet's polling
    // and live views would otherwise drown what an operator reads (issue 14). Failures are
    // logged by the error handler at their own level.
    logController: new LogController({ disableRequestLogging: true }),
    ...serverTimeouts(net.http),
    frameworkErrors,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onResponse', async (req, reply) => {
    req.log.debug(
      { method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
  });
  installErrorHandler(app, health);
  installValidators(app);
  installTextGuard(app);
  // One error envelope for the whole API: every documented route answers it for its failures.
  app.addSchema({
    $id: 'ErrorEnvelope',
    type: 'object',
    required: ['error'],
    additionalProperties: true,
    description: 'Error envelope: `error` holds the code; some codes add fields (scope, retry_after).',
    properties: {
      error: {
        type: 'string',
        description: 'One of the catalogue codes',
        examples: describeErrors().map((e) => e.code),
      },
    },
  });
  app.addHook('onRoute', (route) => {
    if (!route.schema || (route.schema as { hide?: boolean }).hide) return;
    const response = (route.schema.response ?? {}) as Record<string, unknown>;
    if (!('default' in response)) route.schema.response = { ...response, default: { $ref: 'ErrorEnvelope#' } };
  });
  trackErrorLists(app);
  installMethodRouting(app);
  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.removeHeader('x-powered-by');
    if (req.url.startsWith('/api/') && !String(reply.getHeader('cache-control') ?? '').includes('no-store'))
      reply.header('cache-control', 'no-store');
    return payload;
  });

  // A variable, not a literal in the call: the swagger options type has no room for the
  // `x-error-codes` extension, and only a literal gets the excess-property check.
  const openapi = {
    openapi: '3.1.0',
    info: {
      title: 'Argus control plane',
      version: '1',
      description:
        'Every error body is {error: code, ...}. Codes: ' +
        describeErrors()
          .map((e) => `${e.status} ${e.code}`)
          .join(', ') +
        '. Each operation lists the codes it may answer (its responses and its description); any operation may ' +
        'also answer ' +
        everyOperation
          .map(describeError)
          .map((e) => `${e.status} ${e.code}`)
          .join(', ') +
        '.',
    },
    components: { securitySchemes: { bearer: { type: 'http' as const, scheme: 'bearer', bearerFormat: 'JWT' } } },
    'x-error-codes': describeErrors(),
  };
  await app.register(swagger, {
    openapi,
    // Each route's error codes, from its list (route-errors.ts), as responses and a sentence.
    transform: documentErrors,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });

  return app;
}
