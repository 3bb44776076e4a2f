import { Bars, Donut, Kpi, Line, Table, type Result } from './widgets.js';

export type { Dashboard, Widget } from '../../api/dashboards.js';

/** What draws each visualization; its names are also the choices of the widget form. */
export const VIEWS: Record<string, (p: { r: Result }) => React.ReactElement> = {
  kpi: Kpi,
  line: Line,
  bar: Bars,
  donut: Donut,
  table: Table,
};
