import { io, type Socket } from 'socket.io-client';
import WebSocket from 'ws';

/** What the server answered to one message: its event and data. */
export interface WsReply {
  event: string;
  data: unknown;
}

/** One connection to the demo's gateway, whichever adapter serves it. */
export interface WsTestClient {
  send(event: string, data?: unknown): void;
  /** Resolves with the next `count` replies (events and `exception`s), in arrival order. */
  replies(count: number): Promise<WsReply[]>;
  connected(): boolean;
  close(): void;
}

/** Collects replies and wakes the waiter once it has as many as asked for. */
class ReplyQueue {
  private readonly received: WsReply[] = [];
  private waiter?: { count: number; resolve: (replies: WsReply[]) => void };

  push(reply: WsReply): void {
    this.received.push(reply);
    this.wake();
  }

  take(count: number): Promise<WsReply[]> {
    return new Promise((resolve) => {
      this.waiter = { count, resolve };
      this.wake();
    });
  }

  private wake(): void {
    if (this.waiter && this.received.length >= this.waiter.count) {
      const { count, resolve } = this.waiter;
      this.waiter = undefined;
      resolve(this.received.splice(0, count));
    }
  }
}

export async function connectSocketIo(url: string, forwardedFor: string): Promise<WsTestClient> {
  const socket: Socket = io(url, {
    path: '/ws',
    transports: ['websocket'],
    extraHeaders: { 'X-Forwarded-For': forwardedFor },
    reconnection: false,
  });
  const queue = new ReplyQueue();
  socket.onAny((event: string, data: unknown) => queue.push({ event, data }));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  return {
    send: (event, data) => socket.emit(event, data),
    replies: (count) => queue.take(count),
    connected: () => socket.connected,
    close: () => socket.close(),
  };
}

export async function connectWs(url: string): Promise<WsTestClient> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`);
  const queue = new ReplyQueue();
  socket.on('message', (raw) => queue.push(JSON.parse(String(raw)) as WsReply));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    send: (event, data) => socket.send(JSON.stringify({ event, data })),
    replies: (count) => queue.take(count),
    connected: () => socket.readyState === WebSocket.OPEN,
    close: () => socket.close(),
  };
}
