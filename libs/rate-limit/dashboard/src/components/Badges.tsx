import type { PolicyView } from '../types';

/** The states an operator must notice at a glance; text, not colour alone, carries them. */
export function Badges({ policy }: { policy: PolicyView }) {
  return (
    <span class="badges">
      {policy.override !== null && <span class="badge badge-override">override</span>}
      {policy.mode === 'shadow' && <span class="badge badge-shadow">shadow</span>}
      {!policy.enabled && <span class="badge badge-disabled">disabled</span>}
    </span>
  );
}
