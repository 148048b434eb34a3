// Resume now or queue: two toggle buttons; the one the run does not take now is disabled
// and says why (sendModes in lib/runActions.ts holds the rules).

import { sendLabel, type SendMode, type SendModes } from '../../../lib/runActions';

interface Props {
  modes: SendModes;
  mode: SendMode | null;
  onMode: (m: SendMode) => void;
}

export function ComposerModeToggle({ modes, mode, onMode }: Props) {
  const option = (m: SendMode) => {
    const allowed = modes.allowed.includes(m);
    return (
      <button
        type="button"
        role="radio"
        aria-checked={mode === m}
        data-testid={`composer-mode-${m}`}
        class={mode === m ? 'selected' : ''}
        disabled={!allowed}
        title={allowed ? (m === 'queue' ? 'Deliver it when the running session ends' : 'Start a session with it now') : modes.why[m] ?? ''}
        onClick={() => onMode(m)}
      >
        {m === 'queue' ? 'Queue' : `${sendLabel('resume', modes.starts)} now`}
      </button>
    );
  };
  return (
    <div class="composer-mode" role="radiogroup" aria-label="Send the message" data-testid="composer-mode">
      {option('resume')}
      {option('queue')}
    </div>
  );
}
