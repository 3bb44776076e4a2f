import { useState } from 'react';
import { ListState } from '../../components/list-state.js';
import { errorSentence } from '../../api/error-words.js';
import { isAdmin, useMe } from '../../api/me.js';
import { PERIODS, type Period } from '../../lib/period.js';
import type { CatalogField } from '../../api/analytics.js';
import { useCatalog, useReports, useRunQuery, useSaveReport } from '../../hooks/use-analytics.js';
import { useAddWidget, useDashboards } from '../../hooks/use-dashboards.js';
import { fieldsOf } from '../../lib/text.js';
import { Bars, Line, Table, type Result } from './widgets.js';
import { resultCsv } from '../../lib/report-csv.js';

/** A catalog field as a query names it. */
type FieldRef = Pick<CatalogField, 'template_id' | 'key'>;

const MEASURES = [
  'count_events',
  'unique_cameras',
  'open_events',
  'avg_confidence',
  'total_duration_seconds',
  'avg_duration_seconds',
  'field_count',
  'field_sum',
  'field_avg',
  'field_min',
  'field_max',
];
const GROUPS = ['none', 'detector', 'camera', 'node', 'severity', 'category', 'field'];
const OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'exists', 'not_exists'];
const fieldId = (f: FieldRef) => `${f.template_id}|${f.key}`;
const fieldOf = (id: string): FieldRef | null =>
  id ? { template_id: id.split('|')[0]!, key: id.split('|')[1]! } : null;

function saveCsv(name: string, r: Result): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([resultCsv(r)], { type: 'text/csv' }));
  a.download = `${name.replace(/[^A-Za-z0-9_.-]+/g, '_') || 'report'}.csv`;
  a.click();
}

/** Saved reports: a query builder over the catalog, a preview, saving; a saved report run over a period, as CSV, onto a dashboard. */
export function ReportsPage() {
  const me = useMe();
  const catalog = useCatalog();
  const reports = useReports();
  const boards = useDashboards();
  const runQuery = useRunQuery();
  const save = useSaveReport();
  const addWidget = useAddWidget();
  const [q, setQ] = useState({
    measure: 'count_events',
    measure_field: '',
    group_by: 'detector',
    group_field: '',
    bucket: 'none',
    semantics: 'started',
    period: 'last_24h' as Period,
    detectors: '',
    severity_min: '',
    cond_field: '',
    cond_op: 'eq',
    cond_value: '',
  });
  const [name, setName] = useState('');
  const [preview, setPreview] = useState<Result | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [ran, setRan] = useState<Record<string, Result>>({});

  const definition = () => {
    const filters: Record<string, unknown> = {};
    const detectors = q.detectors
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (detectors.length) filters.detectors = detectors;
    if (q.severity_min) filters.severity_min = Number(q.severity_min);
    if (q.cond_field)
      filters.fields = [
        {
          field: fieldOf(q.cond_field),
          op: q.cond_op,
          ...(q.cond_op.endsWith('exists')
            ? {}
            : { value: isNaN(Number(q.cond_value)) || q.cond_value === '' ? q.cond_value : Number(q.cond_value) }),
        },
      ];
    return {
      measure: q.measure,
      ...(q.measure.startsWith('field_') ? { measure_field: fieldOf(q.measure_field) } : {}),
      group_by: q.group_by,
      ...(q.group_by === 'field' ? { group_field: fieldOf(q.group_field) } : {}),
      bucket: q.bucket,
      semantics: q.semantics,
      filters,
      period: q.period,
    };
  };
  const run = (definition: Record<string, unknown>, period: Period) => runQuery.mutateAsync({ definition, period });
  const fail = (err: unknown) => setMessage({ ok: false, text: errorSentence(err) });
  const set = (k: keyof typeof q) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setQ({ ...q, [k]: e.target.value });
  const fieldSelect = (k: 'measure_field' | 'group_field' | 'cond_field', label: string) => (
    <label>
      {label}
      <select name={k} value={q[k]} onChange={set(k)}>
        <option value="">—</option>
        {catalog.data?.fields.map((f) => (
          <option key={fieldId(f)} value={fieldId(f)}>
            {f.template_name}: {f.label || f.key}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <section className="admin">
      <h2>Saved reports</h2>
      <form
        className="grid-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setMessage(null);
          try {
            setPreview(await run(definition(), q.period));
          } catch (err) {
            fail(err);
          }
        }}
      >
        <label>
          Measure
          <select name="measure" value={q.measure} onChange={set('measure')}>
            {MEASURES.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        {q.measure.startsWith('field_') && fieldSelect('measure_field', 'Of field')}
        <label>
          Group by
          <select name="group_by" value={q.group_by} onChange={set('group_by')}>
            {GROUPS.map((g) => (
              <option key={g}>{g}</option>
            ))}
          </select>
        </label>
        {q.group_by === 'field' && fieldSelect('group_field', 'Group field')}
        <label>
          Bucket
          <select name="bucket" value={q.bucket} onChange={set('bucket')}>
            <option>none</option>
            <option>hour</option>
            <option>day</option>
          </select>
        </label>
        <label>
          Semantics
          <select name="semantics" value={q.semantics} onChange={set('semantics')}>
            <option>started</option>
            <option>active</option>
          </select>
        </label>
        <label>
          Period
          <select name="period" value={q.period} onChange={set('period')}>
            {PERIODS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <label>
          Detectors
          <input name="detectors" value={q.detectors} onChange={set('detectors')} placeholder="lpr.plate, door.*" />
        </label>
        <label>
          Severity at least
          <select name="severity_min" value={q.severity_min} onChange={set('severity_min')}>
            <option value="">visible</option>
            {[0, 1, 2, 3, 4].map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        {fieldSelect('cond_field', 'Where field')}
        {q.cond_field && (
          <label>
            is
            <select name="cond_op" value={q.cond_op} onChange={set('cond_op')}>
              {OPS.map((o) => (
                <option key={o}>{o}</option>
              ))}
            </select>
          </label>
        )}
        {q.cond_field && !q.cond_op.endsWith('exists') && (
          <label>
            Value
            <input name="cond_value" value={q.cond_value} onChange={set('cond_value')} />
          </label>
        )}
        <div className="actions">
          <button type="submit">Preview</button>
          {isAdmin(me) && (
            <>
              <input
                name="report-name"
                placeholder="Report name"
                value={name}
                onChange={(e) => setName(e.target.value)}
              />
              <button
                type="button"
                onClick={async () => {
                  try {
                    await save.mutateAsync({ name, definition: definition(), visibility: 'org' });
                    setMessage({ ok: true, text: `Saved "${name}".` });
                  } catch (err) {
                    fail(err);
                  }
                }}
              >
                Save report
              </button>
            </>
          )}
          {preview && (
            <button type="button" onClick={() => saveCsv(name || 'preview', preview)}>
              CSV
            </button>
          )}
        </div>
      </form>
      {message && (
        <p className={message.ok ? 'note' : 'error'} role="alert">
          {message.text}
        </p>
      )}
      {preview && (
        <div className="widget" data-testid="preview">
          {preview.bucket !== 'none' ? <Line r={preview} /> : <Bars r={preview} />}
          <Table r={preview} />
        </div>
      )}
      <h3>Saved</h3>
      <ListState
        what="The saved reports"
        query={reports}
        isEmpty={(d) => d.rows.length === 0}
        empty="No saved report yet: build one above and save it."
      >
        {(saved) => (
          <table className="list">
            <tbody>
              {saved.rows
                .map((r) => ({ ...r, definition: fieldsOf(r.definition) }))
                .map((r) => (
                  <tr key={r.id} data-report={r.name}>
                    <td>{r.name}</td>
                    <td className="meta">
                      {String(r.definition.measure)} by {String(r.definition.group_by ?? 'none')}
                    </td>
                    <td className="actions">
                      <button
                        onClick={async () => {
                          try {
                            setRan({
                              ...ran,
                              [r.id]: await run(r.definition, (r.definition.period as Period) ?? 'last_24h'),
                            });
                          } catch (err) {
                            fail(err);
                          }
                        }}
                      >
                        Run
                      </button>
                      {ran[r.id] && <button onClick={() => saveCsv(r.name, ran[r.id]!)}>CSV</button>}
                      {isAdmin(me) && !!boards.data?.rows.length && (
                        <select
                          aria-label={`add ${r.name} to a dashboard`}
                          value=""
                          onChange={async (e) => {
                            try {
                              await addWidget.mutateAsync({
                                dashboard: e.target.value,
                                body: {
                                  report_id: r.id,
                                  title: r.name,
                                  visualization: r.definition.bucket && r.definition.bucket !== 'none' ? 'line' : 'bar',
                                },
                              });
                              setMessage({ ok: true, text: `Added "${r.name}" to the dashboard.` });
                            } catch (err) {
                              fail(err);
                            }
                          }}
                        >
                          <option value="">Add to dashboard…</option>
                          {boards.data.rows.map((b) => (
                            <option key={b.id} value={b.id}>
                              {b.name}
                            </option>
                          ))}
                        </select>
                      )}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        )}
      </ListState>
      {Object.entries(ran).map(([id, r]) => (
        <div key={id} className="widget" data-testid={`ran-${id}`}>
          <Table r={r} />
        </div>
      ))}
    </section>
  );
}
