/**
 * Syntax of the node configuration (document 4 section 7): `name args;` directives and
 * `name args { ... }` blocks, `#` comments, double-quoted values with spaces.
 * The tree keeps character offsets so that the writer can splice single statements and
 * leave every other byte (comments, blank lines, order) exactly as the operator wrote it.
 */

export interface Arg {
  value: string;
  line: number;
}

export interface Statement {
  name: string;
  args: Arg[];
  /** Present only for blocks. */
  children?: Statement[];
  line: number;
  /** Offset of the first character of the name. */
  start: number;
  /** Offset just after the closing `;` or `}`. */
  end: number;
  /** Blocks: offset of the closing `}`. */
  closeAt?: number;
}

export class ConfigParseError extends Error {
  constructor(
    readonly line: number,
    readonly detail: string,
  ) {
    super(`line ${line}: ${detail}`);
    this.name = 'ConfigParseError';
  }
}

type Token =
  | { kind: 'word'; value: string; line: number; start: number; end: number }
  | { kind: ';' | '{' | '}'; line: number; start: number; end: number };

const BARE_END = new Set([' ', '\t', '\r', '\n', ';', '{', '}', '#', '"']);

/** Lazy so that an error late in the file never hides an earlier one (first error wins). */
export function* tokenize(text: string): Generator<Token> {
  let i = 0;
  let line = 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === ';' || c === '{' || c === '}') {
      i++;
      yield { kind: c, line, start: i - 1, end: i };
      continue;
    }
    if (c === '"') {
      const start = i;
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length || text[i] === '\n') throw new ConfigParseError(line, 'unterminated quoted string');
        const q = text[i];
        if (q === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) {
          value += text[i + 1];
          i += 2;
          continue;
        }
        if (q === '"') {
          i++;
          break;
        }
        value += q;
        i++;
      }
      yield { kind: 'word', value, line, start, end: i };
      continue;
    }
    const start = i;
    while (i < text.length && !BARE_END.has(text[i])) i++;
    yield { kind: 'word', value: text.slice(start, i), line, start, end: i };
  }
}

export interface Shape {
  min: number;
  max: number;
  block?: Record<string, Shape>;
}

function plural(n: number): string {
  return n === 1 ? '1 argument' : `${n} arguments`;
}

function arity(shape: Shape): string {
  if (shape.min === shape.max) return plural(shape.min);
  if (shape.max === Infinity) return `at least ${plural(shape.min)}`;
  return `${shape.min} to ${shape.max} arguments`;
}

/**
 * Builds the statement tree and checks each statement against `schema` as soon as it is read:
 * an unknown directive, a block where a directive belongs or a wrong argument count is a parse
 * error because the statement cannot be understood at all; values are validate.ts's business.
 */
export function parseStatements(text: string, schema: Record<string, Shape>): Statement[] {
  const tokens = tokenize(text);
  let ahead: Token | undefined;
  let done = false;
  const peek = (): Token | undefined => {
    if (ahead === undefined && !done) {
      const r = tokens.next();
      if (r.done) done = true;
      else ahead = r.value;
    }
    return ahead;
  };
  const take = (): void => {
    ahead = undefined;
  };

  function parseList(parent: Statement | null, allowed: Record<string, Shape>): Statement[] {
    const list: Statement[] = [];
    for (;;) {
      const t = peek();
      if (!t) {
        if (parent) throw new ConfigParseError(parent.line, `block "${parent.name}" is not closed by "}"`);
        return list;
      }
      if (t.kind === '}') {
        if (!parent) throw new ConfigParseError(t.line, 'unexpected "}"');
        parent.closeAt = t.start;
        parent.end = t.end;
        take();
        return list;
      }
      if (t.kind !== 'word') throw new ConfigParseError(t.line, `unexpected "${t.kind}"`);
      const shape = Object.hasOwn(allowed, t.value) ? allowed[t.value] : undefined;
      if (!shape) {
        const where = parent ? ` in ${parent.name}` : '';
        throw new ConfigParseError(t.line, `unknown directive "${t.value}"${where}`);
      }
      list.push(parseStatement(t, shape));
    }
  }

  function parseStatement(head: Token & { kind: 'word' }, shape: Shape): Statement {
    take();
    const st: Statement = { name: head.value, args: [], line: head.line, start: head.start, end: head.end };
    for (;;) {
      const t = peek();
      if (!t || t.kind === '}')
        throw new ConfigParseError(head.line, `directive "${head.value}" is not terminated by ";"`);
      if (t.kind === 'word') {
        st.args.push({ value: t.value, line: t.line });
        take();
        continue;
      }
      take();
      if (st.args.length < shape.min || st.args.length > shape.max) {
        throw new ConfigParseError(head.line, `"${head.value}" takes ${arity(shape)}`);
      }
      if (t.kind === ';') {
        if (shape.block)
          throw new ConfigParseError(head.line, `"${head.value}" must be a block: ${head.value} { ... }`);
        st.end = t.end;
        return st;
      }
      if (!shape.block) throw new ConfigParseError(head.line, `"${head.value}" does not take a block`);
      st.children = parseList(st, shape.block);
      return st;
    }
  }

  return parseList(null, schema);
}

/** Renders one value so that the tokenizer reads it back unchanged. */
export function quote(value: string): string {
  if (value.length > 0 && ![...value].some((c) => BARE_END.has(c) || c === '\\')) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function renderDirective(name: string, args: string[]): string {
  return [name, ...args.map(quote)].join(' ') + ';';
}
