import type { INestApplication } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';

export type WsAdapterName = 'socket.io' | 'ws';

/** socket.io is Nest's default; `ws` is the plain WebSocket adapter. Call before init(). */
export function useDemoWsAdapter(app: INestApplication, adapter: WsAdapterName): void {
  if (adapter === 'ws') app.useWebSocketAdapter(new WsAdapter(app));
}
