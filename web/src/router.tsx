import { useSyncExternalStore } from 'react';

/** A small history router: the console's pages are a handful of paths. */
const listeners = new Set<() => void>();
function subscribe(f: () => void) {
  listeners.add(f);
  window.addEventListener('popstate', f);
  return () => {
    listeners.delete(f);
    window.removeEventListener('popstate', f);
  };
}
const snapshot = () => window.location.pathname + window.location.search;

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const f of listeners) f();
}

export function useLocation(): { path: string; search: string } {
  const s = useSyncExternalStore(subscribe, snapshot);
  const i = s.indexOf('?');
  return { path: i < 0 ? s : s.slice(0, i), search: i < 0 ? '' : s.slice(i) };
}

/** `pattern` like `/events/:id` matched against `path`: the parameters, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/'),
    b = path.split('/');
  if (a.length !== b.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.startsWith(':')) {
      // A malformed escape (`/events/%E0`) is no match, not an exception that would blank the shell.
      try {
        out[a[i]!.slice(1)] = decodeURIComponent(b[i]!);
      } catch {
        return null;
      }
    } else if (a[i] !== b[i]) return null;
  }
  return out;
}

export function Link(props: { to: string; children: React.ReactNode; className?: string }) {
  return (
    <a
      href={props.to}
      className={props.className}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.button !== 0) return;
        e.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}
