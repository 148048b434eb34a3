// The run's composer: the message to start, resume or queue with, the files that go
// with it, the history the arrow keys walk and a reconfigure section. A send makes its
// requests in order (lib/composer.ts sendPlan): reset/reconfigure/backend session, then
// the uploads, then the message; the first refusal stops it and is shown here.

import { useMemo, useState } from 'preact/hooks';
import { api, ApiError, errorText } from '../../../lib/api';
import { historyStep, loadComposerStore, messageHistory, rememberSent, saveDraft, sendPlan, type SendStep } from '../../../lib/composer';
import { sendLabel, sendModes, type SendMode } from '../../../lib/runActions';
import type { RunDetail } from '../../../lib/types';
import { uploadAttachment, type Uploader } from '../../../lib/upload';
import { useComposerReconfigure } from '../../../lib/useComposerReconfigure';
import { usePendingUploads } from '../../../lib/usePendingUploads';
import { ComposerAttachments } from './ComposerAttachments';
import { ComposerFilePicker } from './ComposerFilePicker';
import { ComposerModeToggle } from './ComposerModeToggle';
import { ComposerReconfigure } from './ComposerReconfigure';

interface Props {
  run: RunDetail;
  onRun: (r: RunDetail) => void;
  /** How files are uploaded (tests hand in their own). */
  upload?: Uploader;
}

const enc = encodeURIComponent;

/** One run's composer; its state belongs to that run (the run view is keyed by the run's id). */
export function Composer({ run, onRun, upload = uploadAttachment }: Props) {
  const runId = run.runId;
  const modes = sendModes(run);
  const [chosen, setChosen] = useState<SendMode | null>(null);
  // The mode picked, while the run takes it; else the one its state suggests.
  const mode = chosen && modes.allowed.includes(chosen) ? chosen : modes.preferred;
  const [text, setText] = useState(() => loadComposerStore(runId).draft);
  const [sent, setSent] = useState(() => loadComposerStore(runId).sent);
  const [historyIndex, setHistoryIndex] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<string | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [dragging, setDragging] = useState(false);
  const files = usePendingUploads(runId);
  const re = useComposerReconfigure(run);

  const history = useMemo(() => messageHistory(run, sent), [run.message, run.sessions, run.queuedResumeMessages, sent]);
  const edit = (t: string) => {
    setText(t);
    setHistoryIndex(null);
    saveDraft(runId, t);
  };

  const post = async (step: SendStep) => {
    setProgress(`${step.what}…`);
    const res = await api(`api/runs/${enc(runId)}/${step.path}`, { method: 'POST', body: step.body });
    if (res?.run) onRun(res.run);
  };

  const send = async () => {
    if (busy || !mode) return;
    const collected = re.collect();
    re.setVarErrors(collected.errors);
    const varErrors = Object.values(collected.errors);
    const plan = sendPlan(run, mode, text, collected.input);
    const all = [...varErrors, ...('errors' in plan ? plan.errors : [])];
    setErrors(all);
    if (all.length || 'errors' in plan) return;
    setBusy(true);
    try {
      for (const step of plan.before) await post(step);
      if (files.files.length) {
        setProgress('uploading the attachments…');
        if (!(await files.uploadAll(upload))) {
          setErrors(['An attachment could not be uploaded: the message was not sent. Remove it or try again.']);
          return;
        }
      }
      await post(plan.send);
      setSent(rememberSent(runId, text).sent);
      setText('');
      setHistoryIndex(null);
      files.clear();
      re.setOpen(false);
      setChosen(null);
    } catch (e) {
      setErrors([envelopeText(e)]);
      // A var the daemon refused is marked at its field too.
      if (e instanceof ApiError && typeof e.details.field === 'string' && e.details.field.startsWith('vars.'))
        re.setVarErrors({ [e.details.field.slice(5)]: e.message });
    } finally {
      setBusy(false);
      setProgress(null);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      send();
      return;
    }
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    // Only an empty composer, or one showing a history entry as it was, walks the history.
    const walking = historyIndex !== null && text === history[historyIndex];
    if (!walking && text !== '') return;
    if (e.key === 'ArrowDown' && !walking) return;
    e.preventDefault();
    const step = historyStep(history, walking ? historyIndex : null, e.key === 'ArrowUp' ? 'up' : 'down');
    setHistoryIndex(step.index);
    setText(step.text);
  };

  if (modes.allowed.length === 0 && !files.files.length && !text)
    return (
      <div class="composer composer-off muted small" data-testid="composer" data-mode="">
        {run.archived ? 'Archived: unarchive the run to send it a message.' : `No message can be sent now (${modes.why.resume}).`}
      </div>
    );

  const placeholder =
    mode === 'queue'
      ? 'Queue a follow-up for when this session ends…'
      : modes.starts
        ? 'Message to start with (optional)…'
        : 'Message to resume with (optional)…';
  return (
    <div
      class={'composer' + (dragging ? ' dragging' : '')}
      data-testid="composer"
      data-mode={mode ?? ''}
      onDragOver={(e) => {
        if (!e.dataTransfer?.types.includes('Files')) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        setDragging(false);
        const dropped = Array.from(e.dataTransfer?.files ?? []);
        if (!dropped.length) return;
        e.preventDefault();
        files.add(dropped);
      }}
    >
      <div class="composer-top">
        <ComposerModeToggle modes={modes} mode={mode} onMode={setChosen} />
        <span class="muted small composer-hint">
          {history.length > 0 ? '↑/↓ history · ' : ''}Ctrl/⌘+Enter sends · drop files here
        </span>
      </div>
      <textarea
        data-testid="composer-input"
        class="composer-input"
        rows={2}
        placeholder={placeholder}
        value={text}
        disabled={busy}
        onInput={(e) => edit((e.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={onKeyDown}
      />
      <ComposerAttachments files={files.files} disabled={busy} onRemove={files.remove} />
      <ComposerReconfigure run={run} state={re} queueing={mode === 'queue'} />
      {errors.length > 0 && (
        <div class="error" role="alert" data-testid="composer-error">
          {errors.map((m) => (
            <div>{m}</div>
          ))}
        </div>
      )}
      <div class="buttons composer-bar">
        <ComposerFilePicker disabled={busy} onAdd={files.add} />
        <button type="button" data-testid="composer-reconfigure-toggle" aria-expanded={re.open} class={re.open ? 'selected' : ''} onClick={() => re.setOpen(!re.open)}>
          Reconfigure {re.open ? '▾' : '▸'}
        </button>
        <span class="spacer" />
        {progress && (
          <span class="muted small" data-testid="composer-progress">
            {progress}
          </span>
        )}
        <button type="button" class="primary" data-testid="composer-send" disabled={busy || !mode} onClick={send}>
          {mode ? sendLabel(mode, modes.starts) : 'Send'}
        </button>
      </div>
    </div>
  );
}

/** The envelope's message, with the field it names when there is one. */
function envelopeText(e: unknown): string {
  if (e instanceof ApiError && typeof e.details.field === 'string' && !e.message.includes(e.details.field)) return `${e.message} (${e.details.field})`;
  return errorText(e);
}
