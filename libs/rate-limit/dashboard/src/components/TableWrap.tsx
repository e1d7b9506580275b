import type { ComponentChildren } from 'preact';

/**
 * Wide tables scroll sideways on phones. The scroller is focusable so keyboard users can
 * scroll it too, and named so screen readers announce what it holds.
 */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
