// Whether the event streams are live or reconnecting, in the top bar.

import { useEffect, useState } from 'preact/hooks';
import { connectionState, onConnectionState } from '../../lib/api';

export function ConnectionState() {
  const [s, setS] = useState(connectionState());
  useEffect(() => onConnectionState(setS), []);
  return (
    <span class={'conn conn-' + s} data-testid="connection-state" title="event streams">
      {s}
    </span>
  );
}
