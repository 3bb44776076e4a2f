/**
 * The longest value of each string setting (issue 25: `network.public_url` and the others took
 * any length, and plane.toml kept it). One table for the settings schemas (TypeBox maxLength) and
 * for plane.toml at start, so a value the API refuses is refused by hand too.
 */
export const SETTING_MAX = {
  url: 2048,
  listen: 64,
  word: 32, // tls.mode, log level, backend, addressing, volume_retention
  path: 4096, // PATH_MAX
  host: 253, // a DNS name
  hosts: 32,
  email: 254,
  endpoint: 261, // a DNS name, brackets and a port
  bucket: 63,
  region: 64,
  key: 256, // access and secret keys, the SMTP user and password
  from: 320, // a display name and an address
} as const;

type Doc = Record<string, unknown>;
const get = (d: unknown, k: string): unknown => (typeof d === 'object' && d !== null ? (d as Doc)[k] : undefined);

/** Every string of plane.toml longer than its limit, as problems (`[section] key must be at most N characters`). */
export function lengthProblems(doc: Doc): string[] {
  const M = SETTING_MAX;
  const network = get(doc, 'network'),
    tls = get(network, 'tls');
  const storage = (section: string): Array<[string, unknown, number]> => {
    const s = get(doc, section);
    return [
      ['backend', M.word],
      ['dir', M.path],
      ['endpoint', M.endpoint],
      ['bucket', M.bucket],
      ['region', M.region],
      ['addressing', M.word],
      ['access_key', M.key],
      ['secret_key', M.key],
      ['volume_retention', M.word],
    ].map(([k, max]) => [`[${section}] ${k}`, get(s, k as string), max as number]);
  };
  const checks: Array<[string, unknown, number]> = [
    ['[database] url', get(get(doc, 'database'), 'url'), M.url],
    ['[database] read_url', get(get(doc, 'database'), 'read_url'), M.url],
    ['[network] public_url', get(network, 'public_url'), M.url],
    ['[network] listen', get(network, 'listen'), M.listen],
    ['[network.tls] mode', get(tls, 'mode'), M.word],
    ['[network.tls] cert', get(tls, 'cert'), M.path],
    ['[network.tls] key', get(tls, 'key'), M.path],
    ['[network.tls] store_dir', get(tls, 'store_dir'), M.path],
    ['[network.tls] acme_contact', get(tls, 'acme_contact'), M.email],
    ['[network.tls] acme_listen', get(tls, 'acme_listen'), M.listen],
    ['[network.tls] acme_directory_url', get(tls, 'acme_directory_url'), M.url],
    ['[network.tls] acme_ca_file', get(tls, 'acme_ca_file'), M.path],
    ['[logging] minimum_level', get(get(doc, 'logging'), 'minimum_level'), M.word],
    ...storage('evidence_storage'),
    ...storage('evidence_storage_retired'),
    ...(
      [
        ['host', M.host],
        ['user', M.key],
        ['password', M.key],
        ['from', M.from],
        ['tls_ca', M.path],
      ] as const
    ).map(([k, max]): [string, unknown, number] => [
      `[notifications.smtp] ${k}`,
      get(get(get(doc, 'notifications'), 'smtp'), k),
      max,
    ]),
  ];
  const problems = checks
    .filter(([, v, max]) => typeof v === 'string' && v.length > max)
    .map(([label, , max]) => `${label} must be at most ${max} characters`);
  const hosts = get(tls, 'hosts');
  if (
    Array.isArray(hosts) &&
    (hosts.length > M.hosts || hosts.some((h) => typeof h === 'string' && h.length > M.host))
  ) {
    problems.push(`[network.tls] hosts must be at most ${M.hosts} names of at most ${M.host} characters`);
  }
  return problems;
}
