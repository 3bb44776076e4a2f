/**
 * The console's pages as data (issue 21 §4): one table for the plane, which answers index.html
 * for these paths and 404 for any other (src/plane/console), and for the console, whose
 * navigation and router are built from it (web/src/page-table.tsx pairs each path with its
 * page). No React and no Node here: both programs import this module.
 */

/** The roles of document 1: superadmin (every organisation), organisation administrator, operator. */
export type Role = 'superadmin' | 'admin' | 'user';

export interface ConsolePage {
  /** A client route; `:name` is a parameter (an event's, a camera's id). */
  readonly path: string;
  /** Who may open it. The API decides what each may read anyway; this keeps forms away from those it would refuse. */
  readonly roles: readonly Role[];
  /** Its entry in the navigation, in this order; pages reached from another page (a card, a node) have none. */
  readonly label?: string;
}

const EVERYONE = ['superadmin', 'admin', 'user'] as const;
const ADMINISTRATORS = ['superadmin', 'admin'] as const;
const SUPERADMIN = ['superadmin'] as const;

export const CONSOLE_PAGES = [
  { path: '/live', roles: EVERYONE, label: 'Live' },
  { path: '/feed', roles: EVERYONE, label: 'Events' },
  { path: '/events/:id', roles: EVERYONE },
  { path: '/cameras/:id', roles: EVERYONE },
  // Synchronised playback of up to four cameras, and their exports (issue 23).
  { path: '/review', roles: EVERYONE, label: 'Review' },
  { path: '/dashboards', roles: EVERYONE, label: 'Dashboards' },
  { path: '/dashboards/:id', roles: EVERYONE },
  { path: '/reports', roles: EVERYONE, label: 'Reports' },
  { path: '/admin/cameras', roles: ADMINISTRATORS, label: 'Cameras' },
  { path: '/admin/tokens', roles: ADMINISTRATORS, label: 'Module tokens' },
  { path: '/admin/templates', roles: ADMINISTRATORS, label: 'Templates' },
  { path: '/admin/people', roles: ADMINISTRATORS, label: 'People' },
  { path: '/admin/orgs', roles: SUPERADMIN, label: 'Organisations' },
  { path: '/admin/usage', roles: ADMINISTRATORS, label: 'Usage' },
  { path: '/admin/audit', roles: ADMINISTRATORS, label: 'Audit' },
  // Rules, channels and the delivery log of outbound notifications (issue 24).
  { path: '/admin/notifications', roles: ADMINISTRATORS, label: 'Notifications' },
  { path: '/admin/notifications/channels', roles: ADMINISTRATORS },
  { path: '/admin/notifications/deliveries', roles: ADMINISTRATORS },
  { path: '/admin/monitor', roles: SUPERADMIN, label: 'Monitor' },
  { path: '/admin/nodes', roles: SUPERADMIN, label: 'Nodes' },
  { path: '/admin/nodes/:id', roles: SUPERADMIN },
  { path: '/admin/settings', roles: SUPERADMIN, label: 'Settings' },
  // The own time zone, clock and password (issue 22).
  { path: '/profile', roles: EVERYONE, label: 'Profile' },
] as const satisfies readonly ConsolePage[];

/** Every page's path: the console's table of components is keyed by it, so a page without a component does not compile. */
export type ConsolePath = (typeof CONSOLE_PAGES)[number]['path'];

/** The sign-in, and the root, which opens the live grid: console addresses outside the table of pages. */
const CONSOLE_ENTRY_PATHS = ['/', '/login'] as const;

/** Every address the plane answers with the console's index.html. */
export const CONSOLE_PATHS: readonly string[] = [...CONSOLE_ENTRY_PATHS, ...CONSOLE_PAGES.map((p) => p.path)];

/** Whether `role` may open `page` (a role this table does not know opens nothing). */
export const mayOpen = (page: ConsolePage, role: string): boolean => (page.roles as readonly string[]).includes(role);
