import { Bars, Donut, Kpi, Line, Table, type Result } from './widgets.js';
import type { Period } from '../../lib/period.js';

/** A dashboard and its widgets as the plane answers them (GET /api/v1/analytics-dashboards/:id). */
export interface Widget {
  id: string;
  title: string;
  visualization: string;
  report_id: string | null;
  inline_definition: Record<string, unknown> | null;
  layout: { w?: number } | null;
  position: number;
  revision: number;
}
export interface Dashboard {
  id: string;
  name: string;
  description: string;
  timezone: string;
  default_period: Period;
  live_enabled: boolean;
  visibility: string;
  revision: number;
  widgets: Widget[];
}

/** What draws each visualization; its names are also the choices of the widget form. */
export const VIEWS: Record<string, (p: { r: Result }) => React.ReactElement> = {
  kpi: Kpi,
  line: Line,
  bar: Bars,
  donut: Donut,
  table: Table,
};
