// A unified patch, coloured line by line (lib/patch.ts says which line is what).

import { patchLineClass, patchLines } from '../../lib/patch';

export function Patch({ text, testid }: { text: string; testid?: string }) {
  return (
    <pre class="patch" data-testid={testid}>
      {patchLines(text).map((l) => (
        <span class={patchLineClass(l)}>{l + '\n'}</span>
      ))}
    </pre>
  );
}
