/** Counters the node keeps about itself; rendered by metrics.routes.ts for /metrics and /api/v1/metrics. */
export class NodeMetrics {
  readonly startedAt = Date.now();
  readonly gate = new Map<string, number>();
  readonly logins = new Map<string, number>();
  readonly grants = new Map<string, number>();
  readonly http = new Map<string, number>();

  gateDecision(result: string): void {
    bump(this.gate, result);
  }
  login(result: 'ok' | 'wrong_password' | 'throttled' | 'disabled'): void {
    bump(this.logins, result);
  }
  grant(intent: string): void {
    bump(this.grants, intent);
  }
  response(status: number): void {
    bump(this.http, `${Math.floor(status / 100)}xx`);
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Prometheus text exposition 0.0.4. */
export class Exposition {
  private readonly lines: string[] = [];

  family(
    name: string,
    type: 'counter' | 'gauge',
    help: string,
    samples: Array<[Record<string, string>, number]>,
  ): this {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) {
      const keys = Object.keys(labels);
      const l = keys.length === 0 ? '' : `{${keys.map((k) => `${k}="${escapeLabel(labels[k])}"`).join(',')}}`;
      this.lines.push(`${name}${l} ${Number.isFinite(value) ? value : 0}`);
    }
    return this;
  }

  text(): string {
    return this.lines.join('\n') + '\n';
  }
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

export function samplesOf(map: Map<string, number>, label: string): Array<[Record<string, string>, number]> {
  return [...map.entries()].sort().map(([k, v]) => [{ [label]: k }, v]);
}
