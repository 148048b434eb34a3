// The composer's "Attach…" button: a file picker for the files that go with the message
// (drops land on the whole composer instead).

import { useRef } from 'preact/hooks';

export function ComposerFilePicker({ disabled, onAdd }: { disabled: boolean; onAdd: (files: File[]) => void }) {
  const picker = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        data-testid="composer-file-input"
        onChange={(e) => {
          const input = e.currentTarget as HTMLInputElement;
          onAdd(Array.from(input.files ?? []));
          input.value = '';
        }}
      />
      <button type="button" data-testid="composer-attach" disabled={disabled} onClick={() => picker.current?.click()} title="Attach files (or drop them on the composer)">
        Attach…
      </button>
    </>
  );
}
