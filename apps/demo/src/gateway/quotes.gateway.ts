import { MessageBody, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { RateLimit } from '@app/rate-limit';

/**
 * WebSockets on the demo (socket.io by default, `ws` with WS_ADAPTER=ws), on the HTTP port.
 * A rejected message is answered with an `exception` event (code TOO_MANY_REQUESTS, policy,
 * retryAfter); the socket stays open.
 */
@WebSocketGateway({ path: '/ws' })
export class QuotesGateway {
  /** Per connection: each socket gets its own 3 messages per 10 s. */
  @SubscribeMessage('echo')
  @RateLimit({
    name: 'demo.ws-echo',
    algo: 'fixed-window',
    limit: 3,
    window: '10s',
    key: 'connection',
  })
  echo(@MessageBody() body: unknown): { event: string; data: unknown } {
    return { event: 'echo', data: body };
  }

  /** Per client address, however many sockets it opens: 5 per 10 s. */
  @SubscribeMessage('quote')
  @RateLimit({ name: 'demo.ws-quote', algo: 'token-bucket', limit: 5, window: '10s', key: 'ip' })
  quote(): { event: string; data: string } {
    return { event: 'quote', data: 'Less, but better.' };
  }
}
