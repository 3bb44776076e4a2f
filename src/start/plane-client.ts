/** The few public API calls `npm start` makes to set up its local fleet (document 1 and 4 routes). */
export class PlaneClient {
  constructor(
    readonly base: string,
    private token: string | null = null,
  ) {}

  async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    bearer = this.token,
  ): Promise<{ status: number; body: T }> {
    const r = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: (text ? JSON.parse(text) : null) as T };
  }

  async must<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await this.call<T>(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  async login(creds: { login: string; password: string }): Promise<void> {
    this.token = (await this.must<{ token: string }>('POST', '/api/v1/auth/login', creds)).token;
  }

  /** Every row of a `{rows, next}` list (lists hold at most 500 a page). */
  async all<T>(path: string): Promise<T[]> {
    const out: T[] = [];
    let after: string | null = null;
    do {
      const page: { rows: T[]; next: string | null } = await this.must(
        'GET',
        `${path}${path.includes('?') ? '&' : '?'}limit=500${after ? `&after=${after}` : ''}`,
      );
      out.push(...page.rows);
      after = page.next;
    } while (after);
    return out;
  }
}
