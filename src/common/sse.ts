/**
 * The one writer of server-sent events text (WHATWG HTML, "Server-sent events"), for the plane's
 * live streams and the node's event feed. `data` must be one line (JSON text is); a field's value
 * never holds a newline, which would end it early and let the rest pass for another field.
 */
export function sseFrame(data: string, fields: { id?: string | number; event?: string } = {}): string {
  let head = '';
  if (fields.event !== undefined) head += `event: ${oneLine(fields.event)}\n`;
  if (fields.id !== undefined) head += `id: ${oneLine(String(fields.id))}\n`;
  return `${head}data: ${oneLine(data)}\n\n`;
}

/** A comment line (a heartbeat, `: resync-required`): clients ignore it, proxies see traffic. */
export function sseComment(text: string): string {
  return `: ${oneLine(text)}\n\n`;
}

function oneLine(v: string): string {
  return /[\r\n]/.test(v) ? v.replace(/\r\n|[\r\n]/g, ' ') : v;
}
