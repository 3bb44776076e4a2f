/** The dashboards' periods: the plane's own calendar module (src/common/calendar.ts), so the console and the plane agree. */
export { PERIODS, periodRange, type Period } from '../../../src/common/calendar.js';
