// A run's menu on the board: the actions its capabilities allow (lib/boardActions.ts),
// opened from the card's ⋯ button or with `m` on the cursor's run. The menu floats over
// the list (fixed position, in document.body: inside the virtual list, its transformed
// window and the scroller would place and clip it). A closed
// menu is only its button: every row has one, and a fast scroll renders many rows.

import type { RefObject } from 'preact';
import { createPortal } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { boardActionLabel, cardActions, type BoardAction } from '../../lib/boardActions';
import type { RunSummary } from '../../lib/types';

interface Props {
  run: RunSummary;
  open: boolean;
  busy: boolean;
  onOpen: (open: boolean) => void;
  onAction: (a: BoardAction, run: RunSummary) => void;
}

export function CardMenu(props: Props) {
  const button = useRef<HTMLButtonElement>(null);
  const { open, onOpen } = props;
  return (
    <>
      <button
        ref={button}
        class="icon card-menu-button"
        data-testid="card-menu"
        aria-haspopup="menu"
        aria-expanded={open}
        title="Actions"
        onClick={(e) => {
          e.preventDefault();
          e.stopPropagation();
          onOpen(!open);
        }}
      >
        ⋯
      </button>
      {open && <MenuPopup {...props} button={button} />}
    </>
  );
}

function MenuPopup({ run, busy, onOpen, onAction, button }: Props & { button: RefObject<HTMLButtonElement | null> }) {
  const pop = useRef<HTMLDivElement>(null);
  const [at, setAt] = useState<{ top: number; left: number } | null>(null);
  const actions = cardActions(run);

  // Under the button (above it near the bottom of the window), kept inside the window.
  const place = () => {
    if (!button.current) return;
    const r = button.current.getBoundingClientRect();
    const width = 150;
    const height = 34 * Math.max(1, actions.length) + 8;
    const below = r.bottom + height < window.innerHeight;
    setAt({ top: below ? r.bottom + 2 : Math.max(4, r.top - height - 2), left: Math.max(4, Math.min(window.innerWidth - width - 4, r.right - width)) });
  };
  useLayoutEffect(place, []);

  useEffect(() => {
    if (!at) return;
    pop.current?.querySelector<HTMLButtonElement>('button')?.focus();
    const outside = (e: MouseEvent) => {
      const t = e.target as Node;
      if (!pop.current?.contains(t) && !button.current?.contains(t)) onOpen(false);
    };
    // A scroll moves the button: the menu follows it, and closes when it leaves the window.
    const scrolled = () => {
      const r = button.current?.isConnected ? button.current.getBoundingClientRect() : null;
      if (!r || r.bottom < 0 || r.top > window.innerHeight) onOpen(false);
      else place();
    };
    document.addEventListener('mousedown', outside);
    document.addEventListener('scroll', scrolled, true);
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('scroll', scrolled, true);
    };
  }, [at !== null]);

  // The menu's own keys (arrows, Esc) stay in the menu: the board does not move under it.
  const onKey = (e: KeyboardEvent) => {
    const items = Array.from(pop.current?.querySelectorAll<HTMLButtonElement>('button') ?? []);
    const i = items.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === 'ArrowDown' || e.key === 'j') items[(i + 1) % items.length]?.focus();
    else if (e.key === 'ArrowUp' || e.key === 'k') items[(i - 1 + items.length) % items.length]?.focus();
    else if (e.key === 'Escape') {
      onOpen(false);
      button.current?.focus();
    } else {
      // Enter, space and Tab do what they do on a button; other keys are not the board's either.
      e.stopPropagation();
      return;
    }
    e.preventDefault();
    e.stopPropagation();
  };

  if (!at) return null;
  return createPortal(
    <div ref={pop} class="card-menu" role="menu" data-testid="card-menu-popup" style={{ top: `${at.top}px`, left: `${at.left}px` }} onKeyDown={onKey}>
      {actions.length === 0 && <div class="muted small card-menu-none">Nothing to do now</div>}
      {actions.map((a) => (
        <button
          role="menuitem"
          data-testid={'card-action-' + a}
          class={a === 'abort' ? 'danger' : a === 'start' || a === 'resume' ? 'primary' : ''}
          disabled={busy}
          onClick={() => {
            onOpen(false);
            onAction(a, run);
          }}
        >
          {boardActionLabel(a)}
        </button>
      ))}
    </div>,
    document.body,
  );
}
