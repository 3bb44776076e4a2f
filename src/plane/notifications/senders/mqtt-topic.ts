import type { OutgoingMessage } from './sender.js';

// An MQTT channel's topic template (document 4 §13): `{org}`, `{camera}`, `{detector}` are filled
// from the event. A name must never change the topic's shape: `/` would add a level, `+` and `#`
// are wildcards a broker refuses in a published topic (the publish would fail for that camera
// forever), NUL is forbidden, and a leading `$` names the broker's own topics. Each of them, and
// every control character, becomes `_` in a filled value; an empty value is `_` too, so a level
// never disappears.

/** The placeholders a topic template may use, and what fills each. */
export const TOPIC_PLACEHOLDERS = {
  /** the organisation's id (the event carries no organisation name) */
  org: 'org_id',
  /** the camera's name as the event names it; `none` for an event without camera */
  camera: 'camera_name',
  /** the camera's id, stable across renames; `none` without camera */
  camera_id: 'camera_id',
  /** the detector (`motion.person`) */
  detector: 'detector',
} as const;

const MAX_VALUE = 128;
export const MAX_TOPIC = 1024;

// eslint-disable-next-line no-control-regex
const UNSAFE = /[/+#\u0000-\u001f\u007f]/g;

/** A value made safe for one topic level. */
export function topicLevel(value: unknown): string {
  const s = value === null || value === undefined ? '' : String(value as string | number);
  const safe = s.replace(UNSAFE, '_').replace(/^\$/, '_').slice(0, MAX_VALUE);
  return safe.trim() === '' ? '_' : safe;
}

/** The topic of a message: the template with its placeholders filled and made safe. */
export function fillTopic(template: string, message: OutgoingMessage): string {
  const ev = (message.payload.event ?? {}) as Record<string, unknown>;
  return template.replace(/\{(org|camera|camera_id|detector)\}/g, (_m, name: keyof typeof TOPIC_PLACEHOLDERS) => {
    const v = ev[TOPIC_PLACEHOLDERS[name]];
    if ((name === 'camera' || name === 'camera_id') && (v === null || v === undefined)) return 'none';
    return topicLevel(v);
  });
}

/**
 * Why a topic template cannot be published to, in words, or null: for the channel's create and
 * edit (a template is the administrator's, checked once; the filled values are made safe here).
 */
export function topicTemplateProblem(template: unknown): string | null {
  if (typeof template !== 'string' || template === '') return 'topic must be a non-empty string';
  if (template.length > MAX_TOPIC) return `topic must be at most ${MAX_TOPIC} characters`;
  if (/[+#]/.test(template)) return 'topic must not contain the wildcards + or #';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(template)) return 'topic must not contain control characters';
  if (template.startsWith('$')) return 'topic must not start with $ (the broker’s own topics)';
  const unknown = [...template.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!).filter((n) => !(n in TOPIC_PLACEHOLDERS));
  if (unknown.length)
    return `topic may use ${Object.keys(TOPIC_PLACEHOLDERS)
      .map((n) => `{${n}}`)
      .join(', ')}; not {${unknown[0]}}`;
  return null;
}
