import { lazy, type ReactNode } from 'react';
import { CONSOLE_PAGES, mayOpen, type ConsolePage, type ConsolePath } from '../../src/common/console-pages.js';
import { TimesOfTheUser } from './components/time.js';

// Every page is a chunk of its own: the sign-in page, the first a user loads, carries none of them
// (issue 22: at most 90 KB of JavaScript; with the operator's four pages in the entry it was 104 KB).
const LivePage = lazy(() => import('./pages/live.js').then((m) => ({ default: m.LivePage })));
const FeedPage = lazy(() => import('./pages/feed.js').then((m) => ({ default: m.FeedPage })));
const EventPage = lazy(() => import('./pages/event.js').then((m) => ({ default: m.EventPage })));
const CameraPage = lazy(() => import('./pages/camera.js').then((m) => ({ default: m.CameraPage })));
const ReviewPage = lazy(() => import('./pages/review.js').then((m) => ({ default: m.ReviewPage })));
const TokensPage = lazy(() => import('./pages/admin/tokens.js').then((m) => ({ default: m.TokensPage })));
const SettingsPage = lazy(() => import('./pages/admin/settings.js').then((m) => ({ default: m.SettingsPage })));
const DashboardsList = lazy(() =>
  import('./pages/dashboards/dashboards.js').then((m) => ({ default: m.DashboardsList })),
);
const DashboardView = lazy(() =>
  import('./pages/dashboards/dashboards.js').then((m) => ({ default: m.DashboardView })),
);
const ReportsPage = lazy(() => import('./pages/dashboards/reports.js').then((m) => ({ default: m.ReportsPage })));
const PeoplePage = lazy(() => import('./pages/admin/people.js').then((m) => ({ default: m.PeoplePage })));
const UsagePage = lazy(() => import('./pages/admin/usage.js').then((m) => ({ default: m.UsagePage })));
const TemplatesPage = lazy(() => import('./pages/admin/templates.js').then((m) => ({ default: m.TemplatesPage })));
const NodePage = lazy(() => import('./pages/admin/node.js').then((m) => ({ default: m.NodePage })));
const OrgsPage = lazy(() => import('./pages/admin/orgs.js').then((m) => ({ default: m.OrgsPage })));
const MonitorPage = lazy(() => import('./pages/admin/monitor.js').then((m) => ({ default: m.MonitorPage })));
const AuditPage = lazy(() => import('./pages/admin/audit.js').then((m) => ({ default: m.AuditPage })));
const CamerasPage = lazy(() => import('./pages/admin/cameras.js').then((m) => ({ default: m.CamerasPage })));
const NodesPage = lazy(() => import('./pages/admin/nodes.js').then((m) => ({ default: m.NodesPage })));
const NotificationsPage = lazy(() =>
  import('./pages/admin/notifications.js').then((m) => ({ default: m.NotificationsPage })),
);
const NotificationChannelsPage = lazy(() =>
  import('./pages/admin/notifications-channels.js').then((m) => ({ default: m.NotificationChannelsPage })),
);
const NotificationDeliveriesPage = lazy(() =>
  import('./pages/admin/notifications-deliveries.js').then((m) => ({ default: m.NotificationDeliveriesPage })),
);
const ProfilePage = lazy(() => import('./pages/profile.js').then((m) => ({ default: m.ProfilePage })));

/** The parameters a path names: `{ id: string }` for `/events/:id`, none for `/feed`. */
type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Record<Name, string> & ParamsOf<Rest>
  : P extends `${string}:${infer Name}`
    ? Record<Name, string>
    : Record<never, string>;

/**
 * Each path of the shared table (src/common/console-pages.ts) with the page it shows. Keyed by
 * the union of the paths, so a path without a page, a page for no path, or a page reading a
 * parameter its path does not name fails the type check.
 */
const PAGE_OF: { [P in ConsolePath]: (params: ParamsOf<P>) => ReactNode } = {
  '/live': () => <LivePage />,
  '/feed': () => <FeedPage />,
  '/events/:id': (p) => <EventPage id={p.id} />,
  '/cameras/:id': (p) => <CameraPage id={p.id} />,
  '/review': () => <ReviewPage />,
  '/dashboards': () => <DashboardsList />,
  '/dashboards/:id': (p) => <DashboardView id={p.id} />,
  '/reports': () => <ReportsPage />,
  '/admin/cameras': () => <CamerasPage />,
  '/admin/tokens': () => <TokensPage />,
  '/admin/templates': () => <TemplatesPage />,
  '/admin/people': () => <PeoplePage />,
  '/admin/orgs': () => <OrgsPage />,
  '/admin/usage': () => <UsagePage />,
  '/admin/audit': () => <AuditPage />,
  '/admin/notifications': () => <NotificationsPage />,
  '/admin/notifications/channels': () => <NotificationChannelsPage />,
  '/admin/notifications/deliveries': () => <NotificationDeliveriesPage />,
  '/admin/monitor': () => <MonitorPage />,
  '/admin/nodes': () => <NodesPage />,
  '/admin/nodes/:id': (p) => <NodePage id={p.id} />,
  '/admin/settings': () => <SettingsPage />,
  '/profile': () => <ProfilePage />,
};

export interface PageEntry extends ConsolePage {
  /** The page for the parameters the router matched in its path. */
  readonly page: (params: Record<string, string>) => ReactNode;
}

/** The table of pages `{path, page, roles, label}`: the router's routes and the navigation are both read from it. */
export const PAGES: readonly PageEntry[] = CONSOLE_PAGES.map((p) => {
  // The router hands every page the parameters of its own path, which PAGE_OF's key proves it reads.
  const page = PAGE_OF[p.path] as PageEntry['page'];
  // Each page once the user's zone and clock are read: its times are in them from the first render.
  return { ...p, page: (params) => <TimesOfTheUser>{page(params)}</TimesOfTheUser> };
});

/** The navigation of `role`: the labelled pages it may open, in the table's order. */
export const navigationFor = (role: string): PageEntry[] => PAGES.filter((p) => p.label && mayOpen(p, role));
