// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { ErrorBoundary } from '../../web/src/components/error-boundary.js';

afterEach(() => cleanup());

let broken = true;
function Fragile(props: { label: string }) {
  if (broken) throw new Error('bad datum');
  return <p>{props.label}</p>;
}

describe('a failing piece of the console', () => {
  it('shows a sentence with its id and a way to try again; its neighbours stay', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    broken = true;
    const { container, getByText } = render(
      <div>
        <nav>Events</nav>
        <ErrorBoundary what="widget" id="0192-widget">
          <Fragile label="chart" />
        </ErrorBoundary>
        <ErrorBoundary what="widget" id="other">
          <p>kpi</p>
        </ErrorBoundary>
      </div>,
    );
    const failed = container.querySelector('.item-failed')!;
    expect(failed.textContent).toContain('This item could not be shown');
    expect(failed.textContent).toContain('0192-widget');
    expect(getByText('Events')).toBeTruthy();
    expect(getByText('kpi')).toBeTruthy();
    broken = false;
    act(() => {
      fireEvent.click(getByText('Try again'));
    });
    expect(getByText('chart')).toBeTruthy();
    expect(container.querySelector('.item-failed')).toBeNull();
    warn.mockRestore();
    error.mockRestore();
  });

  it('a new item in the same place is rendered afresh', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    broken = true;
    const { container, rerender, getByText } = render(
      <ErrorBoundary what="page" resetKey="/a">
        <Fragile label="page b" />
      </ErrorBoundary>,
    );
    expect(container.querySelector('.item-failed')).not.toBeNull();
    broken = false;
    rerender(
      <ErrorBoundary what="page" resetKey="/b">
        <Fragile label="page b" />
      </ErrorBoundary>,
    );
    expect(getByText('page b')).toBeTruthy();
    warn.mockRestore();
    error.mockRestore();
  });
});
