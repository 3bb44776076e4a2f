import { Link, useLocation } from '../router.js';

const TABS = [
  { to: '/admin/notifications', label: 'Rules' },
  { to: '/admin/notifications/channels', label: 'Channels' },
  { to: '/admin/notifications/deliveries', label: 'Delivery log' },
] as const;

/** The three notification pages (rules, channels, the delivery log), one a tab of the others. */
export function NotificationsTabs() {
  const { path } = useLocation();
  return (
    <nav className="tabs" aria-label="Notifications">
      {TABS.map((t) => (
        <Link key={t.to} to={t.to} className={path === t.to ? 'on' : ''}>
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
