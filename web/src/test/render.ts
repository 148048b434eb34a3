// Component tests: render a Preact tree into happy-dom's document and let its effects run.
// A test file opts in with `// @vitest-environment happy-dom` on its first line.

import type { ComponentChild } from 'preact';
import { render } from 'preact';
import { act } from 'preact/test-utils';

export interface Mounted {
  root: HTMLElement;
  /** Elements matching `selector`, in document order. */
  all(selector: string): HTMLElement[];
  /** The one element with data-testid=`id`; throws when there is none. */
  byTestId(id: string): HTMLElement;
  unmount(): void;
}

export async function mount(tree: ComponentChild): Promise<Mounted> {
  const root = document.createElement('div');
  document.body.appendChild(root);
  await act(() => {
    render(tree, root);
  });
  const all = (selector: string) => Array.from(root.querySelectorAll<HTMLElement>(selector));
  return {
    root,
    all,
    byTestId(id) {
      const found = root.querySelector<HTMLElement>(`[data-testid="${id}"]`);
      if (!found) throw new Error(`no element with data-testid="${id}" in: ${root.innerHTML.slice(0, 500)}`);
      return found;
    },
    unmount() {
      render(null, root);
      root.remove();
    },
  };
}

/** Clicks `element` and waits for the updates it causes. */
export async function click(element: Element): Promise<void> {
  await act(() => {
    (element as HTMLElement).click();
  });
}

/** Types `value` into an input or textarea the way a user's keystrokes end up. */
export async function type(element: Element, value: string): Promise<void> {
  await act(() => {
    const input = element as HTMLInputElement;
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}
