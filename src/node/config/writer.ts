import { parseStatements, quote, renderDirective, type Statement } from './grammar.js';
import { NODE_SCHEMA } from './schema.js';

/**
 * Edits configuration text by splicing single statements, so that comments, blank lines and
 * the order of everything the edit does not touch stay byte for byte as they were.
 */
const INDENT = '    ';

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  const i = text.indexOf('\n', offset);
  return i === -1 ? text.length : i;
}

function indentOf(text: string, offset: number): string {
  const start = lineStart(text, offset);
  return /^[ \t]*/.exec(text.slice(start, offset))?.[0] ?? '';
}

function assertSingleLine(values: string[]): void {
  if (values.some((v) => /[\r\n]/.test(v))) throw new Error('configuration values cannot contain line breaks');
}

export function directive(name: string, args: string[] = []): string {
  assertSingleLine(args);
  return renderDirective(name, args);
}

/** `name args {` + one line per child + `}`; children are already-rendered statements. */
export function block(name: string, args: string[], children: string[]): string {
  assertSingleLine(args);
  const head = [name, ...args.map(quote)].join(' ');
  if (children.length === 0) return `${head} { }`;
  return `${head} {\n${children.map((c) => INDENT + c).join('\n')}\n}`;
}

export class ConfigText {
  constructor(public text: string) {}

  statements(): Statement[] {
    return parseStatements(this.text, NODE_SCHEMA);
  }

  find(pred: (st: Statement) => boolean): Statement | undefined {
    return this.statements().find(pred);
  }

  /** Replaces one statement in place; continuation lines take the statement's indentation. */
  replace(st: Statement, rendered: string): void {
    const indent = indentOf(this.text, st.start);
    const body = rendered
      .split('\n')
      .map((l, i) => (i === 0 || l === '' ? l : indent + l))
      .join('\n');
    this.text = this.text.slice(0, st.start) + body + this.text.slice(st.end);
  }

  /** Removes a statement; when it sits alone on its lines the lines go too (no blank gap). */
  remove(st: Statement): void {
    const ls = lineStart(this.text, st.start);
    const le = lineEnd(this.text, st.end);
    const before = this.text.slice(ls, st.start);
    const after = this.text.slice(st.end, le);
    if (/^[ \t]*$/.test(before) && /^[ \t]*$/.test(after)) {
      this.text = this.text.slice(0, ls) + this.text.slice(Math.min(le + 1, this.text.length));
    } else {
      this.text = this.text.slice(0, st.start) + this.text.slice(st.end);
    }
  }

  /** Appends a top-level statement after the last one of the same name, or at the end. */
  append(name: string, rendered: string): void {
    const same = this.statements().filter((s) => s.name === name);
    const last = same[same.length - 1];
    if (last) {
      const le = lineEnd(this.text, last.end);
      this.text = this.text.slice(0, le) + '\n' + rendered + this.text.slice(le);
      return;
    }
    if (this.text.length > 0 && !this.text.endsWith('\n')) this.text += '\n';
    this.text += rendered + '\n';
  }

  /** Sets a top-level directive that occurs once: replaces it, appends it, or removes it (null). */
  setDirective(name: string, args: string[] | null): void {
    const st = this.find((s) => s.name === name && !s.children);
    if (args === null) {
      if (st) this.remove(st);
      return;
    }
    const rendered = directive(name, args);
    if (st) this.replace(st, rendered);
    else this.append(name, rendered);
  }

  /**
   * Sets one directive inside the top-level block `blockName` (without arguments), leaving the
   * block's other lines and comments as they are; adds the block when there is none.
   */
  setInBlock(blockName: string, name: string, args: string[]): void {
    const rendered = directive(name, args);
    const st = this.find((s) => s.name === blockName && s.children !== undefined && s.args.length === 0);
    if (!st) {
      this.append(blockName, block(blockName, [], [rendered]));
      return;
    }
    const child = st.children!.find((c) => c.name === name);
    if (child) {
      this.replace(child, rendered);
      return;
    }
    const close = st.closeAt!;
    const ls = lineStart(this.text, close);
    // `}` alone on its line: the new line goes above it, indented one step inside the block.
    if (/^[ \t]*$/.test(this.text.slice(ls, close))) {
      this.text =
        this.text.slice(0, ls) + indentOf(this.text, st.start) + INDENT + rendered + '\n' + this.text.slice(ls);
    } else {
      this.text = this.text.slice(0, close) + rendered + ' ' + this.text.slice(close);
    }
  }

  /** Replaces (or adds, or removes with null) a whole top-level block chosen by name and first argument. */
  setBlock(name: string, args: string[], children: string[] | null): void {
    const st = this.find((s) => s.name === name && (args.length === 0 || s.args[0]?.value === args[0]));
    if (children === null) {
      if (st) this.remove(st);
      return;
    }
    const rendered = block(name, args, children);
    if (st) this.replace(st, rendered);
    else this.append(name, rendered);
  }
}
