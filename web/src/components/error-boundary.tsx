import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** What the item is, for the sentence: "event", "widget", "page", "section". */
  what?: string;
  /** The item's id, shown so an operator can report it. */
  id?: string | null;
  /** Changes of this value (a new page path, a new event id) give the item a fresh try. */
  resetKey?: unknown;
  /** Shown in the compact form inside a list row. */
  inline?: boolean;
  children: ReactNode;
}

interface State {
  failed: boolean;
  resetKey: unknown;
}

/**
 * A piece of the console that failed to render is replaced by a sentence and a way to try again;
 * the navigation and the rest of the page stay. One bad datum (an unexpected shape from a newer
 * plane, a producer's odd payload) must never blank the whole application.
 */
export class ErrorBoundary extends Component<Props, State> {
  state: State = { failed: false, resetKey: this.props.resetKey };

  static getDerivedStateFromError(): Partial<State> {
    return { failed: true };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    // A new item in the same place (the next event, another page) is rendered afresh.
    return Object.is(props.resetKey, state.resetKey) ? null : { failed: false, resetKey: props.resetKey };
  }

  componentDidCatch(error: unknown, info: ErrorInfo): void {
    // Kept for the developer's console; the operator sees the sentence.
    console.warn(
      `Argus: a ${this.props.what ?? 'item'} could not be shown`,
      this.props.id ?? '',
      error,
      info.componentStack,
    );
  }

  render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    const what = this.props.what ?? 'item';
    const Tag = this.props.inline ? 'span' : 'div';
    return (
      <Tag className="item-failed" role="alert" data-failed={what}>
        This item could not be shown ({what}
        {this.props.id ? (
          <>
            {' '}
            <code>{this.props.id}</code>
          </>
        ) : null}
        ).{' '}
        <button type="button" className="link" onClick={() => this.setState({ failed: false })}>
          Try again
        </button>
      </Tag>
    );
  }
}
