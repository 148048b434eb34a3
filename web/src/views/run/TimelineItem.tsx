// One timeline item: its attempt in the gutter, and a body by kind (message, tool call
// with its output, task, approval, session boundary, notice, ...).

import { time } from '../../lib/format';
import type { TimelineItem } from '../../lib/timeline';
import { copyWithFeedback, Markdown } from '../Markdown';
import { Patch } from './Patch';

export function TimelineItemView({ item: it }: { item: TimelineItem }) {
  return (
    <div class={'tl-item tl-' + it.kind} data-testid="timeline-item" data-kind={it.kind} data-cursor={it.cursor ?? ''}>
      <div class="tl-gutter muted" title={time(it.at)}>
        {it.attempt !== null ? `#${it.attempt}` : ''}
      </div>
      <div class="tl-body">{body(it)}</div>
    </div>
  );
}

function levelClass(l: unknown): string {
  return l === 'error' ? 'error-text' : l === 'warning' ? 'warn-text' : 'muted';
}

function body(it: TimelineItem) {
  const p = it.payload ?? {};
  switch (it.kind) {
    case 'message':
      return (
        <div class="msg">
          <div class="msg-head">
            <span class="msg-role muted">{p.role ?? 'assistant'}</span>
            {it.text && (
              <button type="button" class="md-copy" data-testid="copy-message" title="Copy the message (Markdown)" aria-label="Copy the message"
                onClick={(e) => copyWithFeedback(e.currentTarget, it.text)} />
            )}
          </div>
          <Markdown text={it.text} testid="message-text" streaming={!it.done} />
        </div>
      );
    case 'reasoning':
      return (
        <details class="reasoning">
          <summary class="muted">reasoning{!it.done ? ' …' : ''}</summary>
          <div class="msg-text">{it.text}</div>
        </details>
      );
    case 'tool':
    case 'file_change': {
      if (it.eventKind === 'diff') {
        return (
          <details class="tool" open={false}>
            <summary>
              <span class="badge">diff</span> the attempt's changes{p.truncated ? ' (truncated)' : ''}
            </summary>
            <Patch text={it.text} />
          </details>
        );
      }
      const cmd = p.command ?? p.path ?? p.tool ?? 'tool';
      const exit = p.exitCode;
      const failed = p.status === 'failed' || (typeof exit === 'number' && exit !== 0);
      return (
        <details class="tool" open={!it.done}>
          <summary>
            <span class="badge">{p.tool ?? 'tool'}</span> <code class="cmd">{String(cmd)}</code>{' '}
            {it.done ? (
              <span class={failed ? 'error-text' : 'ok-text'}>
                {p.status ?? 'done'}
                {exit !== undefined && exit !== null ? ` · exit ${exit}` : ''}
              </span>
            ) : (
              <span class="muted">running…</span>
            )}
          </summary>
          {p.input !== undefined && p.input !== null && !p.command && <pre class="output">{typeof p.input === 'string' ? p.input : JSON.stringify(p.input, null, 2)}</pre>}
          {it.text && <pre class="output">{it.text}</pre>}
          {p.changes !== undefined && <pre class="output">{JSON.stringify(p.changes, null, 2)}</pre>}
        </details>
      );
    }
    case 'plan': {
      const steps: Array<{ step: string; status: string }> = Array.isArray(p.steps) ? p.steps : [];
      return (
        <div class="plan">
          <div class="muted">plan</div>
          {p.explanation && <div>{p.explanation}</div>}
          <ol>
            {steps.map((s) => (
              <li class={'plan-' + s.status}>
                {s.status === 'completed' ? '☑' : s.status === 'in_progress' ? '▶' : '☐'} {s.step}
              </li>
            ))}
          </ol>
        </div>
      );
    }
    case 'usage':
      return (
        <div class="muted small">
          usage:{' '}
          {Object.entries(p)
            .map(([k, v]) => `${k} ${v}`)
            .join(' · ')}
        </div>
      );
    case 'notice':
      return <div class={levelClass(p.level)}>{String(p.message ?? JSON.stringify(p))}</div>;
    case 'approval':
      return (
        <div>
          <span class="badge warn">approval</span> {String(p.summary ?? '')} <span class="muted">({String(p.kind ?? '')})</span>
        </div>
      );
    case 'attempt':
      return it.eventKind === 'attempt.started' ? (
        <div class="boundary">
          attempt {p.attemptNumber ?? it.attempt} started · session {p.sessionIndex ?? '?'}
          {p.attemptIndexInSession ? ` · retry ${p.attemptIndexInSession}` : ''} {p.backend ? ` · ${p.backend}` : ''}
          {p.prompt && (
            <details>
              <summary class="muted">nudge</summary>
              <div class="msg-text">{String(p.prompt)}</div>
            </details>
          )}
        </div>
      ) : (
        <div class="boundary">
          attempt finished: <span class={p.outcome === 'success' ? 'ok-text' : 'error-text'}>{String(p.outcome ?? '')}</span>
          {p.message ? ` — ${p.message}` : ''}
        </div>
      );
    case 'session':
      if (it.eventKind === 'run.finished')
        return (
          <div class="boundary strong">
            session ended: <span class={'st-text-' + p.status}>{String(p.status ?? '')}</span>
            {p.reason ? ` — ${p.reason}` : ''}
          </div>
        );
      if (it.eventKind === 'session.checkpoint') return <div class="muted small">checkpoint {String(p.resumeToken ?? '')}</div>;
      return <div class="boundary">session detached</div>;
    default:
      return (
        <div class="muted small">
          {it.eventKind} <code>{JSON.stringify(p).slice(0, 300)}</code>
        </div>
      );
  }
}

/** A unified patch with added, removed and hunk lines coloured. */
