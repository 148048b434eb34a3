// Live streams can deliver events faster than the page paints; views render at most once
// per animation frame, whatever number of events arrived in between.

type Schedule = (cb: () => void) => unknown;

/**
 * A function that asks for `render` on the next frame; calls before that frame has come
 * are folded into the one render. `schedule` is requestAnimationFrame unless a test gives
 * its own.
 */
export function frameBatcher(render: () => void, schedule: Schedule = (cb) => requestAnimationFrame(cb)): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    schedule(() => {
      scheduled = false;
      render();
    });
  };
}
