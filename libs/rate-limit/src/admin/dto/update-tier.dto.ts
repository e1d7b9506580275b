import { CountField, WindowField, WindowMsField } from './threshold-fields';

/**
 * Body of `PATCH /admin/policies/:name/tiers/:tier`: the tier's thresholds to change; absent
 * fields keep their value. At least one field is required; unknown fields are rejected. The
 * algorithm, mode and penalty are the policy's: change them on the policy.
 * @publicApi
 */
export class UpdateTierDto {
  @CountField("Units per window for the tier's clients (with the policy's algorithm).", 1000)
  limit?: number;

  @WindowField(
    "The tier's window as a duration ('500ms', '10s', '5m', '1h', '1d') or a number of ms; " +
      'whole milliseconds from 1 ms to 366 days. If `windowMs` is sent too, both must agree.',
    '1m',
    60_000,
  )
  window?: string | number;

  @WindowMsField("The tier's window in milliseconds (alternative to `window`).", 60_000)
  windowMs?: number;

  @CountField(
    'Capacity for token-bucket, leaky-bucket and GCRA (ignored by window algorithms); ' +
      "never set, it is the declared one, else the tier's limit.",
    2000,
  )
  burst?: number;
}
