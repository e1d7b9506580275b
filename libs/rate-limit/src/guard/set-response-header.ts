import type { HeaderWriter } from '../context/context-request';

export type { HeaderWriter };

export function setResponseHeader(response: HeaderWriter, name: string, value: string): void {
  if (response.setHeader) response.setHeader(name, value);
  else response.header?.(name, value);
}
