// The token prompt of a daemon with auth on; the token is kept for the tab (sessionStorage).

import { useState } from 'preact/hooks';

export function TokenPrompt({ error, onToken }: { error: string | null; onToken: (t: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <div class="token-page">
      <form
        class="form token-form"
        data-testid="token-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) onToken(value.trim());
        }}
      >
        <h1>agentry</h1>
        <p class="muted">This daemon requires its access token (AGENTRY_DAEMON_TOKEN). It is kept for this tab only.</p>
        <label>
          <span>Token</span>
          <input name="token" type="password" autoComplete="off" autoFocus value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
        </label>
        {error && (
          <div class="error" data-testid="token-error" role="alert">
            {error}
          </div>
        )}
        <button type="submit" class="primary">
          Connect
        </button>
      </form>
    </div>
  );
}
