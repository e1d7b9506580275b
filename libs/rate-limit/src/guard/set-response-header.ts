/** A response of Express (`setHeader`) or Fastify (`header`). */
export interface HeaderWriter {
  setHeader?(name: string, value: string): unknown;
  header?(name: string, value: string): unknown;
}

export function setResponseHeader(response: HeaderWriter, name: string, value: string): void {
  if (response.setHeader) response.setHeader(name, value);
  else response.header?.(name, value);
}
