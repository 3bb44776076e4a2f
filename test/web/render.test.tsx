// @vitest-environment happy-dom
/**
 * The console renders every value the API may send (issue 21 §1): generated event frames, feed
 * rows, cards (with details rendered by the plane's own template code from generated template
 * documents) and analytics answers go through the real feed row, card and widgets; none throws.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { Row } from '../../web/src/pages/feed.js';
import { EventPage } from '../../web/src/pages/event.js';
import { Bars, Donut, Kpi, Table, type Result } from '../../web/src/pages/dashboards/widgets.js';
import { MeContext } from '../../web/src/api/me.js';
import type { FeedRow } from '../../web/src/lib/live-feed.js';
import { renderDetails } from '../../src/plane/templates/template.render.js';
import type { TemplateDoc } from '../../src/plane/templates/template.doc.js';
import { arbAnalytics, arbCard, arbFrame, arbTemplateDoc, arbPayload } from './render.arbitraries.js';

const realFetch = globalThis.fetch;
beforeAll(() => {
  // Previews and the like are fetched by effects: they stay pending, the render is what is tested.
  globalThis.fetch = () => new Promise<Response>(() => {});
});
afterAll(() => {
  globalThis.fetch = realFetch;
});
afterEach(() => cleanup());

const RUNS = 150;
const roles = ['superadmin', 'admin', 'user'] as const;

function withClient(
  children: React.ReactNode,
  seed?: (qc: QueryClient) => void,
  role: (typeof roles)[number] = 'user',
) {
  const qc = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  seed?.(qc);
  const me = { id: 'u1', org_id: 'o1', login: 'op', name: 'Op', role };
  return (
    <QueryClientProvider client={qc}>
      {/* The pages' links and locations read the router's (web/src/router.tsx). */}
      <MemoryRouter>
        <MeContext.Provider value={me}>{children}</MeContext.Provider>
      </MemoryRouter>
    </QueryClientProvider>
  );
}

describe('the feed row renders any frame the stream or a page may send', () => {
  it("a localised title is shown in the reader's language, then en, then the first entry", () => {
    const row = {
      id: 'e1',
      occurred_at: '2026-11-25T10:00:00Z',
      camera_id: null,
      detector: 'system.camera_offline',
      category: 'system',
      severity: 3,
      org_id: 'o1',
      detector_title: { de: 'Kamera offline', en: 'Camera offline' },
    } as FeedRow;
    const { container } = render(<Row row={row} search="" />);
    expect(container.querySelector('.what')!.textContent).toBe('Camera offline');
    expect(container.querySelector('.where')!.textContent).toBe('system');
    expect(container.querySelector('.sev')!.textContent).toBe('error');
  });

  it('hostile text is text, never markup', () => {
    const row = {
      id: 'e2',
      occurred_at: '2026-11-25T10:00:00Z',
      camera_id: 'c',
      detector: '<img src=x onerror=alert(1)>',
      category: 'camera',
      severity: null,
      org_id: 'o1',
      camera_name: '<script>alert(1)</script>',
    } as FeedRow;
    const { container } = render(<Row row={row} search="" />);
    expect(container.querySelector('img, script')).toBeNull();
    expect(container.querySelector('.where')!.textContent).toBe('<script>alert(1)</script>');
  });

  it('never throws, and shows a title for every generated frame', () => {
    fc.assert(
      fc.property(arbFrame, (frame) => {
        const { container, unmount } = render(<Row row={frame as FeedRow} search="?q=x" />);
        expect(container.querySelector('.what')!.textContent!.length).toBeGreaterThan(0);
        // A 16 KiB name is cut for the row; the card shows it whole.
        expect(container.textContent!.length).toBeLessThan(2_000);
        unmount();
      }),
      { numRuns: RUNS },
    );
  });
});

describe('the event card renders any card the plane may answer', () => {
  it('never throws for generated cards, for each role', () => {
    fc.assert(
      fc.property(arbCard, fc.constantFrom(...roles), (card, role) => {
        const id = String(card.event.id);
        const { container, unmount } = render(
          withClient(<EventPage id={id} />, (qc) => qc.setQueryData(['event', id], card), role),
        );
        expect(container.querySelector('.item-failed')).toBeNull();
        expect(container.querySelector('h2')!.textContent!.length).toBeGreaterThan(0);
        unmount();
      }),
      { numRuns: RUNS },
    );
  });

  it("renders the details a generated template document gives a generated payload (the plane's own rendering)", () => {
    fc.assert(
      fc.property(arbTemplateDoc, arbPayload, arbCard, (doc, payload, card) => {
        const details = renderDetails(doc as TemplateDoc, { fields: {}, payload });
        const full = {
          ...card,
          event: { ...card.event, payload },
          rendered: { title: (doc as { title?: unknown }).title ?? card.event.detector_title, details },
        };
        const id = String(card.event.id);
        const { container, unmount } = render(
          withClient(<EventPage id={id} />, (qc) => qc.setQueryData(['event', id], full)),
        );
        expect(container.querySelector('.item-failed')).toBeNull();
        expect(container.querySelectorAll('table.details tr').length).toBeGreaterThanOrEqual(details.length);
        unmount();
      }),
      { numRuns: RUNS },
    );
  });
});

describe('the widgets render any analytics answer', () => {
  it('kpi, bars, donut and table never throw', () => {
    fc.assert(
      fc.property(arbAnalytics, (r) => {
        for (const View of [Kpi, Bars, Donut, Table]) {
          const { unmount } = render(withClient(<View r={r as Result} />));
          unmount();
        }
      }),
      { numRuns: RUNS },
    );
  });
});
