import { describe, expect, it } from 'vitest';
import { TimelineModel, type TimelineEvent } from './timeline';

let at = 0;
function ev(kind: string, cursor: number | null, payload: Record<string, any>, attemptNumber = 1): TimelineEvent {
  return { cursor, kind, attemptNumber, at: `2026-12-01T00:00:0${at++ % 10}Z`, payload, ...(cursor === null ? { ephemeral: true } : {}) };
}

describe('TimelineModel', () => {
  it('coalesces message deltas into one message that the completed event finishes', () => {
    const m = new TimelineModel();
    m.apply(ev('attempt.started', 1, { attemptNumber: 1, sessionIndex: 0 }));
    for (const t of ['Hel', 'lo ', 'world']) m.apply(ev('message.delta', null, { text: t, itemId: 'm1' }));
    expect(m.count).toBe(2);
    expect(m.items[1]).toMatchObject({ kind: 'message', text: 'Hello world', done: false, cursor: null });
    m.apply(ev('message.completed', 2, { text: 'Hello world', itemId: 'm1', role: 'assistant' }));
    expect(m.count).toBe(2);
    expect(m.items[1]).toMatchObject({ kind: 'message', text: 'Hello world', done: true, cursor: 2 });
    // A late delta of a finished message changes nothing.
    m.apply(ev('message.delta', null, { text: 'x', itemId: 'm1' }));
    expect(m.items[1].text).toBe('Hello world');
  });

  it('keeps messages of different items and attempts apart, also without itemId', () => {
    const m = new TimelineModel();
    m.apply(ev('message.delta', null, { text: 'a' }));
    m.apply(ev('message.completed', 1, { text: 'ab' }));
    m.apply(ev('message.delta', null, { text: 'c' }));
    m.apply(ev('message.completed', 2, { text: 'cd' }));
    m.apply(ev('message.completed', 3, { text: 'x', itemId: 'i' }, 1));
    m.apply(ev('message.completed', 4, { text: 'y', itemId: 'i' }, 2));
    expect(m.items.map((i) => [i.kind, i.text, i.cursor])).toEqual([
      ['message', 'ab', 1],
      ['message', 'cd', 2],
      ['message', 'x', 3],
      ['message', 'y', 4],
    ]);
  });

  it('completes an open message whose deltas named it otherwise', () => {
    const m = new TimelineModel();
    m.apply(ev('message.delta', null, { text: 'Hi ' }));
    m.apply(ev('message.delta', null, { text: 'there' }));
    m.apply(ev('message.completed', 3, { text: 'Hi there', itemId: 'msg_1' }));
    m.apply(ev('message.delta', null, { text: 'Ne', itemId: 'd2' }));
    m.apply(ev('message.completed', 4, { text: 'Next' }));
    expect(m.items.map((i) => [i.text, i.cursor, i.done])).toEqual([
      ['Hi there', 3, true],
      ['Next', 4, true],
    ]);
  });

  it('folds tool started, output deltas and completed into one tool item', () => {
    const m = new TimelineModel();
    m.apply(ev('tool.started', 5, { toolCallId: 't1', tool: 'command', command: 'ls' }));
    m.apply(ev('tool.output.delta', null, { toolCallId: 't1', text: 'a\n' }));
    expect(m.items[0]).toMatchObject({ kind: 'tool', text: 'a\n', done: false, cursor: 5 });
    m.apply(ev('tool.completed', 6, { toolCallId: 't1', tool: 'command', status: 'completed', output: 'a\nb\n', exitCode: 0 }));
    expect(m.count).toBe(1);
    expect(m.items[0]).toMatchObject({ kind: 'tool', text: 'a\nb\n', done: true, cursor: 6 });
    expect(m.items[0].payload).toMatchObject({ command: 'ls', exitCode: 0, status: 'completed' });
  });

  it('marks file-change tools and diffs as file_change', () => {
    const m = new TimelineModel();
    m.apply(ev('tool.started', 1, { toolCallId: 't', tool: 'file_change', path: 'a.txt' }));
    m.apply(ev('tool.completed', 2, { toolCallId: 't', tool: 'file_change', status: 'completed' }));
    m.apply(ev('diff', 3, { diff: '--- a\n+++ b\n' }));
    m.apply(ev('diff', 4, { diff: '--- a\n+++ c\n' }));
    expect(m.items.map((i) => [i.kind, i.cursor])).toEqual([
      ['file_change', 2],
      ['file_change', 4],
    ]);
    expect(m.items[1].text).toContain('+++ c');
  });

  it('coalesces reasoning deltas and keeps other kinds one item per event', () => {
    const m = new TimelineModel();
    m.apply(ev('reasoning.delta', null, { text: 'thin', itemId: 'r' }));
    m.apply(ev('reasoning.delta', null, { text: 'king', itemId: 'r' }));
    m.apply(ev('reasoning', 1, { text: 'thinking', itemId: 'r' }));
    m.apply(ev('notice', 2, { level: 'info', message: 'n' }));
    m.apply(ev('approval.request', 3, { approvalId: 'a1', summary: 'rm?' }));
    m.apply(ev('usage', 4, { inputTokens: 1 }));
    m.apply(ev('usage', 5, { inputTokens: 2 }));
    m.apply(ev('plan', 6, { steps: [{ step: 's', status: 'pending' }] }));
    m.apply(ev('attempt.finished', 7, { outcome: 'success' }));
    m.apply(ev('run.finished', 8, { status: 'success', reason: '' }));
    m.apply(ev('something.new', 9, {}));
    expect(m.items.map((i) => i.kind)).toEqual(['reasoning', 'notice', 'approval', 'usage', 'plan', 'attempt', 'session', 'other']);
    expect(m.items[0].text).toBe('thinking');
    expect(m.items[3].payload.inputTokens).toBe(2);
    expect(m.items[3].cursor).toBe(5);
  });

  it('after a reconnect, the merged text-so-far replaces what an open message had', () => {
    const m = new TimelineModel();
    m.apply(ev('message.delta', null, { text: 'Hel', itemId: 'm' }));
    m.resetOpenDeltas();
    m.apply(ev('message.delta', null, { text: 'Hello', itemId: 'm', conflated: true }));
    m.apply(ev('message.delta', null, { text: '!', itemId: 'm' }));
    expect(m.count).toBe(1);
    expect(m.items[0].text).toBe('Hello!');
  });

  it('keeps the text of an open message whose stream ended while disconnected', () => {
    const m = new TimelineModel();
    m.apply(ev('message.delta', null, { text: 'partial', itemId: 'm' }));
    m.resetOpenDeltas();
    m.apply(ev('run.finished', 9, { status: 'aborted' }));
    expect(m.items[0].text).toBe('partial');
  });

  it('applies a replayed durable event only once', () => {
    const m = new TimelineModel();
    m.apply(ev('notice', 1, { message: 'x' }));
    m.apply(ev('notice', 1, { message: 'x' }));
    expect(m.count).toBe(1);
  });
});
