import { StreamableFile } from '@nestjs/common';
import { setResponseHeader, type HeaderWriter } from '../../guard/set-response-header';
import type { DashboardAsset } from './dashboard-assets';

/**
 * The page loads nothing but its own files and talks to its own origin; uPlot sets inline
 * styles, hence 'unsafe-inline' for styles only.
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'";

/** Sends a built file (gzipped when the client takes it), with headers for either platform. */
export function sendAsset(
  response: HeaderWriter,
  asset: DashboardAsset,
  acceptEncoding: string | undefined,
  body: Buffer = asset.body,
): StreamableFile {
  const gzip = body === asset.body && asset.gzipped && acceptsGzip(acceptEncoding);
  setResponseHeader(response, 'Content-Type', asset.type);
  setResponseHeader(
    response,
    'Cache-Control',
    // The page is made per request (its base path): never kept by a shared cache.
    asset.immutable ? 'public, max-age=31536000, immutable' : 'no-store',
  );
  setResponseHeader(response, 'Content-Security-Policy', CSP);
  setResponseHeader(response, 'X-Content-Type-Options', 'nosniff');
  setResponseHeader(response, 'Referrer-Policy', 'no-referrer');
  setResponseHeader(response, 'Vary', 'Accept-Encoding');
  if (gzip) setResponseHeader(response, 'Content-Encoding', 'gzip');
  const sent = gzip ? asset.gzipped! : body;
  return new StreamableFile(sent, { type: asset.type, length: sent.length });
}

/**
 * Whether the client takes gzip (RFC 9110 section 12.5.3): `gzip`, `x-gzip` or `*`, in any
 * case, unless its weight is 0; an explicit `gzip;q=0` wins over `*`.
 */
export function acceptsGzip(header: string | undefined): boolean {
  let wildcard = false;
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)).find(Boolean);
    const accepted = !q || Number(q[1]) > 0;
    if (name === 'gzip' || name === 'x-gzip') return accepted;
    if (name === '*') wildcard = accepted;
  }
  return wildcard;
}
