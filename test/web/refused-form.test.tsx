// @vitest-environment happy-dom
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { TokensPage } from '../../web/src/pages/admin/tokens.js';

const realFetch = globalThis.fetch;
afterEach(() => cleanup());
afterAll(() => {
  globalThis.fetch = realFetch;
});

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('a form the plane refuses (issue 22: words, not codes; nothing typed is lost)', () => {
  it('module tokens: a 400 reserved_name is said in words and the typed name and rate stay', async () => {
    const sent: Array<{ method: string; url: string; body: unknown }> = [];
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      // The typed client sends a Request; read it whole whichever way it came.
      const req = new Request(input, init);
      const text = await req.text();
      sent.push({ method: req.method, url: req.url, body: text ? JSON.parse(text) : undefined });
      if (req.method === 'POST') return json(400, { error: 'reserved_name' });
      return json(200, { rows: [] });
    }) as typeof fetch;
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
    const { container, findByRole } = render(
      <QueryClientProvider client={qc}>
        <TokensPage />
      </QueryClientProvider>,
    );
    const name = container.querySelector<HTMLInputElement>('input[name="token-name"]')!;
    const rate = container.querySelector<HTMLInputElement>('input[name="rate-limit"]')!;
    fireEvent.change(name, { target: { value: 'system' } });
    fireEvent.change(rate, { target: { value: '25' } });
    fireEvent.submit(name.closest('form')!);

    const alert = await findByRole('alert');
    expect(alert.textContent).toBe('That name is reserved: choose another.');
    expect(alert.textContent).not.toContain('reserved_name');
    await waitFor(() => expect(sent.some((r) => r.method === 'POST')).toBe(true));
    expect(sent.find((r) => r.method === 'POST')!.body).toEqual({ name: 'system', rate_limit: 25 });
    expect(name.value).toBe('system');
    expect(rate.value).toBe('25');
  });

  it('a network failure is said as such, and the typed name stays', async () => {
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (new Request(input, init).method === 'POST') throw new TypeError('Failed to fetch');
      return json(200, { rows: [] });
    }) as typeof fetch;
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
    const { container, findByRole } = render(
      <QueryClientProvider client={qc}>
        <TokensPage />
      </QueryClientProvider>,
    );
    const name = container.querySelector<HTMLInputElement>('input[name="token-name"]')!;
    fireEvent.change(name, { target: { value: 'lpr-gate-2' } });
    fireEvent.submit(name.closest('form')!);
    expect((await findByRole('alert')).textContent).toBe(
      'The plane did not answer. Check the connection and try again.',
    );
    expect(name.value).toBe('lpr-gate-2');
  });
});
