/**
 * The `log_level` of a node, read from the text of its configuration (document 4 §7). The plane
 * does not share the node's parser (two programs); this reads only what it needs: the top-level
 * statement `log_level <level>;`, skipping `#` comments, double-quoted values and blocks.
 * Absent: the node's default, `info`.
 */
export const NODE_DEFAULT_LOG_LEVEL = 'info';
/** The levels a node accepts in `log_level` (its configuration schema). */
export const NODE_LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

const BARE_END = new Set([' ', '\t', '\r', '\n', ';', '{', '}', '#', '"']);

function* tokens(text: string): Generator<string> {
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === ';' || c === '{' || c === '}') {
      i++;
      yield c;
      continue;
    }
    if (c === '"') {
      let value = '';
      i++;
      while (i < text.length && text[i] !== '"' && text[i] !== '\n') {
        if (text[i] === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) {
          value += text[i + 1];
          i += 2;
          continue;
        }
        value += text[i];
        i++;
      }
      i++;
      yield `w:${value}`;
      continue;
    }
    const start = i;
    while (i < text.length && !BARE_END.has(text[i]!)) i++;
    yield `w:${text.slice(start, i)}`;
  }
}

export function logLevelOf(configText: string): string {
  let depth = 0;
  let statement: string[] = [];
  let level = NODE_DEFAULT_LOG_LEVEL;
  for (const t of tokens(configText)) {
    if (t === '{') {
      depth++;
      statement = [];
      continue;
    }
    if (t === '}') {
      depth = Math.max(0, depth - 1);
      statement = [];
      continue;
    }
    if (t === ';') {
      // The last one wins, as a later directive of the same name replaces an earlier one.
      if (depth === 0 && statement.length === 2 && statement[0] === 'log_level') level = statement[1]!;
      statement = [];
      continue;
    }
    statement.push(t.slice(2));
  }
  return level;
}
