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
  const gzip = body === asset.body && asset.gzipped && /\bgzip\b/.test(acceptEncoding ?? '');
  setResponseHeader(response, 'Content-Type', asset.type);
  setResponseHeader(
    response,
    'Cache-Control',
    asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  );
  setResponseHeader(response, 'Content-Security-Policy', CSP);
  setResponseHeader(response, 'X-Content-Type-Options', 'nosniff');
  setResponseHeader(response, 'Referrer-Policy', 'no-referrer');
  setResponseHeader(response, 'Vary', 'Accept-Encoding');
  if (gzip) setResponseHeader(response, 'Content-Encoding', 'gzip');
  const sent = gzip ? asset.gzipped! : body;
  return new StreamableFile(sent, { type: asset.type, length: sent.length });
}
