// The checkbox that adds a run to the board's selection; shift-click adds the range
// from the run picked last.

interface Props {
  runId: string;
  picked: boolean;
  onPick: (runId: string, range: boolean) => void;
}

export function PickBox({ runId, picked, onPick }: Props) {
  return (
    <input
      type="checkbox"
      class="pick"
      data-testid="run-pick"
      aria-label={'Select ' + runId}
      checked={picked}
      onClick={(e) => {
        e.stopPropagation();
        onPick(runId, e.shiftKey);
      }}
    />
  );
}
