/**
 * Fails at once, naming what to install, when an entry point's optional peers are missing: the
 * core needs none of them, so npm does not install them unless asked. Runs before the entry
 * point's own imports, which would fail on the first missing package with a stack of internals.
 */
export function requirePeers(entryPoint: string, peers: readonly string[]): void {
  const missing = peers.filter((peer) => !installed(peer));
  if (missing.length === 0) return;
  throw new Error(
    `${entryPoint} needs ${missing.join(', ')}, which ${missing.length > 1 ? 'are' : 'is'} not ` +
      `installed: npm install ${missing.join(' ')}`,
  );
}

function installed(peer: string): boolean {
  try {
    require.resolve(`${peer}/package.json`);
    return true;
  } catch {
    // Some packages do not export their package.json: their entry resolving is enough.
    try {
      require.resolve(peer);
      return true;
    } catch {
      return false;
    }
  }
}
