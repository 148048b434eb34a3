// The composer's "reconfigure" section (opened from its bar): what the API lets a resume change.
// Vars and the run's message change only before a run's first session (reconfigure);
// a run that ran is reset first to take them (its sessions and timeline go). A passive
// run's backend session id can be set or cleared. Vars are checked as the new-run form
// checks them (VarFields, lib/vars.ts).

import { errorText } from '../../../lib/api';
import type { RunDetail } from '../../../lib/types';
import type { ComposerReconfigure as State } from '../../../lib/useComposerReconfigure';
import { VarFields } from '../../new-run/VarFields';

interface Props {
  run: RunDetail;
  state: State;
  /** The message is queued: nothing here applies until the run ends. */
  queueing: boolean;
}

export function ComposerReconfigure({ run, state, queueing }: Props) {
  const c = run.capabilities ?? {};
  const varsEditable = !!c.canReconfigure || (!!c.canReset && state.resetFirst);
  const hasVars = Object.keys(state.specs).length > 0;
  if (!state.open) return null;
  return (
    <section class="composer-reconfigure" data-testid="composer-reconfigure" aria-label="Reconfigure">
          {queueing && <p class="muted small">The run is running: a queued message changes nothing here. Reconfigure it once it ends.</p>}
          {!queueing && !c.canReconfigure && c.canReset && (
            <label class="check" title="Vars and the message change only before a run's first session">
              <input
                type="checkbox"
                data-testid="composer-reset-first"
                checked={state.resetFirst}
                onChange={(e) => state.setResetFirst((e.currentTarget as HTMLInputElement).checked)}
              />
              <span>Reset first, then start over with these vars and message (its sessions and timeline are dropped; the audit trail stays)</span>
            </label>
          )}
          {!queueing && !c.canReconfigure && !c.canReset && (
            <p class="muted small">{c.reconfigureReason || 'Vars and the message change only before the run first starts.'}</p>
          )}
          <fieldset class="composer-reconfigure-fields" disabled={queueing || !varsEditable}>
            {state.specsLoading && <div class="muted small">Loading the vars of {run.assignment}…</div>}
            {state.specsError !== null && state.specsError !== undefined && (
              <div class="error small">The vars' types could not be loaded: {errorText(state.specsError)}</div>
            )}
            {hasVars && <VarFields specs={state.specs} values={state.vars} errors={state.varErrors} onChange={state.setVars} />}
            {!run.assignment && <div class="muted small">No assignment: the run has no vars.</div>}
            <label>
              <span>
                The run's message{' '}
                <small class="muted">(left as it is, it is rendered again from the assignment with the new vars; edited, it is sent as written)</small>
              </span>
              <textarea data-testid="composer-run-message" rows={3} value={state.message} onInput={(e) => state.setMessage((e.currentTarget as HTMLTextAreaElement).value)} />
            </label>
          </fieldset>
          {c.canSetBackendSession && (
            <label>
              <span>Backend session id (empty: none)</span>
              <input
                data-testid="composer-backend-session"
                value={state.backendSession}
                disabled={queueing}
                onInput={(e) => state.setBackendSession((e.currentTarget as HTMLInputElement).value)}
              />
            </label>
          )}
    </section>
  );
}
